// Keycloak 26's answers where a suite written against it checks them: the email in place of the username,
// a client without direct access grants, a refresh after logout, and client_credentials without a refresh
// token unless the client turned one on.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { adminClient } from '../helpers/admin.js';
import { basic, postForm } from '../helpers/http.js';
import { useIdp } from '../helpers/server.js';

const ACME = fileURLToPath(new URL('../fixtures-data/keycloak/acme-realm.json', import.meta.url));
const idp = useIdp({ fixtures: ACME });
const tokenUrl = (): string => `${idp.url}/realms/acme/protocol/openid-connect/token`;

const password = (clientId: string, secret: string, username: string, pw: string) =>
  postForm(tokenUrl(), { grant_type: 'password', username, password: pw }, basic(clientId, secret));

describe('the password grant', () => {
  it.each([
    ['the username', 'alice', 'alice-pw', 200, 'alice'],
    ['the username in another case', 'ALICE', 'alice-pw', 200, 'alice'],
    ['the email', 'Alice@Acme.test', 'alice-pw', 200, 'alice'],
    ['the email in lower case', 'alice@acme.test', 'alice-pw', 200, 'alice'],
    ['the email with a wrong password', 'alice@acme.test', 'wrong', 401, undefined],
  ])('signs in with %s (%s / %s): answers %i', async (_what, username, pw, status, who) => {
    const answer = await password('web-app', 'web-secret', username, pw);
    expect(answer.status).toBe(status);
    if (who === undefined)
      expect(answer.json).toEqual({ error: 'invalid_grant', error_description: 'Invalid user credentials' });
    else {
      const claims = JSON.parse(
        Buffer.from(String(answer.json['access_token']).split('.')[1] ?? '', 'base64url').toString(),
      ) as Record<string, unknown>;
      expect(claims['preferred_username']).toBe(who);
    }
  });

  it("a client without direct access grants: 400 unauthorized_client in Keycloak's words", async () => {
    const answer = await password('billing-job', 'job-secret', 'alice', 'alice-pw');
    expect([answer.status, answer.json]).toEqual([
      400,
      { error: 'unauthorized_client', error_description: 'Client not allowed for direct access grants' },
    ]);
  });
});

describe('the refresh_token grant', () => {
  it('after a logout: 400 invalid_grant "Session not active"', async () => {
    const tokens = await password('web-app', 'web-secret', 'alice', 'alice-pw');
    const refresh = String(tokens.json['refresh_token']);
    const out = await postForm(
      `${idp.url}/realms/acme/protocol/openid-connect/logout`,
      { refresh_token: refresh },
      basic('web-app', 'web-secret'),
    );
    expect(out.status).toBe(204);
    const answer = await postForm(
      tokenUrl(),
      { grant_type: 'refresh_token', refresh_token: refresh },
      basic('web-app', 'web-secret'),
    );
    expect([answer.status, answer.json]).toEqual([
      400,
      { error: 'invalid_grant', error_description: 'Session not active' },
    ]);
  });
});

describe('client_credentials', () => {
  const serviceTokens = () =>
    postForm(tokenUrl(), { grant_type: 'client_credentials' }, basic('billing-job', 'job-secret'));

  it('answers no refresh token by default, and one once the client turns client_credentials.use_refresh_token on', async () => {
    const before = await serviceTokens();
    expect(before.status).toBe(200);
    expect(before.json).not.toHaveProperty('refresh_token');
    expect(before.json['refresh_expires_in']).toBe(0);

    const kc = await adminClient(idp, 'acme');
    const [job] = await kc.clients.find({ clientId: 'billing-job' });
    await kc.clients.update(
      { id: job?.id as string },
      { attributes: { ...job?.attributes, 'client_credentials.use_refresh_token': 'true' } },
    );
    const after = await serviceTokens();
    expect(after.json['refresh_token']).toEqual(expect.any(String));
    const refreshed = await postForm(
      tokenUrl(),
      { grant_type: 'refresh_token', refresh_token: String(after.json['refresh_token']) },
      basic('billing-job', 'job-secret'),
    );
    expect(refreshed.status).toBe(200);
  });
});
