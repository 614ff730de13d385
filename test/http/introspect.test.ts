// Introspection (RFC 7662) over HTTP: attributes, nnin_altsub for eligible callers, inactive tokens, errors.
import { generateKeyPair, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { expectOAuthError } from '../helpers/assert.js';
import {
  basicFor,
  clientCredentials,
  codeFor,
  exchangeCode,
  introspect,
  loginTokens,
  SECRETS,
  type SecretClient,
  type TokenResponse,
} from '../helpers/flows.js';
import { basic, postForm } from '../helpers/http.js';
import { ASSERTION_TYPE, clientAssertion, decode } from '../helpers/jwt.js';
import { startIdp, useIdp } from '../helpers/server.js';

const INGRID_SUB = '7f3e2a10-5b6c-4d7e-8f90-a1b2c3d4e5f6';

const idp = useIdp();

describe('an active access token', () => {
  it('answers the document attributes and the token claims, without nbf, aud and jti', async () => {
    const t = await loginTokens(idp, { scope: 'openid profile nnin_altsub ledger.read' });
    const access = decode(t.access_token).claims;
    const answer = await introspect(idp, t.access_token, 'ledger-api');
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json).toEqual({
      active: true,
      scope: 'openid profile nnin_altsub ledger.read',
      client_id: 'teller-web',
      username: 'ingrid',
      token_type: 'Bearer',
      exp: access.exp,
      iat: access.iat,
      iss: idp.issuer,
      sub: INGRID_SUB,
      typ: 'Bearer',
      azp: 'teller-web',
      auth_time: access.auth_time,
      session_state: t.session_state,
      sid: t.sid,
      acr: 'urn:idp:bid;LOA=4',
      amr: 'BID',
      'allowed-origins': ['http://app.fjord.test', 'http://127.0.0.1'],
      realm_access: { roles: ['customer', 'teller'] },
      resource_access: { 'ledger-api': { roles: ['viewer', 'auditor'] } },
      name: 'Ingrid Fjeld',
      given_name: 'Ingrid',
      family_name: 'Fjeld',
      preferred_username: 'ingrid',
      birthdate: '1979-03-17',
      idp_altsub: '9578-6000-4-246810',
      originator:
        'CN=IdP - Fjord Bank - Bank CA 2,OU=555555555,O=Fjord Bank ASA,C=NO;OriginatorId=7001;OriginatorName=FJORD',
      branch_code: 'NO-0150',
      nnin_altsub: '17037912345',
    });
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(answer.headers.get('cache-control')).toBe('no-store');
  });

  it("answers a service account's token with its username and no nnin_altsub", async () => {
    const { json } = await clientCredentials(idp, 'ledger.read');
    const answer = await introspect(idp, json.access_token, 'ledger-api');
    expect(answer.json).toMatchObject({
      active: true,
      client_id: 'ledger-sync',
      username: 'service-account-ledger-sync',
      token_type: 'Bearer',
      scope: 'ledger.read',
    });
    expect(answer.json).not.toHaveProperty('nnin_altsub');
  });

  it('answers a refresh token as active with token_type Refresh', async () => {
    const t = await loginTokens(idp);
    const answer = await introspect(idp, t.refresh_token, 'statement-rs');
    expect(answer.json).toMatchObject({
      active: true,
      token_type: 'Refresh',
      typ: 'Refresh',
      client_id: 'teller-web',
    });
  });

  it('accepts a private_key_jwt caller with aud = the introspection endpoint', async () => {
    const { json } = await clientCredentials(idp, 'ledger.read');
    const answer = await postForm(idp.endpoints.introspect, {
      token: json.access_token,
      client_assertion_type: ASSERTION_TYPE,
      client_assertion: await clientAssertion(idp, { audience: idp.endpoints.introspect }),
    });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.active).toBe(true);
  });
});

describe('nnin_altsub at introspection: the caller must be eligible, whatever client got the token', () => {
  const tokenOf = async (client: 'teller-web' | 'counter-app', scope: string): Promise<TokenResponse> => {
    const redirectUri =
      client === 'teller-web' ? 'http://app.fjord.test/cb' : 'http://counter.fjord.test/return';
    const answer = await exchangeCode(idp, await codeFor(idp, { client, scope, redirectUri }), {
      client,
      redirectUri,
    });
    expect(answer.status, answer.text).toBe(200);
    return answer.json;
  };

  it.each<{
    caller: SecretClient;
    client: 'teller-web' | 'counter-app';
    scope: string;
    token: 'access_token' | 'id_token';
    nnin: string | undefined;
  }>([
    {
      caller: 'ledger-api',
      client: 'counter-app',
      scope: 'openid nnin_altsub',
      token: 'access_token',
      nnin: '17037912345',
    },
    {
      caller: 'ledger-api',
      client: 'teller-web',
      scope: 'openid nnin_altsub',
      token: 'access_token',
      nnin: '17037912345',
    },
    { caller: 'ledger-api', client: 'teller-web', scope: 'openid', token: 'access_token', nnin: undefined },
    {
      caller: 'statement-rs',
      client: 'teller-web',
      scope: 'openid nnin_altsub',
      token: 'access_token',
      nnin: undefined,
    },
    {
      caller: 'statement-rs',
      client: 'teller-web',
      scope: 'openid nnin_altsub',
      token: 'id_token',
      nnin: undefined,
    },
    {
      caller: 'ledger-api',
      client: 'teller-web',
      scope: 'openid nnin_altsub',
      token: 'id_token',
      nnin: '17037912345',
    },
  ])(
    '$caller introspecting the $token of $client with "$scope": $nnin',
    async ({ caller, client, scope, token, nnin }) => {
      const t = await tokenOf(client, scope);
      const answer = await introspect(idp, t[token] as string, caller);
      expect(answer.json.active).toBe(true);
      expect(answer.json.nnin_altsub).toBe(nnin);
    },
  );
});

