// Bundles the CLI (run by `npm run build`): one file loads far faster than the few hundred modules express,
// zod and yaml bring, which is most of mock-idp's cold start.
//
// dist/cli.script.js is a classic script, not an ES module, so that bin/mock-idp.js can compile it through
// node:vm with a V8 code cache (scripts/code-cache.js makes those, right after the bundle): the script is one
// function expression `(exports, require, module, __filename, __dirname, importMetaUrl) => ...` holding a
// CommonJS bundle, preceded by a comment naming its build (a hash of the bundle), which the caches' file names
// carry, so a cache is never read against another build of the script. The fixtures worker's bundle is made
// the same way.
import { createHash } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { makeCodeCaches } from './code-cache.js';

const require = createRequire(import.meta.url);
const ZOD = dirname(require.resolve('zod'));

/**
 * What the bundles leave out of their dependencies, for a shorter start (test/cli/bundle.test.ts):
 * - zod: `import { z } from 'zod'` is the whole library as one namespace (every locale, JSON Schema in and out,
 *   ~0.6 MB), which a bundler cannot shake. Our sources get a `z` of zod's classic schemas and checks (they set
 *   zod's English messages, as the full `zod` does) and NEVER: what they use.
 * - mime-types: scripts/mime-types-lite.cjs, which loads mime-db's tables only for a type it does not know.
 * @type {import('esbuild').Plugin}
 */
const slimDependencies = {
  name: 'slim-dependencies',
  setup(b) {
    b.onResolve({ filter: /^zod$/ }, (args) =>
      args.importer.includes('node_modules') ? undefined : { path: 'zod', namespace: 'mock-idp-zod' },
    );
    b.onLoad({ filter: /^zod$/, namespace: 'mock-idp-zod' }, () => ({
      contents: `export * as z from ${JSON.stringify(join(ZOD, 'v4/classic/mock-idp-z.js'))};`,
      resolveDir: ZOD,
    }));
    b.onResolve({ filter: /mock-idp-z\.js$/ }, (args) => ({ path: args.path, namespace: 'mock-idp-zod' }));
    b.onLoad({ filter: /mock-idp-z\.js$/, namespace: 'mock-idp-zod' }, () => ({
      contents: [
        `export * from ${JSON.stringify(join(ZOD, 'v4/classic/schemas.js'))};`,
        `export * from ${JSON.stringify(join(ZOD, 'v4/classic/checks.js'))};`,
        `export { NEVER } from ${JSON.stringify(join(ZOD, 'v4/core/index.js'))};`,
      ].join('\n'),
      resolveDir: ZOD,
    }));
    b.onResolve({ filter: /^mime-types$/ }, () => ({
      path: fileURLToPath(new URL('mime-types-lite.cjs', import.meta.url)),
    }));
  },
};

/**
 * js-yaml's parseEvents makes its parser state as `{ ...DEFAULT_PARSER_OPTIONS, ...options, input, ... }`.
 * From a process's ninth call on (when V8 gives parseEvents a feedback vector), V8 clones that spread through
 * an inline cache whose objects have another map, and every later parse runs at about 40 % of the speed of
 * the first eight: 50,000 users took ~200 ms to parse, then ~500 ms. A server that takes PUT /mock/fixtures
 * or --watch reloads reads each big text in its one fixtures worker, so from the ninth the PUT went from
 * ~500 ms to ~850 ms (bench: the 13th to 16th PUT). The bundles make the state from the two options the
 * parser reads, by name, instead: the same state (an option left undefined takes its default). A js-yaml
 * without that literal fails the build here, so the rewrite is never silently lost. The library's modules
 * (dist/, not bundled) import js-yaml as published: a host process reads its few small files there, and any
 * big text in the fixtures worker, which is bundled.
 * @type {import('esbuild').Plugin}
 */
const JS_YAML_STATE = `\t\t...DEFAULT_PARSER_OPTIONS,\n\t\t...options,\n\t\tinput: `;
const jsYamlParserState = {
  name: 'js-yaml-parser-state',
  setup(b) {
    b.onLoad({ filter: /[\\/]js-yaml[\\/]dist[\\/]js-yaml\.(mjs|cjs\.js)$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      const at = source.indexOf(JS_YAML_STATE);
      if (at === -1 || source.indexOf(JS_YAML_STATE, at + 1) !== -1)
        throw new Error(
          `${args.path}: parseEvents' parser state is not the one scripts/bundle-cli.js rewrites`,
        );
      const named =
        '\t\tfilename: options.filename ?? DEFAULT_PARSER_OPTIONS.filename,\n' +
        '\t\tmaxDepth: options.maxDepth ?? DEFAULT_PARSER_OPTIONS.maxDepth,\n\t\tinput: ';
      return { contents: source.replace(JS_YAML_STATE, named), loader: 'js' };
    });
  },
};

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  logLevel: 'warning',
  plugins: [slimDependencies, jsYamlParserState],
};

/**
 * A classic script: CommonJS wrapped in one function expression `(exports, require, module, __filename,
 * __dirname, importMetaUrl) => ...`, which node:vm compiles with a code cache (it has no import() of its own).
 */
const classicScript = {
  format: 'cjs',
  supported: { 'dynamic-import': false },
  banner: { js: '(function (exports, require, module, __filename, __dirname, importMetaUrl) {' },
  footer: { js: '})' },
};

const SCRIPT = 'dist/cli.script.js';
await build({
  ...common,
  ...classicScript,
  entryPoints: ['src/cli/main.ts'],
  outfile: SCRIPT,
  // The Redis client loads only for --store redis://... (import() becomes a lazy require()): the memory
  // default skips it. A vm script has no import() of its own.
  external: ['ioredis'],
  define: {
    // The bundle's own file URL (the bundled fixtures, package.json and the worker are found from it).
    'import.meta.url': 'importMetaUrl',
  },
});
/** Prefixes a bundle with the comment naming its build (a hash of the bundle), which its caches' names carry. */
function stampBuildId(/** @type {string} */ file) {
  const bundle = readFileSync(file, 'utf8');
  const buildId = createHash('sha256').update(bundle).digest('hex').slice(0, 16);
  writeFileSync(file, `/*mock-idp ${buildId}*/${bundle}`);
}
stampBuildId(SCRIPT);

// The fixtures worker: src/fixtures/parse-worker.ts starts `fixtures-worker.js` beside the module holding
// it, here the CLI bundle. An ES module; `require` for the CommonJS dependencies inside (yaml).
for (const old of ['dist/fixtures-worker.mjs', 'dist/fixtures-worker.script.js'])
  rmSync(old, { force: true });
await build({
  ...common,
  entryPoints: ['src/fixtures/fixtures-worker.ts'],
  outfile: 'dist/fixtures-worker.js',
  format: 'esm',
  banner: {
    js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
  },
});

makeCodeCaches();
