// What a suite moved from Keycloak 26 to mock-idp checks and first got a different answer for: the
// client_credentials grant refused to a public client or one without service accounts (Keycloak's 401 and
// words), and RP-initiated logout to a post-logout redirect URI that a client's `post.logout.redirect.uris`
// registers with a trailing `*` (a realm file's client and one made through the admin API); and refusals in
// Keycloak's exact words where the mock adds its own for YAML realms (PKCE, token exchange, userinfo,
// introspection).
import { describe, expect, it } from 'vitest';
import { loadFixtures, type KeycloakRealmInput } from '../../src/index.js';
import { adminClient, serviceAccessToken } from '../helpers/admin.js';
import { basic, postForm } from '../helpers/http.js';
import { verifyToken } from '../helpers/jwt.js';
import { useIdp } from '../helpers/server.js';

const REALM: KeycloakRealmInput = {
  realm: 'dock',
  users: [{ username: 'kim', enabled: true, credentials: [{ type: 'password', value: 'kim-pw' }] }],
  clients: [
    { clientId: 'worker', secret: 'worker-secret', serviceAccountsEnabled: true },
    { clientId: 'kiosk', publicClient: true, serviceAccountsEnabled: true, directAccessGrantsEnabled: true },
    {
      clientId: 'portal',
      secret: 'portal-secret',
      directAccessGrantsEnabled: true,
      redirectUris: ['http://localhost:3000/cb'],
      attributes: {
        'post.logout.redirect.uris': 'http://localhost:4000/*##http://app.test/bye',
        'standard.token.exchange.enabled': 'true',
      },
    },
    { clientId: 'orders-api', secret: 'api-secret', bearerOnly: true, serviceAccountsEnabled: true },
    {
      clientId: 'pkce-spa',
      publicClient: true,
      redirectUris: ['http://localhost:3000/cb'],
      attributes: { 'pkce.code.challenge.method': 'S256' },
    },
  ],
};

const idp = useIdp({ fixtures: REALM });

it('the package entry types a realm representation, and loadFixtures takes one', async () => {
  const loaded = await loadFixtures(REALM);
  expect(Object.keys(loaded.clients ?? {})).toEqual(expect.arrayContaining(['worker', 'kiosk', 'portal']));
});
const tokenUrl = () => `${idp.issuer}/protocol/openid-connect/token`;

describe('client_credentials refused as Keycloak 26 refuses it', () => {
  it('gives the service account of a confidential client with serviceAccountsEnabled a token', async () => {
    const claims = await serviceAccessToken(idp, 'dock', 'worker', 'worker-secret');
    expect(claims['preferred_username']).toBe('service-account-worker');
    expect(claims['client_id']).toBe('worker');
  });

  it.each([
    {
      who: 'a public client (with serviceAccountsEnabled)',
      body: { grant_type: 'client_credentials', client_id: 'kiosk' },
      authorization: undefined,
      description: 'Public client not allowed to retrieve service account',
    },
    {
      who: 'a confidential client without serviceAccountsEnabled',
      body: { grant_type: 'client_credentials' },
      authorization: basic('portal', 'portal-secret'),
      description: 'Client not enabled to retrieve service account',
    },
  ])('$who: 401 unauthorized_client "$description"', async ({ body, authorization, description }) => {
    const answer = await postForm(tokenUrl(), body, authorization !== undefined ? { authorization } : {});
    expect(answer.status).toBe(401);
    expect(answer.json).toEqual({ error: 'unauthorized_client', error_description: description });
  });
});

describe('a bearer-only client, as Keycloak 26 refuses it once it has authenticated', () => {
  const api = basic('orders-api', 'api-secret');
  it.each([
    { endpoint: 'token', path: 'token', body: { grant_type: 'client_credentials' } },
    {
      endpoint: 'token (password grant)',
      path: 'token',
      body: { grant_type: 'password', username: 'kim', password: 'kim-pw' },
    },
    { endpoint: 'revocation', path: 'revoke', body: { token: 'anything' } },
    { endpoint: 'CIBA', path: 'ext/ciba/auth', body: { scope: 'openid', login_hint: 'kim' } },
  ])('$endpoint: 400 invalid_client "Bearer-only not allowed"', async ({ path, body }) => {
    const answer = await postForm(`${idp.issuer}/protocol/openid-connect/${path}`, body, {
      authorization: api,
    });
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({ error: 'invalid_client', error_description: 'Bearer-only not allowed' });
  });

  it('with a wrong secret: 401, the authentication refused first', async () => {
    const answer = await postForm(
      tokenUrl(),
      { grant_type: 'client_credentials' },
      { authorization: basic('orders-api', 'wrong') },
    );
    expect(answer.status).toBe(401);
    expect(answer.json).toMatchObject({ error: 'unauthorized_client' });
  });
});

