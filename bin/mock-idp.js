#!/usr/bin/env -S node --max-semi-space-size=2 --max-old-space-size=1024
// mock-idp command line: the whole CLI is bundled in dist/cli.script.js (see scripts/bundle-cli.js).
// Heap flags (npm start and the image pass them too): token requests make short-lived garbage, and V8's
// defaults (16 MB semi-spaces, an old space sized to the machine's memory) let peak RSS under load reach
// ~150 MB; with these it stays ~90 MB at the same throughput (npm run bench). 1 GB still holds millions
// of sessions.
//
// The bundle is compiled from a V8 code cache when the build left one for this Node version, platform and
// these node flags (scripts/code-cache.js): that skips compiling what a start runs, about a third of a cold
// start. V8 checks the cache against its version and flags itself and compiles as usual when it refuses it,
// as it does when there is none. MOCK_IDP_DEBUG=code-cache tells which happened.
//
// This file is CommonJS (bin/package.json says so): an ES module entry point has Node start its ES module
// loader first, ~15 ms more of a cold start (bench/lib/cold-start.js).
'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS on purpose, see above */
const { readFileSync } = require('node:fs');
const { createRequire } = require('node:module');
const { dirname, join } = require('node:path');
const { pathToFileURL } = require('node:url');
const { Script } = require('node:vm');

const file = join(__dirname, '..', 'dist', 'cli.script.js');
const source = readFileSync(file, 'utf8');

/** The cache for this build of the script, this Node and these flags (the same name scripts/code-cache.js gives). */
function cacheFile() {
  const build = /^\/\*mock-idp (\w+)\*\//.exec(source)?.[1];
  let flags = '';
  if (process.execArgv.length > 0) {
    const text = process.execArgv.join(' ');
    let hash = 0x811c9dc5; // FNV-1a
    for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
    flags = `-${hash.toString(16).padStart(8, '0')}`;
  }
  return build && join(dirname(file), `cli.script.${build}.${process.version}-${process.arch}${flags}.cache`);
}

const cache = cacheFile();
let cachedData;
try {
  if (cache) cachedData = readFileSync(cache);
} catch {
  // none for this Node or these flags: compile as usual
}
const script = new Script(source, { filename: file, ...(cachedData ? { cachedData } : {}) });
if ((process.env.MOCK_IDP_DEBUG ?? '').split(',').includes('code-cache')) {
  const state = cachedData ? (script.cachedDataRejected ? 'rejected' : 'accepted') : 'none';
  process.stderr.write(`mock-idp debug: code cache ${cache}: ${state}\n`);
}
const cli = { exports: /** @type {{ main: (argv: string[]) => Promise<number | undefined> }} */ ({}) };
script.runInThisContext()(
  cli.exports,
  createRequire(file),
  cli,
  file,
  dirname(file),
  pathToFileURL(file).href,
);

cli.exports.main(process.argv.slice(2)).then((code) => {
  if (code !== undefined) process.exitCode = code;
});
