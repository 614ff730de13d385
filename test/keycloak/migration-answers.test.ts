// What a suite moved from Keycloak 26 to mock-idp checks and first got a different answer for: the
// client_credentials grant refused to a public client or one without service accounts (Keycloak's 401 and
// words), and RP-initiated logout to a post-logout redirect URI that a client's `post.logout.redirect.uris`
// registers with a trailing `*` (a realm file's client and one made through the admin API).
import { describe, expect, it } from 'vitest';
import type { KeycloakRealmInput } from '../../src/fixtures/keycloak/schema.js';
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
      attributes: { 'post.logout.redirect.uris': 'http://localhost:4000/*##http://app.test/bye' },
    },
  ],
};

const idp = useIdp({ fixtures: REALM });
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
