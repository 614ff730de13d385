// Bundles the CLI into dist/cli.mjs (run by `npm run build`): one file loads far faster than the few
// hundred modules express, zod and yaml bring, which is most of mock-idp's cold start.
import { build } from 'esbuild';

await build({
  entryPoints: ['src/cli/main.ts'],
  outfile: 'dist/cli.mjs',
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  logLevel: 'warning',
  // The Redis client loads only for --store redis://... (a dynamic import): the memory default skips it.
  external: ['ioredis'],
  // express and its CommonJS dependencies call require(); give the ESM bundle one.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
});