describe('RP-initiated logout to post.logout.redirect.uris with a wildcard', () => {
  /** An ID token of kim at `clientId` (password grant), verified with jose. */
  async function idTokenAt(clientId: string, secret: string): Promise<string> {
    const answer = await postForm(
      tokenUrl(),
      { grant_type: 'password', username: 'kim', password: 'kim-pw', scope: 'openid' },
      { authorization: basic(clientId, secret) },
    );
    expect(answer.status, answer.text).toBe(200);
    const idToken = answer.json['id_token'] as string;
    await verifyToken(idp, idToken, clientId);
    return idToken;
  }

  async function logout(idToken: string, uri: string): Promise<Response> {
    const query = new URLSearchParams({ id_token_hint: idToken, post_logout_redirect_uri: uri, state: 'st' });
    return fetch(`${idp.issuer}/protocol/openid-connect/logout?${query}`, { redirect: 'manual' });
  }

  it.each([
    { uri: 'http://localhost:4000/bye', status: 302 },
    { uri: 'http://localhost:4000/', status: 302 },
    { uri: 'http://localhost:4000', status: 302 },
    { uri: 'http://app.test/bye', status: 302 },
    { uri: 'http://localhost:3000/cb', status: 302 },
    { uri: 'http://localhost:4001/bye', status: 400 },
    { uri: 'http://app.test/bye/more', status: 400 },
    { uri: 'http://localhost:4000@evil.test/', status: 400 },
  ])('a realm file client: $uri is $status', async ({ uri, status }) => {
    const answer = await logout(await idTokenAt('portal', 'portal-secret'), uri);
    expect(answer.status).toBe(status);
    if (status === 302) expect(answer.headers.get('location')).toBe(`${uri}?state=st`);
  });

  it('a client made through the admin API with the attribute', async () => {
    const kc = await adminClient(idp, 'dock');
    await kc.clients.create({
      clientId: 'made',
      secret: 'made-secret',
      publicClient: false,
      directAccessGrantsEnabled: true,
      redirectUris: ['http://localhost:3000/cb'],
      attributes: { 'post.logout.redirect.uris': 'http://localhost:5000/*' },
    });
    const answer = await logout(await idTokenAt('made', 'made-secret'), 'http://localhost:5000/signed-out');
    expect(answer.status).toBe(302);
    expect(answer.headers.get('location')).toBe('http://localhost:5000/signed-out?state=st');
  });
});

describe("Keycloak's words, not the mock's longer ones, in a Keycloak realm", () => {
  /** A password-grant access token of kim at portal. */
  async function portalAccessToken(): Promise<string> {
    const answer = await postForm(
      tokenUrl(),
      { grant_type: 'password', username: 'kim', password: 'kim-pw' },
      { authorization: basic('portal', 'portal-secret') },
    );
    const token = answer.json['access_token'] as string;
    await verifyToken(idp, token);
    return token;
  }

  it.each([
    {
      what: 'an authorize request without PKCE from a client that requires S256',
      send: async () => {
        const query = new URLSearchParams({
          client_id: 'pkce-spa',
          redirect_uri: 'http://localhost:3000/cb',
          response_type: 'code',
          scope: 'openid',
          state: 'st',
        });
        const answer = await fetch(`${idp.issuer}/protocol/openid-connect/auth?${query}`, {
          redirect: 'manual',
        });
        const back = new URL(answer.headers.get('location') ?? '').searchParams;
        return {
          status: answer.status,
          body: { error: back.get('error'), error_description: back.get('error_description') },
        };
      },
      status: 302,
      error: 'invalid_request',
      description: 'Missing parameter: code_challenge_method',
    },
    {
      what: 'a token exchange to an audience the new token would not have',
      send: async () => {
        const answer = await postForm(
          tokenUrl(),
          {
            grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
            subject_token: await portalAccessToken(),
            subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
            audience: 'kiosk',
          },
          { authorization: basic('portal', 'portal-secret') },
        );
        return { status: answer.status, body: answer.json };
      },
      status: 400,
      error: 'invalid_request',
      description: 'Requested audience not available: kiosk',
    },
    {
      what: 'userinfo with a token that is not one',
      send: async () => {
        const answer = await fetch(`${idp.issuer}/protocol/openid-connect/userinfo`, {
          headers: { authorization: 'Bearer not-a-token' },
        });
        expect(answer.headers.get('www-authenticate')).toContain(
          'error_description="Token verification failed"',
        );
        return { status: answer.status, body: (await answer.json()) as Record<string, unknown> };
      },
      status: 401,
      error: 'invalid_token',
      description: 'Token verification failed',
    },
    {
      what: 'introspection by a public client',
      send: async () => {
        const answer = await postForm(`${idp.issuer}/protocol/openid-connect/token/introspect`, {
          client_id: 'kiosk',
          token: await portalAccessToken(),
        });
        return { status: answer.status, body: answer.json };
      },
      status: 403,
      error: 'invalid_request',
      description: 'Client not allowed.',
    },
  ])('$what: $status $error "$description"', async ({ send, status, error, description }) => {
    const { status: got, body } = await send();
    expect(got).toBe(status);
    expect(body).toEqual({ error, error_description: description });
  });
});
