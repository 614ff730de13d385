// `mock-idp token` (the real binary): online against a running server, offline with a key; flags, output, exit codes.
import { createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  calculateJwkThumbprint,
  createRemoteJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  exportJWK,
  generateKeyPair,
  jwtVerify,
} from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseKeyValue } from '../../src/cli/options.js';
import { toMintRequest } from '../../src/cli/token.js';
import { DEFAULT_FIXTURES } from '../helpers/bundled.js';
import { runBin } from '../helpers/cli.js';
import { tempDir, writeTestKey } from '../helpers/files.js';
import { endpointsOf, useIdp, Y2030 } from '../helpers/server.js';

const tmp = tempDir();
let key: string;

beforeAll(() => {
  key = writeTestKey(tmp.dir);
});
afterAll(() => {
  tmp.remove();
});
const idp = useIdp({ fixtures: DEFAULT_FIXTURES, clock: Y2030, frozen: true });

describe('flag parsing', () => {
  it.each([
    ['name=Alice', ['name', 'Alice']],
    ['n=42', ['n', 42]],
    ['ok=true', ['ok', true]],
    ['v=null', ['v', null]],
    ['o={"a":[1]}', ['o', { a: [1] }]],
    ['s="42"', ['s', '42']],
    ['eq=a=b', ['eq', 'a=b']],
    ['empty=', ['empty', '']],
  ])('--claim %s', (arg, expected) => {
    expect(parseKeyValue(arg)).toEqual(expected);
  });

  it.each(['noequals', '=value'])('--claim %s is refused', (arg) => {
    expect(() => parseKeyValue(arg)).toThrow(/name=value/);
  });

  it('flags become the mint body; --remove is a null claim', () => {
    expect(
      toMintRequest({
        type: 'id',
        client: 'web-app',
        user: 'alice',
        claim: [['a', 1]],
        remove: ['acr'],
        header: [['kid', null]],
        expiresIn: -5,
        issuedAt: '2030-01-01T00:00:00Z',
        signature: 'none',
      }),
    ).toEqual({
      type: 'id',
      client: 'web-app',
      user: 'alice',
      claims: { a: 1, acr: null },
      header: { kid: null },
      expiresIn: -5,
      issuedAt: '2030-01-01T00:00:00Z',
      signature: 'none',
    });
  });
});

