// Two separate CLI servers with the same frozen clock, key, seed and issuer answer the same requests byte for byte.
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  authorize,
  BATCH_JOB,
  DEFAULT_FIXTURES,
  exchangeCode,
  PAYMENTS_API,
  WEB_APP,
} from '../helpers/bundled.js';
import { type ServeProcess, spawnServer } from '../helpers/cli.js';
import { tempDir, writeTestKey } from '../helpers/files.js';
import { call, postForm } from '../helpers/http.js';
import { endpointsOf } from '../helpers/server.js';

const ISSUER = 'http://idp.test/realms/mock';

/** The same request sequence against one server; every answer as status + body text. */
async function sequence(base: string): Promise<string[]> {
  const out: string[] = [];
  const record = (label: string, status: number, text: string): void => {
    out.push(`${label} ${status} ${text}`);
  };
  const cc = await postForm(endpointsOf(base).token, { grant_type: 'client_credentials' }, BATCH_JOB);
  record('client_credentials', cc.status, cc.text);

  const { location, code } = await authorize(
    base,
    'alice',
    'openid profile nnin_altsub idp_proof offline_access',
  );
  record('authorize', 302, location);
  const tokens = await exchangeCode(base, code);
  record('authorization_code', tokens.status, tokens.text);

  const refreshed = await postForm(
    endpointsOf(base).token,
    { grant_type: 'refresh_token', refresh_token: String(tokens.json['refresh_token']) },
    WEB_APP,
  );
  record('refresh_token', refreshed.status, refreshed.text);

  const introspected = await postForm(
    endpointsOf(base).introspect,
    { token: String(refreshed.json['access_token']) },
    PAYMENTS_API,
  );
  record('introspect', introspected.status, introspected.text);

  const minted = await call('POST', `${base}/mock/tokens`, {
    type: 'refresh',
    client: 'web-app',
    user: 'bob',
  });
  record('mint', minted.status, minted.text);
  return out;
}

function serverArgs(key: string, seed: string | undefined): string[] {
  return [
    '--clock',
    '2030-01-01T00:00:00Z',
    '--frozen',
    '--key',
    key,
    ...(seed !== undefined ? ['--seed', seed] : []),
    '--fixtures',
    DEFAULT_FIXTURES,
    '--issuer',
    ISSUER,
    '--quiet',
  ];
}

describe('determinism: same clock, key, seed and issuer', () => {
  const tmp = tempDir();
  let key: string;
  beforeAll(() => {
    key = writeTestKey(tmp.dir);
  });
  afterAll(() => tmp.remove());

  it('two server processes give byte-identical answers to the same request sequence', async () => {
    const servers: ServeProcess[] = [];
    try {
      servers.push(await spawnServer(serverArgs(key, 's')));
      servers.push(await spawnServer(serverArgs(key, 's')));
      const [a, b] = servers as [ServeProcess, ServeProcess];
      expect(a.base).not.toBe(b.base);
      expect(a.stdout()).toContain(`(issuer ${ISSUER})`);
      const first = await sequence(a.base);
      const second = await sequence(b.base);
      expect(first.map((l) => l.split(' ', 2).join(' '))).toEqual([
        'client_credentials 200',
        'authorize 302',
        'authorization_code 200',
        'refresh_token 200',
        'introspect 200',
        'mint 200',
      ]);
      expect(second).toEqual(first);
      expect(first.join('\n')).toContain(ISSUER);
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
    }
  });

  it('without a seed, jti and session ids differ between processes', async () => {
    const servers: ServeProcess[] = [];
    try {
      servers.push(await spawnServer(serverArgs(key, undefined)));
      servers.push(await spawnServer(serverArgs(key, undefined)));
      const claims = await Promise.all(
        servers.map(async (s) => {
          const answer = await postForm(
            endpointsOf(s.base).token,
            { grant_type: 'client_credentials' },
            BATCH_JOB,
          );
          return decodeJwt(String(answer.json['access_token']));
        }),
      );
      const [x, y] = claims as [Record<string, unknown>, Record<string, unknown>];
      expect(x['iat']).toBe(y['iat']);
      expect(x['jti']).not.toBe(y['jti']);
      expect(x['sid']).not.toBe(y['sid']);
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
    }
  });
});