describe('inactive tokens: 200 {"active":false}', () => {
  const other = useIdp();
  const elsewhere = useIdp({
    fixtures: {
      realm: 'elsewhere',
      clients: { 'ledger-sync': { secret: SECRETS['ledger-sync'], grants: ['client_credentials'] } },
    },
  });

  const forge = async (claims: Record<string, unknown>, kid: string): Promise<string> => {
    const { privateKey } = await generateKeyPair('RS256');
    return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' }).sign(privateKey);
  };

  it.each<[string, () => Promise<string>]>([
    ['garbage', async () => 'garbage'],
    ['three empty parts', async () => '..'],
    [
      'a tampered signature',
      async () => `${(await clientCredentials(idp)).json.access_token.slice(0, -6)}AAAAAA`,
    ],
    [
      'a tampered payload',
      async () => {
        const [h, , s] = (await clientCredentials(idp)).json.access_token.split('.');
        return `${h}.${Buffer.from(JSON.stringify({ typ: 'Bearer', iss: idp.issuer, sub: 'x', exp: 4102444800 })).toString('base64url')}.${s}`;
      },
    ],
    [
      'alg none',
      async () =>
        `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify({ typ: 'Bearer', iss: idp.issuer, exp: 4102444800 })).toString('base64url')}.`,
    ],
    [
      'a forged token with the realm kid',
      async () => {
        const real = decode((await clientCredentials(idp)).json.access_token);
        return forge(real.claims, real.header.kid as string);
      },
    ],
    [
      'a token of another server with the same fixtures',
      async () => (await clientCredentials(other)).json.access_token,
    ],
    ['a token of another realm', async () => (await clientCredentials(elsewhere)).json.access_token],
    [
      'a revoked access token',
      async () => {
        const t = await loginTokens(idp);
        const revoked = await postForm(
          idp.endpoints.revoke,
          { token: t.access_token },
          { authorization: basicFor('teller-web') },
        );
        expect(revoked.status).toBe(200);
        return t.access_token;
      },
    ],
    [
      'an access token after logout',
      async () => {
        const t = await loginTokens(idp);
        const logout = await postForm(
          idp.endpoints.logout,
          { refresh_token: t.refresh_token },
          { authorization: basicFor('teller-web') },
        );
        expect(logout.status).toBe(204);
        return t.access_token;
      },
    ],
  ])('%s', async (_name, make) => {
    const answer = await introspect(idp, await make());
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ active: false });
  });

  it('an expired access token (mock clock advanced past exp)', async () => {
    const frozen = await startIdp({ clock: '2030-01-01T00:00:00Z', frozen: true });
    try {
      const { json } = await clientCredentials(frozen, 'ledger.read');
      frozen.clock.advance(599);
      expect((await introspect(frozen, json.access_token)).json.active).toBe(true);
      frozen.clock.advance(1);
      expect((await introspect(frozen, json.access_token)).json).toEqual({ active: false });
    } finally {
      await frozen.close();
    }
  });
});

describe('introspection errors', () => {
  it.each<{
    name: string;
    body: Record<string, string> | [string, string][];
    authorization?: string;
    status: number;
    error: string;
  }>([
    { name: 'no client authentication', body: { token: 'x' }, status: 401, error: 'invalid_client' },
    {
      name: 'a wrong secret',
      body: { token: 'x' },
      authorization: basic('ledger-api', 'nope'),
      status: 401,
      error: 'unauthorized_client',
    },
    {
      name: 'an unknown client',
      body: { token: 'x' },
      authorization: basic('ghost', 'x'),
      status: 401,
      error: 'invalid_client',
    },
    {
      name: 'a public client',
      body: { token: 'x', client_id: 'kiosk-spa' },
      status: 403,
      error: 'invalid_request',
    },
    {
      name: 'a missing token',
      body: {},
      authorization: basicFor('ledger-api'),
      status: 400,
      error: 'invalid_request',
    },
    {
      name: 'a duplicated token',
      body: [
        ['token', 'a'],
        ['token', 'b'],
      ],
      authorization: basicFor('ledger-api'),
      status: 400,
      error: 'invalid_request',
    },
  ])('$name: $status $error', async (c) => {
    const answer = await postForm(
      idp.endpoints.introspect,
      c.body,
      c.authorization !== undefined ? { authorization: c.authorization } : {},
    );
    expectOAuthError(answer, c.status, c.error);
  });

  it('answers GET with 405', async () => {
    const response = await fetch(idp.endpoints.introspect);
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });
});
