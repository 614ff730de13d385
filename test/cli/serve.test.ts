// `mock-idp serve` as a real child process: ready line, every flag and env var, bad input, signals, request log.
import { generateKeyPairSync } from 'node:crypto';
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { calculateJwkThumbprint, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBin, type ServeProcess } from '../helpers/cli.js';
import { tempDir } from '../helpers/files.js';
import { clientCredentials, SECRETS } from '../helpers/flows.js';
import { basic, get, postForm } from '../helpers/http.js';
import { ASSERTION_TYPE, clientAssertion, decode } from '../helpers/jwt.js';
import {
  endpointsOf,
  FJORD_FIXTURES,
  freePort,
  idpAt,
  useCliPerTest,
  useLocalServer,
  Y2030,
} from '../helpers/server.js';

const tmp = tempDir();
const dir = tmp.dir;
afterAll(() => tmp.remove());
let pemKey: string;
let jwkKey: string;
let ecKey: string;
let thumbprint: string;

beforeAll(async () => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  pemKey = join(dir, 'realm.pem');
  jwkKey = join(dir, 'realm.jwk.json');
  ecKey = join(dir, 'ec.pem');
  await writeFile(pemKey, privateKey.export({ format: 'pem', type: 'pkcs8' }));
  await writeFile(jwkKey, JSON.stringify(privateKey.export({ format: 'jwk' })));
  // P-256 keys sign ES256; another curve is refused.
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-384' });
  await writeFile(ecKey, ec.privateKey.export({ format: 'pem', type: 'pkcs8' }));
  thumbprint = await calculateJwkThumbprint(publicKey.export({ format: 'jwk' }) as JWK, 'sha256');
});

const serve = useCliPerTest();

/** client_credentials (ledger-sync, ledger.read) at a child server. */
const clientCredentialsAt = (s: ServeProcess) =>
  clientCredentials<Record<string, string>>(idpAt(s.base), 'ledger.read');

const BASE = /^http:\/\/127\.0\.0\.1:(\d+)\/realms\/fjord$/;

describe('the ready line', () => {
  it('prints one line with "listening on" and the realm base URL, and answers there', async () => {
    const s = await serve(['--fixtures', FJORD_FIXTURES, '--port', '0']);
    expect(s.ready).toMatch(/^mock-idp listening on http:\/\/127\.0\.0\.1:\d+\/realms\/fjord$/);
    expect(s.base).toMatch(BASE);
    expect(
      s
        .stdout()
        .split('\n')
        .filter((l) => l.includes('listening on')),
    ).toHaveLength(1);
    const discovery = await get(endpointsOf(s.base).discovery);
    expect(discovery.json.issuer).toBe(s.base);
  });

  it.each([
    [
      [],
      /^mock-idp start page http:\/\/127\.0\.0\.1:\d+\/ · inspector http:\/\/127\.0\.0\.1:\d+\/realms\/fjord\/mock\/ui · store memory$/,
    ],
    [
      ['--no-qa-api'],
      /^mock-idp start page http:\/\/127\.0\.0\.1:\d+\/ · inspector off \(--no-qa-api\) · store memory$/,
    ],
    [
      ['--http-relative-path', '/auth'],
      /^mock-idp start page http:\/\/127\.0\.0\.1:\d+\/auth\/ · inspector http:\/\/127\.0\.0\.1:\d+\/auth\/realms\/fjord\/mock\/ui · store memory$/,
    ],
  ])('with %j, the next line names the start page, the inspector and the store', async (flags, line) => {
    const s = await serve(['--fixtures', FJORD_FIXTURES, '--port', '0', ...flags]);
    await waitFor(() => s.stdout().includes('start page'));
    const next = s
      .stdout()
      .split('\n')
      .find((l) => l.startsWith('mock-idp start page'));
    expect(next).toMatch(line);
    const page = await fetch(/start page (\S+)/.exec(next ?? '')?.[1] ?? '');
    expect(page.status).toBe(200);
  });

  it('with an ephemeral key, requests sent at the ready line (before the key may exist) are answered with it', async () => {
    const s = await serve(['--fixtures', FJORD_FIXTURES, '--port', '0']);
    const endpoints = endpointsOf(s.base);
    // All at once, the moment the ready line is out: none may fail or see a half-started server.
    const [health, jwks, discovery] = await Promise.all([
      get(`${new URL(s.base).origin}/health`),
      get(endpoints.certs),
      get(endpoints.discovery),
    ]);
    expect(health.status).toBe(200);
    expect(health.json).toEqual({ status: 'UP' });
    expect((jwks.json.keys as { use: string; kty: string }[]).map((k) => [k.use, k.kty])).toEqual([
      ['sig', 'RSA'],
      ['sig', 'EC'],
      ['enc', 'RSA'],
    ]);
    expect(discovery.json.issuer).toBe(s.base);
  });

  it('serves the bundled fixtures by default', async () => {
    const s = await serve(['--port', '0']);
    expect(s.base).toMatch(/\/realms\/mock$/);
  });
});

