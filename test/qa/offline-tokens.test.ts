// Tokens minted offline (`mock-idp token --key`, the real binary) are accepted by a server started with
// the same key: active at introspection and userinfo until exp, unless revoked or their session ended there.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic } from '../helpers/http.js';
import { useIdp, Y2030 } from '../helpers/server.js';
import { DEFAULT_FIXTURES } from '../helpers/bundled.js';
import { runBin } from '../helpers/cli.js';
import { tempDir, writeTestKey } from '../helpers/files.js';

const PAYMENTS_API = basic('payments-api', 'rs-secret');
const WEB_APP = basic('web-app', 'web-secret');

let key: string;
let remove: () => void;

beforeAll(() => {
  const temp = tempDir();
  remove = temp.remove;
  key = writeTestKey(temp.dir);
});
afterAll(() => {
  remove?.();
});
const idp = useIdp(() => ({
  fixtures: DEFAULT_FIXTURES,
  keyFile: key,
  clock: Y2030,
  frozen: true,
  seed: 'offline',
}));

/** `mock-idp token --key KEY` offline, for this server's issuer and clock. */
async function mintOffline(args: string[]): Promise<string> {
  const { code, stdout, stderr } = await runBin([
    'token',
    '--key',
    key,
    '--fixtures',
    DEFAULT_FIXTURES,
    '--clock',
    '2030-01-01T00:00:00Z',
    '--issuer',
    idp.issuer,
    ...args,
  ]);
  expect(code, stderr).toBe(0);
  return stdout.trim();
}

async function introspect(token: string): Promise<Record<string, unknown>> {
  const response = await fetch(idp.endpoints.introspect, {
    method: 'POST',
    headers: { authorization: PAYMENTS_API, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token }),
  });
  return (await response.json()) as Record<string, unknown>;
}

describe('offline tokens at a server with the same key', () => {
  it('an access token is active at introspection and userinfo, though the server never saw its session', async () => {
    const token = await mintOffline(['--client', 'web-app', '--user', 'alice', '--scope', 'openid profile']);
    expect(await introspect(token)).toMatchObject({ active: true, username: 'alice', client_id: 'web-app' });
    const userinfo = await fetch(idp.endpoints.userinfo, { headers: { authorization: `Bearer ${token}` } });
    expect(userinfo.status).toBe(200);
    expect(await userinfo.json()).toMatchObject({ preferred_username: 'alice' });
  });

  it('is inactive after its exp on the server clock', async () => {
    const token = await mintOffline(['--client', 'web-app', '--user', 'alice', '--expires-in', '60']);
    expect((await introspect(token))['active']).toBe(true);
    idp.clock.advance(61);
    try {
      expect(await introspect(token)).toEqual({ active: false });
    } finally {
      idp.clock.set({ now: Y2030, frozen: true });
    }
  });

  it('is inactive once revoked there', async () => {
    const token = await mintOffline(['--client', 'web-app', '--user', 'alice']);
    const revoke = await fetch(`${idp.endpoints.revoke}`, {
      method: 'POST',
      headers: { authorization: WEB_APP, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token }),
    });
    expect(revoke.status).toBe(200);
    expect(await introspect(token)).toEqual({ active: false });
  });

  it('a token of a session that was logged out there is inactive', async () => {
    const token = await mintOffline(['--client', 'web-app', '--user', 'alice', '--seed', 'offline']);
    const refresh = await mintOffline([
      '--type',
      'refresh',
      '--client',
      'web-app',
      '--user',
      'alice',
      '--seed',
      'offline',
    ]);
    // Same seed, so the same realm secret (refresh tokens are HS256) and the same session id in both.
    // The refresh token logs that session out at the server, which had never held it.
    const logout = await fetch(idp.endpoints.logout, {
      method: 'POST',
      headers: { authorization: WEB_APP, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ refresh_token: refresh }),
    });
    expect(logout.status, await logout.text()).toBe(204);
    expect(await introspect(token)).toEqual({ active: false });
  });
});
