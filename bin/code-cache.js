// The V8 code caches of mock-idp's two bundles, dist/cli.script.js (the CLI, run by bin/mock-idp.js) and
// dist/fixtures-worker.script.js (run by the fixtures worker's boot code in src/fixtures/parse-worker.ts):
// the one name a cache has, and the one way a bundle is compiled through it. scripts/code-cache.js makes
// the caches at build under the same names.
//
// A bundle is a classic script (scripts/bundle-cli.js) whose first comment names its build. Its cache,
// beside it, is named for that build, the Node version and platform, and the node flags (an FNV-1a hash of
// them, none without flags): V8 takes a cache only from the same V8 under the same flags, and refuses it
// otherwise, when the bundle is compiled as usual, as it is when there is no cache.
//
// CommonJS, as the bin (bin/package.json says so), and small: the bin requires it on every start.
'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS on purpose, see above */
const { readFileSync } = require('node:fs');
const { Script } = require('node:vm');

/**
 * The cache file of bundle `file` (its text `source`) under this Node and the node flags `execArgv`, or
 * undefined when the text names no build.
 * @param {string} file
 * @param {string} source
 * @param {readonly string[]} execArgv
 * @returns {string | undefined}
 */
function cacheFileOf(file, source, execArgv) {
  const build = /^\/\*mock-idp (\w+)\*\//.exec(source)?.[1];
  if (!build) return undefined;
  let flags = '';
  if (execArgv.length > 0) {
    const text = execArgv.join(' ');
    let hash = 0x811c9dc5; // FNV-1a
    for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
    flags = `-${hash.toString(16).padStart(8, '0')}`;
  }
  return file.replace(/\.js$/, `.${build}.${process.version}-${process.arch}${flags}.cache`);
}

/**
 * Compiles bundle `file` through its cache for the node flags `execArgv` (this process's by default); with
 * `noCache` it reads none (the build compiles a bundle plainly to make its cache). `state` says what V8
 * did with the cache.
 * @param {string} file
 * @param {{ execArgv?: readonly string[], noCache?: boolean }} [options]
 * @returns {{ script: import('node:vm').Script, cache: string | undefined, state: 'accepted' | 'rejected' | 'none' }}
 */
function compileCached(file, { execArgv = process.execArgv, noCache = false } = {}) {
  const source = readFileSync(file, 'utf8');
  const cache = cacheFileOf(file, source, execArgv);
  /** @type {Buffer | undefined} */
  let cachedData;
  try {
    if (cache && !noCache) cachedData = readFileSync(cache);
  } catch {
    // none for this Node or these flags: compile as usual
  }
  const script = new Script(source, { filename: file, ...(cachedData ? { cachedData } : {}) });
  const state = cachedData ? (script.cachedDataRejected ? 'rejected' : 'accepted') : 'none';
  return { script, cache, state };
}

/**
 * The node flags of a bin's shebang (`#!/usr/bin/env -S node --flag ...`; none today): the flags the build
 * makes the CLI's cache for, beside none. Read by the build, the bench and the tests; the bin itself needs
 * only its own process.execArgv.
 * @param {string} bin
 * @returns {string[]}
 */
function shebangFlags(bin) {
  const first = readFileSync(bin, 'utf8').split('\n')[0] ?? '';
  return (/^#!.*\bnode\b(.*)$/.exec(first)?.[1] ?? '').trim().split(/\s+/).filter(Boolean);
}

module.exports = { cacheFileOf, compileCached, shebangFlags };
