// What the CLI bundle leaves out of its dependencies for a shorter start (scripts/bundle-cli.js): zod's
// locales and JSON Schema converters, and mime-db's tables, which scripts/mime-types-lite.cjs loads only for a
// type it does not know. The binary must answer exactly as the sources do: every response's Content-Type, and
// fixtures errors word for word.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { check } from '../../src/cli/check.js';
import { ensureBuilt, ROOT, runBin, spawnServer, type ServeProcess } from '../helpers/cli.js';
import { basicFor } from '../helpers/flows.js';
import { endpointsOf, FJORD_FIXTURES, startIdp, type TestIdp } from '../helpers/server.js';

const require = createRequire(import.meta.url);
/** The part of mime-types' interface express and its helpers use. */
interface MimeTypes {
  lookup(path: string): string | false;
  contentType(type: string): string | false;
  charset(type: string): string | false;
  extension(type: string): string | false;
  types: Record<string, string>;
  extensions: Record<string, string[]>;
}
const LITE = join(ROOT, 'scripts', 'mime-types-lite.cjs');

describe('scripts/mime-types-lite.cjs', () => {
  const real = require('mime-types') as MimeTypes;
  const lite = require(LITE) as MimeTypes & {
    mockIdpTables: { LOOKUP: Map<string, string>; CONTENT_TYPE: Map<string, string> };
  };
  const { LOOKUP, CONTENT_TYPE } = lite.mockIdpTables;

  it.each([...LOOKUP.keys()])('lookup(%j) from its table is what mime-types answers', (key) => {
    expect(LOOKUP.get(key)).toBe(real.lookup(key));
  });

  it.each([...CONTENT_TYPE.keys()])('contentType(%j) from its table is what mime-types answers', (key) => {
    expect(CONTENT_TYPE.get(key)).toBe(real.contentType(key));
  });

  it.each([
    'text/html; charset=utf-8',
    'application/json; charset=UTF-8',
    'text/html',
    'application/json',
    'json',
    'html',
  ])('contentType(%j) answers as mime-types without mime-db', (key) => {
    const write = vi.spyOn(process.stderr, 'write').mockReturnValue(true);
    vi.stubEnv('MOCK_IDP_DEBUG', 'modules');
    try {
      expect(lite.contentType(key)).toBe(real.contentType(key));
      expect(write).not.toHaveBeenCalled();
    } finally {
      vi.unstubAllEnvs();
      write.mockRestore();
    }
  });

  // last: from here on the real tables are loaded
  it('hands any other question to mime-types, loading mime-db then (MOCK_IDP_DEBUG=modules says so)', () => {
    const write = vi.spyOn(process.stderr, 'write').mockReturnValue(true);
    vi.stubEnv('MOCK_IDP_DEBUG', 'modules');
    try {
      expect(lite.contentType('png')).toBe(real.contentType('png'));
      expect(write).toHaveBeenCalledWith('mock-idp debug: modules: loaded mime-db for contentType("png")\n');
      for (const key of ['svg', 'image/png', 'text/csv', 'application/x-nothing', '', 'ogg'])
        expect([lite.lookup(key), lite.contentType(key)]).toEqual([real.lookup(key), real.contentType(key)]);
      expect([lite.charset('text/csv'), lite.extension('image/png')]).toEqual(['UTF-8', 'png']);
      expect(lite.types['png']).toBe('image/png');
      expect(lite.extensions['application/json']).toEqual(real.extensions['application/json']);
    } finally {
      vi.unstubAllEnvs();
      write.mockRestore();
    }
  });
});

