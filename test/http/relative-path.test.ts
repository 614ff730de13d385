// httpRelativePath (`--http-relative-path`, KC_HTTP_RELATIVE_PATH): everything served moves under the path,
// and every URL the server hands out follows it.
import * as client from 'openid-client';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { normaliseRelativePath } from '../../src/realm/paths.js';
import { startMockIdp } from '../../src/server.js';
import { adminClient } from '../helpers/admin.js';
import { clientCredentials, introspect, loginTokens, SECRETS } from '../helpers/flows.js';
import { get, postForm } from '../helpers/http.js';
import { verifyToken } from '../helpers/jwt.js';
import { FJORD_FIXTURES, useIdp } from '../helpers/server.js';

const idp = useIdp({ httpRelativePath: 'auth/' });
const insecure = { execute: [client.allowInsecureRequests] };

describe('httpRelativePath /auth', () => {
  it('derives the issuer under the path', () => {
    expect(idp.issuer).toBe(`${idp.url}/auth/realms/fjord`);
  });

  it('lists every endpoint of discovery under the path, and each answers there', async () => {
    const { status, json } = await get(`${idp.url}/auth/realms/fjord/.well-known/openid-configuration`);
    expect(status).toBe(200);
    expect(json['issuer']).toBe(idp.issuer);
    const urls = Object.entries(json).filter(
      ([k]) => k.endsWith('_endpoint') || k.endsWith('_uri') || k.endsWith('_iframe'),
    );
    expect(urls.length).toBeGreaterThanOrEqual(10);
    for (const [name, url] of urls) {
      expect(url, name).toMatch(new RegExp(`^${idp.url}/auth/realms/fjord/`));
      // Every one is served there: nothing answers the server's catch-all 404.
      const response = await fetch(url as string, { redirect: 'manual' });
      const text = await response.text();
      expect(text, `${name} ${String(url)}`).not.toContain('No endpoint');
      expect(response.status, `${name} ${String(url)}: ${text}`).not.toBe(404);
    }
  });

  it.each([
    ['/auth/health', 200, '{"status":"UP"}'],
    ['/auth/realms/fjord/protocol/openid-connect/certs', 200, '"keys"'],
    ['/auth/realms/fjord/mock/clock', 200, '"now"'],
    ['/auth/realms/fjord/mock/ui', 200, '<html'],
    ['/health', 404, 'No endpoint GET /health'],
    ['/realms/fjord/.well-known/openid-configuration', 404, 'No endpoint GET /realms/fjord'],
    ['/auth/realms/other/.well-known/openid-configuration', 404, 'This server serves realm \\"fjord\\"'],
  ])('GET %s answers %i', async (path, status, contains) => {
    const response = await fetch(`${idp.url}${path}`);
    expect(response.status).toBe(status);
    expect(await response.text()).toContain(contains);
  });

  it('posts the login page back under the path', async () => {
    const params = new URLSearchParams({
      response_type: 'code',
      client_id: 'teller-web',
      redirect_uri: 'http://app.fjord.test/cb',
      scope: 'openid',
    });
    const page = await (await fetch(`${idp.issuer}/protocol/openid-connect/auth?${params}`)).text();
    expect(page).toContain(`action="${idp.issuer}/protocol/openid-connect/auth"`);
  });

  it('issues tokens naming the issuer under the path, which introspection takes as its own', async () => {
    const t = await loginTokens(idp, { scope: 'openid' });
    const access = await verifyToken(idp, t.access_token);
    expect(access.claims.iss).toBe(`${idp.url}/auth/realms/fjord`);
    expect(decodeJwt(t.id_token as string).iss).toBe(idp.issuer);
    const { json } = await introspect(idp, t.access_token);
    expect(json['active']).toBe(true);
  });

  it('runs client_credentials through the library handle', async () => {
    const t = await idp.token({ client: 'ledger-sync', scope: 'ledger.read' });
    expect(decodeJwt(t.access_token).iss).toBe(idp.issuer);
    const { status, json } = await clientCredentials(idp, 'ledger.read');
    expect(status).toBe(200);
    expect(json.scope).toBe('ledger.read');
  });

  it('serves openid-client: discovery and client_credentials under /auth', async () => {
    const config = await client.discovery(
      new URL(`${idp.url}/auth/realms/fjord`),
      'ledger-sync',
      undefined,
      client.ClientSecretBasic(SECRETS['ledger-sync']),
      insecure,
    );
    expect(config.serverMetadata().token_endpoint).toBe(
      `${idp.url}/auth/realms/fjord/protocol/openid-connect/token`,
    );
    const tokens = await client.clientCredentialsGrant(config, { scope: 'ledger.read' });
    expect(decodeJwt(tokens.access_token).iss).toBe(`${idp.url}/auth/realms/fjord`);
  });
});

