// Scopes a client library asks for by default: discovery lists the realm's scopes, and the built-in `email`
// scope releases the user's email claims, as Keycloak's does (bundled fixtures: carol has an email).
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { startMockIdp } from '../../src/index.js';
import { endpointsOf, useIdp } from '../helpers/server.js';
import { authorize, DEFAULT_FIXTURES, exchangeCode } from '../helpers/bundled.js';
import { call } from '../helpers/http.js';

const idp = useIdp({ fixtures: DEFAULT_FIXTURES });

const discovery = async (): Promise<Record<string, unknown>> =>
  (await call('GET', `${endpointsOf(idp.issuer).discovery}`)).json;

/** The code flow for carol at web-app with `scope`: the token response, ID token claims and userinfo. */
async function loginAs(scope: string) {
  const { code } = await authorize(idp.issuer, 'carol', scope);
  const tokens = (await exchangeCode(idp.issuer, code)).json as Record<string, string>;
  const userinfo = await fetch(`${endpointsOf(idp.issuer).userinfo}`, {
    headers: { authorization: `Bearer ${tokens['access_token']}` },
  });
  return {
    scope: tokens['scope'],
    id: decodeJwt(tokens['id_token'] ?? ''),
    access: decodeJwt(tokens['access_token'] ?? ''),
    userinfo: (await userinfo.json()) as Record<string, unknown>,
  };
}

describe('scopes_supported', () => {
  it("lists the realm's scopes: the built-in ones, then the fixtures' own", async () => {
    expect((await discovery())['scopes_supported']).toEqual([
      'openid',
      'profile',
      'email',
      'offline_access',
      'nnin_altsub',
      'idp_proof',
      'payments.read',
      'payments.write',
    ]);
  });

  it('follows fixtures replaced at runtime', async () => {
    const other = await startMockIdp({});
    try {
      const yaml = 'clients:\n  web-app: { secret: s }\nscopes:\n  orders.read: { resource: web-app }\n';
      const put = await fetch(`${other.issuer}/mock/fixtures`, { method: 'PUT', body: yaml });
      expect(put.status).toBe(200);
      const answer = await call('GET', `${endpointsOf(other.issuer).discovery}`);
      expect(answer.json['scopes_supported']).toContain('orders.read');
      expect(answer.json['scopes_supported']).not.toContain('payments.read');
    } finally {
      await other.close();
    }
  });
});

describe('the built-in email scope', () => {
  it('openid profile email (a client library default) releases email and email_verified', async () => {
    const t = await loginAs('openid profile email');
    expect(t.scope).toBe('openid profile email');
    for (const claims of [t.id, t.access, t.userinfo])
      expect(claims).toMatchObject({ email: 'carol@example.test', email_verified: true });
  });

  it('without it, the email claims stay out of every token and userinfo', async () => {
    const t = await loginAs('openid profile');
    for (const claims of [t.id, t.access, t.userinfo]) {
      expect(claims).not.toHaveProperty('email');
      expect(claims).not.toHaveProperty('email_verified');
      expect(claims).toHaveProperty('name', 'Carol Berg');
    }
  });
});
