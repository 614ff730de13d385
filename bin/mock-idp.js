#!/usr/bin/env node
// mock-idp command line: the whole CLI is bundled in dist/cli.script.js (see scripts/bundle-cli.js).
// No node flags here: the server sets its heap flags itself once it listens (src/heap-flags.ts says why),
// since any V8 flag on the command line makes V8 refuse the code cache of Node's own built-in modules.
//
// The bundle is compiled from a V8 code cache when the build left one for this Node version, platform and
// node flags (bin/code-cache.js, made by scripts/code-cache.js): that skips compiling what a start
// runs, about a third of a cold start. V8 checks the cache against its version and flags itself and
// compiles as usual when it refuses it, as it does when there is none. MOCK_IDP_DEBUG=code-cache tells
// which happened.
//
// This file is CommonJS (bin/package.json says so): an ES module entry point has Node start its ES module
// loader first, ~15 ms more of a cold start (bench/lib/cold-start.js).
'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS on purpose, see above */
const { createRequire } = require('node:module');
const { dirname, join } = require('node:path');
const { pathToFileURL } = require('node:url');
const { compileCached } = require('./code-cache.js');

const file = join(__dirname, '..', 'dist', 'cli.script.js');
const { script, cache, state } = compileCached(file);
if ((process.env.MOCK_IDP_DEBUG ?? '').split(',').includes('code-cache'))
  process.stderr.write(`mock-idp debug: code cache ${cache}: ${state}\n`);
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
