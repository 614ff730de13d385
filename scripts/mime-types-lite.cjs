// mime-types as the CLI bundle has it (scripts/bundle-cli.js aliases `mime-types` to this file): express,
// send, type-is and accepts require mime-types at load, and mime-types builds its tables from mime-db's
// ~2,500 types there (~10–20 ms of a start's CPU on the 2-core machine, and 0.2 MB of the code cache).
// mock-idp asks it about a handful of types; this answers those from a small table, copied from mime-types'
// answers (and checked against them by test/cli/bundle.test.ts), and hands every other question to the real
// module, loaded then.
// MOCK_IDP_DEBUG=modules says when that happens.
'use strict';
/* global process, require, exports */

const debug = () => (process.env.MOCK_IDP_DEBUG ?? '').split(',').includes('modules');
if (debug()) process.stderr.write('mock-idp debug: modules: mime-types answers from its own table\n');

/** @type {any} */
let full;
/** @param {string} why */
function real(why) {
  if (full === undefined) {
    if (debug()) process.stderr.write(`mock-idp debug: modules: loaded mime-db for ${why}\n`);
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when asked for
    full = require('mime-types/index.js');
  }
  return full;
}

/** mime-types' lookup(): a file extension (or path) → its type. */
const LOOKUP = new Map([
  ['html', 'text/html'],
  ['json', 'application/json'],
  ['txt', 'text/plain'],
  ['text', 'text/plain'],
  ['bin', 'application/octet-stream'],
  ['js', 'text/javascript'],
  ['css', 'text/css'],
]);

/** mime-types' contentType(): a type or an extension → the Content-Type header, with its default charset. */
const CONTENT_TYPE = new Map([
  ['application/json', 'application/json; charset=utf-8'],
  ['application/jwt', 'application/jwt'],
  ['application/jwk-set+json', 'application/jwk-set+json'],
  ['application/octet-stream', 'application/octet-stream'],
  ['application/x-www-form-urlencoded', 'application/x-www-form-urlencoded'],
  ['text/html', 'text/html; charset=utf-8'],
  ['text/plain', 'text/plain; charset=utf-8'],
  ['text/javascript', 'text/javascript; charset=utf-8'],
  ['text/css', 'text/css; charset=utf-8'],
  ['html', 'text/html; charset=utf-8'],
  ['json', 'application/json; charset=utf-8'],
  ['txt', 'text/plain; charset=utf-8'],
  ['bin', 'application/octet-stream'],
]);

/** @param {string} path */
exports.lookup = (path) => LOOKUP.get(path) ?? real(`lookup(${JSON.stringify(path)})`).lookup(path);

/** @param {string} str */
exports.contentType = (str) => {
  // mime-types returns a full type that names a charset as it is, without looking anything up.
  if (typeof str === 'string' && str.includes('/') && str.includes('charset')) return str;
  return CONTENT_TYPE.get(str) ?? real(`contentType(${JSON.stringify(str)})`).contentType(str);
};

/** @param {string} type */
exports.charset = (type) => real(`charset(${JSON.stringify(type)})`).charset(type);

/** @param {string} type */
exports.extension = (type) => real(`extension(${JSON.stringify(type)})`).extension(type);

for (const name of ['charsets', 'extensions', 'types', '_extensionConflicts'])
  Object.defineProperty(exports, name, { enumerable: true, get: () => real(name)[name] });

// for test/cli/bundle.test.ts
Object.defineProperty(exports, 'mockIdpTables', { value: { LOOKUP, CONTENT_TYPE } });
