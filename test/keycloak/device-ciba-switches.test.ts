// A Keycloak realm JSON's client switches for the device flow, CIBA and standard token exchange (the
// attributes oauth2.device.authorization.grant.enabled, oidc.ciba.grant.enabled and
// standard.token.exchange.enabled) become the client's grants.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ACCESS_TOKEN_TYPE, CIBA, DEVICE_CODE, TOKEN_EXCHANGE } from '../helpers/grants.js';
import { tempDir } from '../helpers/files.js';
import { basic, call, postForm } from '../helpers/http.js';
import { useIdp } from '../helpers/server.js';

const dir = tempDir();
afterAll(() => dir.remove());
const file = join(dir.dir, 'tv-realm.json');
writeFileSync(
  file,
  JSON.stringify({
    realm: 'tv',
    enabled: true,
    users: [
      { username: 'kari', enabled: true, firstName: 'Kari', lastName: 'Nordmann' },
      { username: 'lars', enabled: false },
    ],
    clients: [
      {
        clientId: 'tv',
        publicClient: true,
        standardFlowEnabled: false,
        attributes: { 'oauth2.device.authorization.grant.enabled': 'true' },
      },
      {
        clientId: 'desk',
        secret: 'desk-secret',
        standardFlowEnabled: false,
        attributes: { 'oidc.ciba.grant.enabled': 'true' },
      },
      {
        clientId: 'exchanger',
        secret: 'exchanger-secret',
        standardFlowEnabled: false,
        serviceAccountsEnabled: true,
        attributes: { 'standard.token.exchange.enabled': 'true' },
      },
      {
        clientId: 'plain',
        secret: 'plain-secret',
        standardFlowEnabled: false,
        attributes: { 'standard.token.exchange.enabled': 'false' },
      },
    ],
  }),
);

const idp = useIdp({ fixtures: file });

describe('Keycloak client switches for the device flow, CIBA and token exchange', () => {
  it('become grants: each client gets only its own', () => {
    const grants = (id: string): string[] | undefined => idp.provider.realm.clients.get(id)?.grants;
    expect(grants('tv')).toEqual([DEVICE_CODE]);
    expect(grants('desk')).toEqual([CIBA]);
    expect(grants('exchanger')).toEqual(['client_credentials', TOKEN_EXCHANGE]);
    expect(grants('plain')).toEqual([]);
  });

  it('the token exchange works for the client that switched it on', async () => {
    const EXCHANGER = basic('exchanger', 'exchanger-secret');
    const own = await postForm(idp.endpoints.token, { grant_type: 'client_credentials' }, EXCHANGER);
    expect(own.status, own.text).toBe(200);
    const exchange = (authorization: string) =>
      postForm(
        idp.endpoints.token,
        {
          grant_type: TOKEN_EXCHANGE,
          subject_token: String(own.json['access_token']),
          subject_token_type: ACCESS_TOKEN_TYPE,
        },
        authorization,
      );
    const exchanged = await exchange(EXCHANGER);
    expect(exchanged.status, exchanged.text).toBe(200);
    expect(exchanged.json['issued_token_type']).toBe(ACCESS_TOKEN_TYPE);
    const refused = await exchange(basic('plain', 'plain-secret'));
    expect(refused.json).toEqual({
      error: 'unauthorized_client',
      error_description: 'Client "plain" is not allowed the token exchange grant',
    });
  });

  it('the device flow and CIBA work for them', async () => {
    const device = await postForm(`${idp.issuer}/protocol/openid-connect/auth/device`, { client_id: 'tv' });
    expect(device.status, device.text).toBe(200);
    await call('POST', `${idp.issuer}/mock/device`, {
      user_code: device.json['user_code'],
      user: 'kari',
      decision: 'approve',
    });
    const tokens = await postForm(idp.endpoints.token, {
      grant_type: DEVICE_CODE,
      client_id: 'tv',
      device_code: String(device.json['device_code']),
    });
    expect(tokens.status, tokens.text).toBe(200);
    const refused = await postForm(
      `${idp.issuer}/protocol/openid-connect/ext/ciba/auth`,
      { scope: 'openid', login_hint: 'kari' },
      basic('plain', 'plain-secret'),
    );
    expect(refused.json['error']).toBe('unauthorized_client');
    const ciba = await postForm(
      `${idp.issuer}/protocol/openid-connect/ext/ciba/auth`,
      { scope: 'openid', login_hint: 'KARI' },
      basic('desk', 'desk-secret'),
    );
    expect(ciba.status, ciba.text).toBe(200);
  });

  it('a disabled user cannot approve: the device page says so, the QA route and CIBA refuse', async () => {
    const device = await postForm(`${idp.issuer}/protocol/openid-connect/auth/device`, { client_id: 'tv' });
    const userCode = String(device.json['user_code']);
    const page = await postForm(`${idp.issuer}/device`, { user_code: userCode, login_hint: 'lars' });
    expect(page.status).toBe(200);
    expect(page.text).toContain('Account is disabled, contact your admin.');
    const decided = await call('POST', `${idp.issuer}/mock/device`, {
      user_code: userCode,
      user: 'lars',
      decision: 'approve',
    });
    expect(decided.status).toBe(400);
    expect(decided.json['error_description']).toBe(
      'Invalid device decision: user: "lars" is disabled and cannot sign in',
    );
    const ciba = await postForm(
      `${idp.issuer}/protocol/openid-connect/ext/ciba/auth`,
      { scope: 'openid', login_hint: 'lars' },
      basic('desk', 'desk-secret'),
    );
    expect(ciba.status).toBe(400);
    expect(ciba.json).toEqual({
      error: 'unknown_user_id',
      error_description: 'The user login_hint names is disabled: they cannot sign in',
    });
  });
});
