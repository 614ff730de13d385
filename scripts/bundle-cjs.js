// Builds the CommonJS entry points (run by `npm run build`): dist/index.cjs and dist/testcontainers/index.cjs,
// so `require('mock-idp')` works in CommonJS projects and under Jest's own module loader, which cannot load
// ES modules. jose and @noble/curves are ESM-only and are bundled in; the other dependencies ship CommonJS and
// stay external.
import { existsSync, readFileSync } from 'node:fs';
import { build } from 'esbuild';

const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const external = [...Object.keys(pkg.dependencies), ...Object.keys(pkg.peerDependencies ?? {})].filter(
  (name) => name !== 'jose' && name !== '@noble/curves',
);

const entries = [
  ['src/index.ts', 'dist/index.cjs'],
  ['src/testcontainers/index.ts', 'dist/testcontainers/index.cjs'],
];
// The Docker build context leaves src/testcontainers out (.dockerignore): the image needs neither.
for (const [entry, outfile] of entries.filter(([entry]) => existsSync(entry))) {
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    external,
    legalComments: 'none',
    logLevel: 'warning',
    // Paths next to the module (the bundled fixtures, the server copied into containers) are found from
    // import.meta.url; each bundle sits in the directory its sources compile to, so the same URL works.
    define: { 'import.meta.url': '__mockIdpModuleUrl' },
    banner: { js: "const __mockIdpModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
  });
}
