// A user disabled or removed through the admin API after signing in, as Keycloak 26 treats them: their refresh
// tokens and codes are refused ("User disabled"), their tokens introspect inactive, their browser session no
// longer signs them in; userinfo still answers for a disabled user (Keycloak's does not check). Enabled again,
// the same session works again. Driven by openid-client and @keycloak/keycloak-admin-client.
import type KcAdminClient from '@keycloak/keycloak-admin-client';
import { fileURLToPath } from 'node:url';
import * as client from 'openid-client';
import { beforeAll, describe, expect, it } from 'vitest';
import { adminClient, clientConfig } from '../helpers/admin.js';
import { useIdp } from '../helpers/server.js';

const ACME = fileURLToPath(new URL('../fixtures-data/keycloak/acme-realm.json', import.meta.url));
const idp = useIdp({ fixtures: ACME, seed: 'disabled-user' });

let kc: KcAdminClient;
let config: client.Configuration;
beforeAll(async () => {
  kc = await adminClient(idp, 'acme');
  config = await clientConfig(idp, 'acme', 'web-app', 'web-secret');
});

async function userId(username: string): Promise<string> {
  const [user] = await kc.users.find({ username, exact: true });
  if (user?.id === undefined) throw new Error(`no user ${username}`);
  return user.id;
}

const setEnabled = async (username: string, enabled: boolean) =>
  kc.users.update({ id: await userId(username) }, { enabled });

const signIn = (username: string, password: string) =>
  client.genericGrantRequest(config, 'password', { username, password, scope: 'openid' });

/** web-app requires PKCE: every authorize request here sends this verifier's S256 challenge. */
const VERIFIER = client.randomPKCECodeVerifier();

/** The browser's GET of web-app's authorize URL (state `st`, PKCE), with `cookie` when given; not followed. */
async function authorize(params: Record<string, string>, cookie?: string): Promise<Response> {
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: 'http://localhost:3000/callback',
    scope: 'openid',
    state: 'st',
    code_challenge: await client.calculatePKCECodeChallenge(VERIFIER),
    code_challenge_method: 'S256',
    ...params,
  });
  return fetch(url, { redirect: 'manual', ...(cookie !== undefined ? { headers: { cookie } } : {}) });
}

/** The OAuth error openid-client reports for a refused request. */
async function refusal(request: Promise<unknown>): Promise<{ error: string; description: unknown }> {
  const err: unknown = await request.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(client.ResponseBodyError);
  const { error, error_description: description } = err as client.ResponseBodyError;
  return { error, description };
}

describe('a user disabled through the admin API after signing in', () => {
  it('refresh: 400 invalid_grant "User disabled"; introspection: inactive; userinfo answers; enabled again, all works', async () => {
    const tokens = await signIn('dave', 'dave-pw');
    const access = tokens.access_token;
    const refreshToken = tokens.refresh_token as string;
    expect((await client.tokenIntrospection(config, access)).active).toBe(true);

    await setEnabled('dave', false);
    expect(await refusal(client.refreshTokenGrant(config, refreshToken))).toEqual({
      error: 'invalid_grant',
      description: 'User disabled',
    });
    expect(await client.tokenIntrospection(config, access)).toEqual({ active: false });
    const claims = tokens.claims();
    const info = await client.fetchUserInfo(config, access, claims?.sub as string);
    expect(info['preferred_username']).toBe('dave');
    expect(await refusal(signIn('dave', 'dave-pw'))).toEqual({
      error: 'invalid_grant',
      description: 'Account disabled',
    });

    await setEnabled('dave', true);
    expect((await client.tokenIntrospection(config, access)).active).toBe(true);
    const refreshed = await client.refreshTokenGrant(config, refreshToken);
    expect(refreshed.claims()?.sid).toBe(claims?.sid);
  });

  it('a code issued before the user was disabled is refused at the exchange: invalid_grant "User disabled"', async () => {
    const response = await authorize({ login_hint: 'bob' });
    expect(response.status).toBe(302);
    const callback = new URL(response.headers.get('location') as string);
    await setEnabled('bob', false);
    try {
      const exchange = client.authorizationCodeGrant(config, callback, {
        pkceCodeVerifier: VERIFIER,
        expectedState: 'st',
        idTokenExpected: true,
      });
      expect(await refusal(exchange)).toEqual({ error: 'invalid_grant', description: 'User disabled' });
    } finally {
      await setEnabled('bob', true);
    }
  });

  it("the browser's session no longer signs a disabled user in: prompt=none answers login_required", async () => {
    const first = await authorize({ login_hint: 'bob' });
    const cookie = first.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const silent = async () =>
      new URL((await authorize({ prompt: 'none' }, cookie)).headers.get('location') as string).searchParams;
    expect((await silent()).get('code')).not.toBeNull();
    await setEnabled('bob', false);
    try {
      expect((await silent()).get('error')).toBe('login_required');
    } finally {
      await setEnabled('bob', true);
    }
    expect((await silent()).get('code')).not.toBeNull();
  });
});

describe('a user removed through the admin API after signing in', () => {
  it('refresh: invalid_grant; introspection: inactive', async () => {
    const created = await kc.users.create({
      username: 'erin',
      enabled: true,
      credentials: [{ type: 'password', value: 'erin-pw', temporary: false }],
    });
    const tokens = await signIn('erin', 'erin-pw');
    await kc.users.del({ id: created.id });
    expect(await refusal(client.refreshTokenGrant(config, tokens.refresh_token as string))).toEqual({
      error: 'invalid_grant',
      description: 'User "erin" no longer exists',
    });
    expect(await client.tokenIntrospection(config, tokens.access_token)).toEqual({ active: false });
  });
});

it("a username typed in another case signs in the realm's (lower-case) user, whose refresh works", async () => {
  const tokens = await signIn('ALICE', 'alice-pw');
  const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token as string);
  expect(refreshed.claims()?.['preferred_username']).toBe('alice');
});