describe('online (--server)', () => {
  it.each([
    ['the realm base URL', () => idp.issuer],
    ['the origin', () => idp.url],
    ['the realm base URL with a trailing slash', () => `${idp.issuer}/`],
  ])('prints a token signed by the server, given %s', async (_name, server) => {
    const { code, stdout, stderr } = await runBin([
      'token',
      '--server',
      server(),
      '--client',
      'web-app',
      '--user',
      'alice',
    ]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const token = stdout.trim();
    expect(stdout).toBe(`${token}\n`);
    const { payload } = await jwtVerify(token, createRemoteJWKSet(new URL(endpointsOf(idp.issuer).certs)), {
      issuer: idp.issuer,
      currentDate: new Date(Y2030 * 1000),
    });
    expect(payload).toMatchObject({ azp: 'web-app', preferred_username: 'alice', typ: 'Bearer' });
  });

  it('--json prints {token, header, claims}; every flag reaches the token', async () => {
    const { code, stdout } = await runBin([
      'token',
      '--server',
      idp.issuer,
      '--json',
      '--type',
      'id',
      '--client',
      'web-app',
      '--user',
      'bob',
      '--scope',
      'openid profile',
      '--claim',
      'nonce=abc',
      '--claim',
      'extra={"deep":true}',
      '--remove',
      'acr',
      '--header',
      'x-test=1',
      '--expires-in',
      '-60',
      '--issued-at',
      '2029-12-31T00:00:00Z',
      '--not-before',
      `${Y2030 + 10}`,
      '--signature',
      'invalid',
    ]);
    expect(code).toBe(0);
    const out = JSON.parse(stdout) as { token: string; header: object; claims: Record<string, unknown> };
    expect(out.header).toEqual(decodeProtectedHeader(out.token));
    expect(out.claims).toEqual(decodeJwt(out.token));
    expect(out.header).toMatchObject({ alg: 'RS256', 'x-test': 1 });
    expect(out.claims).toMatchObject({
      typ: 'ID',
      aud: 'web-app',
      preferred_username: 'bob',
      nonce: 'abc',
      extra: { deep: true },
      iat: Y2030 - 86400,
      exp: Y2030 - 86400 - 60,
      nbf: Y2030 + 10,
    });
    expect(out.claims).not.toHaveProperty('acr');
  });

  it.each([
    [['--client', 'nope'], 1, /answered 400: invalid_request: Unknown client "nope"/],
    [['--client', 'web-app', '--user', 'zed'], 1, /Unknown user "zed"/],
    [['--client', 'web-app', '--scope', 'nope'], 1, /Unknown scope nope/],
  ])('%j exits %i with the server message', async (args, exit, message) => {
    const { code, stdout, stderr } = await runBin(['token', '--server', idp.issuer, ...args]);
    expect(code).toBe(exit);
    expect(stdout).toBe('');
    expect(stderr).toMatch(message);
  });

  it('--dpop-jwk binds the token: cnf.jkt is the JWK thumbprint', async () => {
    const { publicKey } = await generateKeyPair('ES256');
    const jwk = await exportJWK(publicKey);
    const { code, stdout, stderr } = await runBin([
      'token',
      '--server',
      idp.issuer,
      '--client',
      'web-app',
      '--user',
      'alice',
      '--dpop-jwk',
      JSON.stringify(jwk),
    ]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(decodeJwt(stdout.trim())['cnf']).toEqual({ jkt: await calculateJwkThumbprint(jwk) });
  });

  it('a path the server does not have: 404, with the way to name a relative path', async () => {
    const { code, stderr } = await runBin(['token', '--server', `${idp.url}/auth`, '--client', 'web-app']);
    expect(code).toBe(1);
    expect(stderr).toMatch(/answered 404: .*--server http:\/\/host:port\/auth/);
  });

  it('an unreachable server exits 3', async () => {
    const { code, stderr } = await runBin(['token', '--server', 'http://127.0.0.1:9', '--client', 'web-app']);
    expect(code).toBe(3);
    expect(stderr).toMatch(/cannot reach http:\/\/127\.0\.0\.1:9\/realms\/mock\/mock\/tokens/);
  });
});

describe('online, a server run with --http-relative-path /auth', () => {
  const auth = useIdp({ fixtures: DEFAULT_FIXTURES, clock: Y2030, frozen: true, httpRelativePath: '/auth' });

  it.each([
    ['the origin and the relative path', () => `${auth.url}/auth`],
    ['the same with a trailing slash', () => `${auth.url}/auth/`],
    ['the realm base URL', () => auth.issuer],
  ])('given %s, prints a token the server signed', async (_name, server) => {
    expect(auth.issuer).toBe(`${auth.url}/auth/realms/mock`);
    const { code, stdout, stderr } = await runBin(['token', '--server', server(), '--client', 'batch-job']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const { payload } = await jwtVerify(
      stdout.trim(),
      createRemoteJWKSet(new URL(endpointsOf(auth.issuer).certs)),
      {
        issuer: auth.issuer,
        currentDate: new Date(Y2030 * 1000),
      },
    );
    expect(payload['azp']).toBe('batch-job');
  });
});

describe('offline (--key)', () => {
  const offline = (args: string[]) =>
    runBin([
      'token',
      '--key',
      key,
      '--fixtures',
      DEFAULT_FIXTURES,
      '--clock',
      '2030-01-01T00:00:00Z',
      ...args,
    ]);

  it('signs with the key file, at the given time, for the address serve listens on by default unless an issuer is given', async () => {
    // serve's defaults, as its --help states them: the ready line of `npx mock-idp` shows this origin.
    const help = (await runBin(['serve', '--help'])).stdout.replace(/\s+/g, ' ');
    const port = /--port <n> .*?\(default: (\d+)/.exec(help)?.[1];
    const host = /--host <addr> .*?\(default: "([^"]+)"/.exec(help)?.[1];
    expect([host, port]).toEqual(['127.0.0.1', '8080']);
    const { code, stdout } = await offline(['--client', 'web-app', '--user', 'alice', '--json']);
    expect(code).toBe(0);
    const { token, claims } = JSON.parse(stdout) as { token: string; claims: Record<string, unknown> };
    const publicKey = createPublicKey(readFileSync(key));
    const { payload } = await jwtVerify(token, publicKey, {
      issuer: `http://${host}:${port}/realms/mock`,
      currentDate: new Date(Y2030 * 1000),
    });
    expect(payload).toEqual(claims);
    expect(payload.iat).toBe(Y2030);

    const fixed = await offline(['--client', 'web-app', '--issuer', 'http://idp.test/realms/mock']);
    expect(decodeJwt(fixed.stdout.trim()).iss).toBe('http://idp.test/realms/mock');
  });

  it('is reproducible with --seed', async () => {
    const args = ['--client', 'web-app', '--user', 'alice', '--seed', 'same'];
    const [a, b] = await Promise.all([offline(args), offline(args)]);
    expect(a.code).toBe(0);
    expect(a.stdout).toBe(b.stdout);
  });

  it('a refresh token is HS256, with the realm secret the server derives from the same seed', async () => {
    const { stdout } = await offline(['--type', 'refresh', '--client', 'web-app', '--seed', 's', '--json']);
    expect(JSON.parse(stdout)).toMatchObject({ header: { alg: 'HS256' }, claims: { typ: 'Refresh' } });
  });

  it('an unknown client exits 1 with the reason', async () => {
    const { code, stderr } = await offline(['--client', 'nope']);
    expect(code).toBe(1);
    expect(stderr).toMatch(/invalid_request: Unknown client "nope"/);
  });
});

describe('usage errors exit 2', () => {
  it.each([
    [['token', '--client', 'web-app'], /give --server URL .* or --key FILE/],
    [['token', '--server', 'http://x.test', '--key', 'k.pem', '--client', 'web-app'], /cannot be used with/],
    [['token', '--server', 'http://x.test/realms/', '--client', 'web-app'], /give the realm base URL/],
    [
      ['token', '--server', 'http://x.test/realms/mock/protocol/openid-connect/token', '--client', 'web-app'],
      /give the realm base URL/,
    ],
    [['token', '--key', 'k.pem'], /required option '--client <id>'/],
    [
      ['token', '--signature', 'broken', '--client', 'a', '--key', 'k'],
      /Allowed choices are valid, invalid, none, unknown-key/,
    ],
    [
      ['token', '--type', 'saml', '--client', 'a', '--key', 'k'],
      /Allowed choices are access, id, refresh, proof/,
    ],
    [['token', '--expires-in', 'soon', '--client', 'a', '--key', 'k'], /whole number of seconds/],
    [['token', '--claim', 'novalue', '--client', 'a', '--key', 'k'], /expected name=value/],
    [['token', '--dpop-jwk', 'EC', '--client', 'a', '--key', 'k'], /a JWK as JSON/],
    [['token', '--dpop-jwk', '[1]', '--client', 'a', '--key', 'k'], /a JWK as a JSON object/],
    [
      ['token', '--fixtures', DEFAULT_FIXTURES, '--client', 'web-app'],
      /offline minting needs the signing key/,
    ],
  ])('%j', async (args, message) => {
    const { code, stderr } = await runBin(args);
    expect(stderr).toMatch(message);
    expect(code).toBe(2);
  });
});