describe('the CLI bundle', () => {
  beforeAll(() => ensureBuilt());

  it.each([
    ['dist/cli.script.js', ['fromJSONSchema', 'node_modules/zod/v4/locales/de.js']],
    ['dist/fixtures-worker.script.js', ['fromJSONSchema', 'node_modules/zod/v4/locales/de.js', 'mime-db']],
  ])('%s leaves out %j', (file, absent) => {
    const text = readFileSync(join(ROOT, file), 'utf8');
    for (const name of absent) expect(text).not.toContain(name);
  });

  // scripts/bundle-cli.js: js-yaml's parser state made from its two options by name, not by spreading a
  // defaults object (V8 slowed every parse after a process's eighth to ~40 %; the bench's 13th-16th PUT row).
  it.each(['dist/cli.script.js', 'dist/fixtures-worker.script.js'])(
    "%s makes js-yaml's parser state from named options",
    (file) => {
      const text = readFileSync(join(ROOT, file), 'utf8');
      const parseEvents = /function parseEvents\(input,options\)\{[^]*?return state\.events\}/.exec(
        text,
      )?.[0];
      expect(parseEvents).toBeDefined();
      expect(parseEvents).toContain(
        'filename:options.filename??DEFAULT_PARSER_OPTIONS.filename,maxDepth:options.maxDepth??DEFAULT_PARSER_OPTIONS.maxDepth,input:`${input}\\0`',
      );
      expect(parseEvents).not.toContain('...');
    },
  );

  describe('a fixtures file with mistakes', () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'mock-idp-bundle-'));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('gets the same messages from the binary as from the sources (zod English messages)', async () => {
      const file = join(dir, 'broken.yaml');
      writeFileSync(
        file,
        [
          'realm: "no spaces"',
          'tokens: { accessTokenLifespan: -5, tokenType: mac }',
          'clients:',
          '  app:',
          '    secret: ""',
          '    pkce: sometimes',
          '    redirectUris: [1]',
          '    sectorIdentifierUri: ftp://x',
          '    scopes: ["a b"]',
          'users:',
          '  u: { acr: [], sub: "" }',
          '',
        ].join('\n'),
      );
      const expected = await check(file, () => undefined).then(
        () => 'no error',
        (err: Error) => err.message,
      );
      expect(expected).toContain('broken.yaml:2:');
      const result = await runBin(['check', file]);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain(expected);
    });
  });

  describe('serving', () => {
    let bin: ServeProcess;
    let src: TestIdp;
    beforeAll(async () => {
      [bin, src] = await Promise.all([
        spawnServer(['--fixtures', FJORD_FIXTURES], { MOCK_IDP_DEBUG: 'modules' }),
        startIdp(),
      ]);
    });
    afterAll(async () => {
      await Promise.all([bin?.stop(), src?.close()]);
    });

    const origin = (base: string): string => new URL(base).origin;
    const REQUESTS: [string, (base: string) => [string, RequestInit?]][] = [
      ['discovery', (b) => [endpointsOf(b).discovery]],
      ['certs', (b) => [endpointsOf(b).certs]],
      [
        'client_credentials token',
        (b) => [
          endpointsOf(b).token,
          {
            method: 'POST',
            headers: {
              authorization: basicFor('ledger-sync'),
              'content-type': 'application/x-www-form-urlencoded',
            },
            body: 'grant_type=client_credentials',
          },
        ],
      ],
      ['token without a body', (b) => [endpointsOf(b).token, { method: 'POST' }]],
      [
        'login page',
        (b) => [
          `${endpointsOf(b).auth}?response_type=code&client_id=teller-web&redirect_uri=${encodeURIComponent('http://app.fjord.test/cb')}&scope=openid`,
        ],
      ],
      ['auth error page', (b) => [`${endpointsOf(b).auth}?client_id=nobody`]],
      ['userinfo without a token', (b) => [endpointsOf(b).userinfo]],
      ['check-session iframe', (b) => [endpointsOf(b).checkSession]],
      ['3p cookies step 1', (b) => [endpointsOf(b).thirdPartyCookiesStep1]],
      [
        'registration with a wrong type',
        (b) => [
          endpointsOf(b).registration,
          { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' },
        ],
      ],
      ['inspector', (b) => [`${b}/mock/ui`]],
      ['sessions', (b) => [`${b}/mock/sessions`]],
      ['health', (b) => [`${origin(b)}/health`]],
      ['an unknown path', (b) => [`${origin(b)}/nothing/here`]],
      ['a malformed QA body', (b) => [`${b}/mock/tokens`, { method: 'POST', body: '{' }]],
    ];

    it.each(REQUESTS)('%s: the same status and Content-Type as the sources', async (_name, request) => {
      const answer = async (base: string) => {
        const [url, init] = request(base);
        const res = await fetch(url, { redirect: 'manual', ...init });
        await res.arrayBuffer();
        return { status: res.status, type: res.headers.get('content-type') };
      };
      const got = await answer(bin.base);
      expect(got).toEqual(await answer(src.issuer));
    });

    it('started without the built-ins a start does not need (MOCK_IDP_DEBUG=modules)', () => {
      const line = /built-ins loaded at the ready line: (.*)/.exec(bin.stderr())?.[1] ?? '';
      const loaded = line.split(' ');
      expect(loaded).toEqual(expect.arrayContaining(['http', 'crypto', 'vm']));
      for (const name of ['worker_threads', 'v8', 'perf_hooks', 'fs/promises', 'readline'])
        expect(loaded).not.toContain(name);
    });

    it('loaded mime-types-lite, and never mime-db for any of those (MOCK_IDP_DEBUG=modules)', () => {
      expect(bin.stderr()).toContain('mock-idp debug: modules: mime-types answers from its own table');
      expect(bin.stderr()).not.toContain('loaded mime-db');
    });
  });
});
