// What a suite moved from Keycloak 26 to mock-idp checks and first got a different answer for: the
// client_credentials grant refused to a public client or one without service accounts (Keycloak's 401 and
// words).
import { describe, expect, it } from 'vitest';
import type { KeycloakRealmInput } from '../../src/fixtures/keycloak/schema.js';
import { serviceAccessToken } from '../helpers/admin.js';
import { basic, postForm } from '../helpers/http.js';
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