describe('serve flags and environment: argv → observable effect', () => {
  it.each<[string, () => Promise<string[]>, Record<string, string>, (s: ServeProcess) => Promise<void>]>([
    [
      'explicit serve command',
      async () => ['serve', '--fixtures', FJORD_FIXTURES, '--port', '0'],
      {},
      async (s) => expect(s.base).toMatch(BASE),
    ],
    [
      '--host 127.0.0.1',
      async () => ['--fixtures', FJORD_FIXTURES, '--port', '0', '--host', '127.0.0.1'],
      {},
      async (s) => expect(s.base).toMatch(BASE),
    ],
    [
      'HOST env',
      async () => ['--fixtures', FJORD_FIXTURES, '--port', '0'],
      { HOST: '127.0.0.1' },
      async (s) => expect(s.base).toMatch(BASE),
    ],
    [
      '--port N',
      async () => ['--fixtures', FJORD_FIXTURES, '--port', String(await freePortFor('flag'))],
      {},
      async (s) => expect(s.base).toBe(`http://127.0.0.1:${ports.get('flag')}/realms/fjord`),
    ],
    [
      'PORT env',
      async () => ['--fixtures', FJORD_FIXTURES],
      { PORT: '__PORT_ENV__' },
      async (s) => expect(s.base).toBe(`http://127.0.0.1:${ports.get('env')}/realms/fjord`),
    ],
    [
      '--port wins over PORT',
      async () => ['--fixtures', FJORD_FIXTURES, '--port', '0'],
      { PORT: '1' },
      async (s) => expect(s.base).toMatch(BASE),
    ],
    [
      '--issuer',
      async () => [
        '--fixtures',
        FJORD_FIXTURES,
        '--port',
        '0',
        '--issuer',
        'https://login.fjord.test/realms/fjord',
      ],
      {},
      async (s) => {
        expect(s.ready).toContain('https://login.fjord.test/realms/fjord');
        const url = /listening on (http:\/\/127\.0\.0\.1:\d+\/realms\/fjord)/.exec(s.ready)?.[1] ?? s.base;
        expect((await get(endpointsOf(url).discovery)).json.issuer).toBe(
          'https://login.fjord.test/realms/fjord',
        );
      },
    ],
    [
      '--clock ISO --frozen',
      async () => [
        '--fixtures',
        FJORD_FIXTURES,
        '--port',
        '0',
        '--clock',
        '2030-01-01T00:00:00Z',
        '--frozen',
      ],
      {},
      async (s) => {
        expect(decode((await clientCredentialsAt(s)).json['access_token'] as string).claims.iat).toBe(Y2030);
        await new Promise((r) => setTimeout(r, 1100));
        expect(decode((await clientCredentialsAt(s)).json['access_token'] as string).claims.iat).toBe(Y2030);
      },
    ],
    [
      '--frozen alone: time stands still from the start',
      async () => ['--fixtures', FJORD_FIXTURES, '--port', '0', '--frozen'],
      {},
      async (s) => {
        const first = decode((await clientCredentialsAt(s)).json['access_token'] as string).claims.iat;
        await new Promise((r) => setTimeout(r, 1100));
        expect(decode((await clientCredentialsAt(s)).json['access_token'] as string).claims.iat).toBe(first);
      },
    ],
    [
      '--clock epoch seconds (running)',
      async () => ['--fixtures', FJORD_FIXTURES, '--port', '0', '--clock', String(Y2030)],
      {},
      async (s) => {
        const iat = decode((await clientCredentialsAt(s)).json['access_token'] as string).claims
          .iat as number;
        expect(iat).toBeGreaterThanOrEqual(Y2030);
        expect(iat).toBeLessThan(Y2030 + 15);
      },
    ],
    [
      '--key PEM',
      async () => ['--fixtures', FJORD_FIXTURES, '--port', '0', '--key', pemKey],
      {},
      async (s) => {
        const jwks = await get<{ keys: { kid: string; use: string }[] }>(endpointsOf(s.base).certs);
        expect(jwks.json.keys.map((k) => [k.use, k.kid])).toEqual([
          ['sig', thumbprint],
          ['sig', expect.any(String)],
          ['enc', expect.any(String)],
        ]);
        expect(decode((await clientCredentialsAt(s)).json['access_token'] as string).header.kid).toBe(
          thumbprint,
        );
      },
    ],
    [
      '--key JWK',
      async () => ['--fixtures', FJORD_FIXTURES, '--port', '0', '--key', jwkKey],
      {},
      async (s) => {
        const jwks = await get<{ keys: { kid: string; use: string }[] }>(endpointsOf(s.base).certs);
        expect(jwks.json.keys.map((k) => [k.use, k.kid])).toEqual([
          ['sig', thumbprint],
          ['sig', expect.any(String)],
          ['enc', expect.any(String)],
        ]);
      },
    ],
    [
      '--log-level debug',
      async () => ['--fixtures', FJORD_FIXTURES, '--port', '0', '--log-level', 'debug'],
      {},
      async (s) => {
        await get(`${endpointsOf(s.base).discovery}`);
        await waitFor(() => s.stdout().includes('GET /realms/fjord/.well-known/openid-configuration 200'));
      },
    ],
    ...(['--quiet', '--log-level=warn', '--log-level=error', '--log-level=silent'] as const).map(
      (
        flag,
      ): [string, () => Promise<string[]>, Record<string, string>, (s: ServeProcess) => Promise<void>] => [
        `${flag}: no request lines`,
        async () => ['--fixtures', FJORD_FIXTURES, '--port', '0', flag],
        {},
        async (s) => expectNoRequestLines(s),
      ],
    ),
    [
      'LOG_LEVEL=silent env: no request lines',
      async () => ['--fixtures', FJORD_FIXTURES, '--port', '0'],
      { LOG_LEVEL: 'silent' },
      async (s) => expectNoRequestLines(s),
    ],
  ])('%s', async (_name, argv, env, check) => {
    if (env['PORT'] === '__PORT_ENV__') env = { ...env, PORT: String(await freePortFor('env')) };
    const s = await serve(await argv(), env);
    await check(s);
  });

  it('--seed with --key, a frozen --clock and a fixed --issuer: byte-identical tokens on every run', async () => {
    const args = [
      '--fixtures',
      FJORD_FIXTURES,
      '--port',
      '0',
      '--key',
      pemKey,
      '--seed',
      'fjord-seed',
      '--clock',
      '2030-01-01T00:00:00Z',
      '--frozen',
      '--issuer',
      'https://login.fjord.test/realms/fjord',
    ];
    const bodies: string[] = [];
    for (let run = 0; run < 2; run++) {
      const s = await serve(args);
      const local = /listening on (http:\/\/127\.0\.0\.1:\d+\/realms\/fjord)/.exec(s.ready)?.[1] as string;
      const answers = [];
      for (let i = 0; i < 2; i++) {
        const answer = await postForm(
          endpointsOf(local).token,
          { grant_type: 'client_credentials', scope: 'ledger.read' },
          { authorization: basic('ledger-sync', SECRETS['ledger-sync']) },
        );
        expect(answer.status).toBe(200);
        answers.push(answer.text);
      }
      bodies.push(answers.join('\n'));
      await s.stop();
    }
    expect(bodies[1]).toBe(bodies[0]);
    expect(bodies[0]?.split('\n')[0]).not.toBe(bodies[0]?.split('\n')[1]);
  });

  it('--seed alone makes the first jti reproducible; without it they differ', async () => {
    const jtiOf = async (extra: string[]): Promise<unknown> => {
      const s = await serve(['--fixtures', FJORD_FIXTURES, '--port', '0', ...extra]);
      const jti = decode((await clientCredentialsAt(s)).json['access_token'] as string).claims.jti;
      await s.stop();
      return jti;
    };
    expect(await jtiOf(['--seed', 'same'])).toBe(await jtiOf(['--seed', 'same']));
    expect(await jtiOf([])).not.toBe(await jtiOf([]));
  });

  it('--watch reloads the fixtures file, and keeps the last good one on a broken edit', async () => {
    const file = join(dir, 'watched.yaml');
    await copyFile(FJORD_FIXTURES, file);
    const s = await serve(['--fixtures', file, '--port', '0', '--watch']);
    expect((await clientCredentialsAt(s)).json['expires_in']).toBe(600);
    const original = await readFile(file, 'utf8');
    await writeFile(file, original.replace('accessTokenLifespan: 600', 'accessTokenLifespan: 900'));
    await waitFor(async () => (await clientCredentialsAt(s)).json['expires_in'] === (900 as unknown));
    await writeFile(file, original.replace('accessTokenLifespan: 600', 'accessTokenLifespn: 60'));
    await waitFor(() => s.stderr().includes('accessTokenLifespn'));
    expect(s.stderr()).toMatch(/watched\.yaml:\d+:\d+ unknown key "accessTokenLifespn"/);
    expect((await clientCredentialsAt(s)).json['expires_in']).toBe(900);
  });
});

