// Bundles the CLI and its dependencies into one file, dist/cli.js, with esbuild's plain build API (run by
// `npm run build`): one file loads far faster than the few hundred modules express, zod and yaml bring:
// spawn → listening 35–45 % shorter than running dist/ directly (npm run bench, cold start; the first token
// gains as much with a fixed --key, less when it waits for the generated key). The fixtures worker's entry
// is bundled beside it the same way (the fixtures module starts `fixtures-worker.js` beside the module
// holding it), so that the CLI needs no node_modules: the Docker image ships these two files and the Redis
// client only.
import { build } from 'esbuild';

/** @type {import('esbuild').BuildOptions} */
const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  logLevel: 'warning',
  // The CommonJS dependencies (express and its helpers) require() Node's built-ins.
  banner: {
    js: "import { createRequire as mockIdpCreateRequire } from 'node:module'; const require = mockIdpCreateRequire(import.meta.url);",
  },
};

await build({
  ...common,
  entryPoints: ['src/cli/main.ts'],
  outfile: 'dist/cli.js',
  // Loaded only for --store redis://..., by its own import().
  external: ['ioredis'],
});
await build({
  ...common,
  entryPoints: ['src/fixtures/fixtures-worker.ts'],
  outfile: 'dist/fixtures-worker.js',
});