describe('the admin API under httpRelativePath /auth', () => {
  const adminToken = async (): Promise<string> => {
    const { status, json } = await postForm(`${idp.url}/auth/realms/master/protocol/openid-connect/token`, {
      grant_type: 'password',
      client_id: 'admin-cli',
      username: 'admin',
      password: 'admin',
    });
    expect(status).toBe(200);
    return String(json['access_token']);
  };

  it.each([
    ['/auth/admin/realms', 200, '"realm":"master"'],
    ['/admin/realms', 404, 'No endpoint GET /admin/realms'],
  ])('GET %s with an admin token from /auth/realms/master answers %i', async (path, status, contains) => {
    const answer = await get(`${idp.url}${path}`, { authorization: `Bearer ${await adminToken()}` });
    expect(answer.status).toBe(status);
    expect(answer.text).toContain(contains);
  });

  it('serves @keycloak/keycloak-admin-client given the base URL under /auth', async () => {
    const kc = await adminClient({ url: `${idp.url}/auth` });
    expect((await kc.realms.find()).map((r) => r.realm)).toEqual(['fjord', 'master']);
    expect(decodeJwt(kc.accessToken ?? '').iss).toBe(`${idp.url}/auth/realms/master`);
  });
});

describe('normaliseRelativePath', () => {
  it.each([
    ['/auth', '/auth'],
    ['auth', '/auth'],
    ['/auth/', '/auth'],
    ['//auth//', '/auth'],
    ['/kc/auth', '/kc/auth'],
    ['/', ''],
    ['', ''],
  ])('%j → %j', (value, normalised) => {
    expect(normaliseRelativePath(value)).toBe(normalised);
  });

  it.each([
    ['/a b', '"/a b" is not a URL path: segment "a b"; give one like /auth'],
    ['/auth?x=1', '"/auth?x=1" is not a URL path: segment "auth?x=1"; give one like /auth'],
    ['/a//b', '"/a//b" is not a URL path: an empty segment (//); give one like /auth'],
    ['/../x', '"/../x" is not a URL path: segment ".."; give one like /auth'],
    ['/%2F', '"/%2F" is not a URL path: segment "%2F"; give one like /auth'],
  ])('refuses %j', (value, message) => {
    expect(() => normaliseRelativePath(value)).toThrow(message);
  });

  it('startMockIdp refuses a bad path before it listens', async () => {
    await expect(startMockIdp({ fixtures: FJORD_FIXTURES, httpRelativePath: '/a b' })).rejects.toThrow(
      '"/a b" is not a URL path: segment "a b"; give one like /auth',
    );
  });

  it.each(['/', ''])('startMockIdp with %j serves at the root, as without one', async (path) => {
    const plain = await startMockIdp({ fixtures: FJORD_FIXTURES, httpRelativePath: path });
    try {
      expect(plain.issuer).toBe(`${plain.url}/realms/fjord`);
      expect((await fetch(`${plain.url}/health`)).status).toBe(200);
    } finally {
      await plain.close();
    }
  });
});