const ports = new Map<string, number>();
async function freePortFor(name: string): Promise<number> {
  const port = await freePort();
  ports.set(name, port);
  return port;
}

async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The request log lines printed so far (stdout after the ready line). */
function logLines(s: ServeProcess): string[] {
  return s
    .stdout()
    .split('\n')
    .filter((l) => l.length > 0 && !l.includes('listening on') && !l.startsWith('mock-idp start page'));
}

async function expectNoRequestLines(s: ServeProcess): Promise<void> {
  await get(`${endpointsOf(s.base).discovery}`);
  await clientCredentialsAt(s);
  await new Promise((r) => setTimeout(r, 200));
  expect(s.stdout().trim().split('\n')).toEqual([s.ready, expect.stringMatching(/^mock-idp start page /)]);
}

describe('bad input: a clear message, a non-zero exit, never listening', () => {
  let badFixtures: string;
  let busyPort: number;
  // Holds a port, so serve finds it in use.
  const busy = useLocalServer((_req, res) => res.end());
  beforeAll(async () => {
    badFixtures = join(dir, 'bad.yaml');
    await writeFile(badFixtures, 'clients:\n  teller-web:\n    secrt: x\n');
    busyPort = Number(new URL(busy.url).port);
  });

  it.each<[string, () => string[], Record<string, string>, number, RegExp]>([
    [
      'a missing fixtures file',
      () => ['--fixtures', join(dir, 'absent.yaml'), '--port', '0'],
      {},
      1,
      /absent\.yaml: cannot read fixtures: no such file/,
    ],
    [
      'a broken fixtures file',
      () => ['--fixtures', badFixtures, '--port', '0'],
      {},
      1,
      /bad\.yaml:3:5 unknown key "secrt" in "clients\.teller-web"/,
    ],
    [
      'a non-numeric --port',
      () => ['--fixtures', FJORD_FIXTURES, '--port', 'abc'],
      {},
      2,
      /a port is a whole number/,
    ],
    [
      '--port out of range',
      () => ['--fixtures', FJORD_FIXTURES, '--port', '70000'],
      {},
      2,
      /a port is a whole number/,
    ],
    [
      'a non-numeric PORT env',
      () => ['--fixtures', FJORD_FIXTURES],
      { PORT: 'eighty' },
      2,
      /a port is a whole number/,
    ],
    [
      'a bad --clock',
      () => ['--fixtures', FJORD_FIXTURES, '--port', '0', '--clock', 'yesterday'],
      {},
      2,
      /ISO-8601/,
    ],
    [
      'a bad --log-level',
      () => ['--fixtures', FJORD_FIXTURES, '--port', '0', '--log-level', 'loud'],
      {},
      2,
      /debug, info, warn, error, silent/,
    ],
    [
      'a bad --issuer',
      () => ['--fixtures', FJORD_FIXTURES, '--port', '0', '--issuer', 'ftp://x.test'],
      {},
      2,
      /absolute http\(s\) URL/,
    ],
    [
      'an unknown flag',
      () => ['--fixtures', FJORD_FIXTURES, '--port', '0', '--bogus'],
      {},
      2,
      /unknown option '--bogus'/,
    ],
    [
      'a missing --key file',
      () => ['--fixtures', FJORD_FIXTURES, '--port', '0', '--key', join(dir, 'absent.pem')],
      {},
      1,
      /absent\.pem: cannot read key/,
    ],
    [
      'an EC --key on a curve other than P-256',
      () => ['--fixtures', FJORD_FIXTURES, '--port', '0', '--key', ecKey],
      {},
      1,
      /an EC key on P-256 \(prime256v1\) is needed for ES256, got the curve secp384r1/,
    ],
    [
      'a port in use',
      () => ['--fixtures', FJORD_FIXTURES, '--port', String(busyPort)],
      {},
      1,
      /cannot listen on 127\.0\.0\.1:\d+: port \d+ is already in use \(another server is there: stop it, or pick another port; --port 0 takes any free one\)/,
    ],
    ['--watch without --fixtures', () => ['--port', '0', '--watch'], {}, 2, /--watch needs --fixtures/],
  ])('%s', async (_name, args, env, code, message) => {
    const result = await runBin(args(), env);
    expect(result.code, result.stderr).toBe(code);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).not.toContain('listening on');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('signals', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    '%s closes cleanly (exit 0), even with a keep-alive connection open',
    async (signal) => {
      const s = await serve(['--fixtures', FJORD_FIXTURES, '--port', '0']);
      await get(endpointsOf(s.base).discovery, { connection: 'keep-alive' });
      const started = Date.now();
      const result = await s.stop(signal);
      expect(result.code).toBe(0);
      expect(result.stderr).toContain(`${signal}, closing`);
      expect(Date.now() - started).toBeLessThan(5000);
    },
  );
});

describe('the request log', () => {
  const LINE = /^(GET|POST) (\/\S*) (\d{3})( client=\S+)?( grant=\S+)?( user=\S+)?( error=\S+)? \d+\.\dms$/;

  it('one line per request: method path status client grant user duration', async () => {
    const s = await serve(['--fixtures', FJORD_FIXTURES, '--port', '0']);
    const e = endpointsOf(s.base);
    await clientCredentialsAt(s);
    await postForm(
      e.token,
      { grant_type: 'client_credentials', scope: 'nope' },
      { authorization: basic('ledger-sync', SECRETS['ledger-sync']) },
    );
    await get(e.discovery);
    await fetch(
      `${e.auth}?response_type=code&client_id=teller-web&redirect_uri=${encodeURIComponent('http://app.fjord.test/cb')}&state=secret-state&login_hint=ingrid`,
      { redirect: 'manual' },
    );
    await waitFor(() => logLines(s).length >= 4);
    const lines = logLines(s);
    for (const line of lines) expect(line).toMatch(LINE);
    expect(lines[0]).toMatch(
      /^POST \/realms\/fjord\/protocol\/openid-connect\/token 200 client=ledger-sync grant=client_credentials \d+\.\dms$/,
    );
    expect(lines[1]).toMatch(
      /^POST \/realms\/fjord\/protocol\/openid-connect\/token 400 client=ledger-sync grant=client_credentials error=invalid_scope \d+\.\dms$/,
    );
    expect(lines[2]).toMatch(/^GET \/realms\/fjord\/\.well-known\/openid-configuration 200 \d+\.\dms$/);
    expect(lines[3]).toMatch(
      /^GET \/realms\/fjord\/protocol\/openid-connect\/auth 302 client=teller-web user=ingrid \d+\.\dms$/,
    );
  });

  it('never logs secrets, assertions, codes, state or whole tokens, and cannot be forged by request text', async () => {
    const s = await serve(['--fixtures', FJORD_FIXTURES, '--port', '0']);
    const idp = idpAt(s.base);
    const e = idp.endpoints;
    const secrets: string[] = [
      SECRETS['ledger-sync'],
      SECRETS['teller-web'],
      SECRETS['ledger-api'],
      basic('ledger-sync', SECRETS['ledger-sync']).slice(6),
    ];
    const cc = await clientCredentialsAt(s);
    const post = await postForm(e.token, {
      grant_type: 'client_credentials',
      client_id: 'ledger-sync',
      client_secret: SECRETS['ledger-sync'],
    });
    const assertion = await clientAssertion(idp);
    await postForm(e.token, {
      grant_type: 'client_credentials',
      client_assertion_type: ASSERTION_TYPE,
      client_assertion: assertion,
    });
    const auth = await fetch(
      `${e.auth}?response_type=code&client_id=teller-web&redirect_uri=${encodeURIComponent('http://app.fjord.test/cb')}&state=state-XYZ&nonce=nonce-XYZ&login_hint=ingrid&scope=openid`,
      { redirect: 'manual' },
    );
    const code = new URL(auth.headers.get('location') as string).searchParams.get('code') as string;
    const tokens = await postForm<Record<string, string>>(
      e.token,
      { grant_type: 'authorization_code', code, redirect_uri: 'http://app.fjord.test/cb' },
      { authorization: basic('teller-web', SECRETS['teller-web']) },
    );
    await postForm(
      e.introspect,
      { token: tokens.json['access_token'] as string },
      { authorization: basic('ledger-api', SECRETS['ledger-api']) },
    );
    await get(e.userinfo, { authorization: `Bearer ${tokens.json['access_token']}` });
    await postForm(
      e.token,
      { grant_type: 'refresh_token', refresh_token: tokens.json['refresh_token'] as string },
      { authorization: basic('teller-web', SECRETS['teller-web']) },
    );
    await get(`${e.logout}?id_token_hint=${tokens.json['id_token']}`);
    await fetch(`${e.auth}?client_id=${encodeURIComponent('evil\nPOST /forged 200')}&redirect_uri=x`);
    await postForm(e.token, { grant_type: 'forged\nGET /forged 200 1.0ms' });
    await waitFor(() => logLines(s).length >= 11);
    const log = s.stdout();
    const sensitive = [
      ...secrets,
      assertion.split('.')[2] as string,
      code,
      'state-XYZ',
      'nonce-XYZ',
      ...[
        cc.json['access_token'],
        post.json['access_token'],
        tokens.json['access_token'],
        tokens.json['refresh_token'],
        tokens.json['id_token'],
      ].map((t) => (t as string).split('.')[2] as string),
    ];
    for (const value of sensitive) expect(log).not.toContain(value);
    expect(log).not.toContain('forged');
    for (const line of logLines(s)) expect(line).toMatch(LINE);
  });
});
