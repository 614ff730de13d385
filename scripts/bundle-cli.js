// Bundles the CLI into dist/cli.mjs (run by `npm run build`): one file loads far faster than the few
// hundred modules express, zod and yaml bring, which is most of mock-idp's cold start.
import { build } from 'esbuild';

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  logLevel: 'warning',
  // express and its CommonJS dependencies call require(); give the ESM bundle one.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
};

await build({
  ...common,
  entryPoints: ['src/cli/main.ts'],
  outfile: 'dist/cli.mjs',
  // The Redis client loads only for --store redis://... (a dynamic import): the memory default skips it.
  external: ['ioredis'],
  // src/fixtures/parse-worker.ts: the fixtures worker bundle lies beside this one.
  define: { __MOCK_IDP_FIXTURES_WORKER__: JSON.stringify('./fixtures-worker.mjs') },
});

// The fixtures worker (src/fixtures/parse-worker.ts): reading and validating only, a third of the CLI's
// size, so a worker started for a big PUT /mock/fixtures is ready sooner.
await build({
  ...common,
  entryPoints: ['src/fixtures/fixtures-worker.ts'],
  outfile: 'dist/fixtures-worker.mjs',
});
