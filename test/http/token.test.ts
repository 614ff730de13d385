// Token endpoint over HTTP: every grant, the error table, response headers and fields.
import { describe, expect, it } from 'vitest';
import { expectOAuthError as expectError, expectNoStack } from '../helpers/assert.js';
import {
  authorizeRedirect,
  basicFor,
  clientCredentials,
  codeFor,
  exchangeCode,
  loginTokens,
  refresh,
  SECRETS,
  type ErrorResponse,
  type SecretClient,
  type TokenResponse,
} from '../helpers/flows.js';
import { basic, postForm } from '../helpers/http.js';
import { decode, s256, verifyToken } from '../helpers/jwt.js';
import { startIdp, useIdp } from '../helpers/server.js';

const INGRID_SUB = '7f3e2a10-5b6c-4d7e-8f90-a1b2c3d4e5f6';
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk-fjord';

const idp = useIdp();

describe('grant_type=authorization_code', () => {
  it('exchanges a code for access, ID and refresh tokens', async () => {
    const code = await codeFor(idp, { scope: 'openid profile' });
    const answer = await exchangeCode(idp, code);
    expect(answer.status, answer.text).toBe(200);
    expect(Object.keys(answer.json).sort()).toEqual(
      [
        'access_token',
        'expires_in',
        'refresh_expires_in',
        'refresh_token',
        'token_type',
        'id_token',
        'not-before-policy',
        'session_state',
        'scope',
        'sid',
      ].sort(),
    );
    expect(answer.json.scope).toBe('openid profile');
  });

  it.each([
    ['S256', s256(VERIFIER)],
    ['plain', VERIFIER],
  ])('accepts PKCE %s with the right verifier', async (method, challenge) => {
    const code = await codeFor(idp, { codeChallenge: challenge, codeChallengeMethod: method });
    const answer = await exchangeCode(idp, code, { extra: { code_verifier: VERIFIER } });
    expect(answer.status, answer.text).toBe(200);
  });

  it('treats a code_challenge without method as plain (RFC 7636 §4.3)', async () => {
    const code = await codeFor(idp, { codeChallenge: VERIFIER });
    expect((await exchangeCode(idp, code, { extra: { code_verifier: VERIFIER } })).status).toBe(200);
  });

  it.each([
    ['a wrong verifier', { code_verifier: `${VERIFIER.slice(0, -1)}X` }],
    ['a missing verifier', {}],
    ['a too short verifier', { code_verifier: 'short' }],
    ['the challenge itself as verifier', { code_verifier: s256(VERIFIER) }],
  ])('rejects S256 PKCE with %s: 400 invalid_grant', async (_name, extra: Record<string, string>) => {
    const code = await codeFor(idp, { codeChallenge: s256(VERIFIER), codeChallengeMethod: 'S256' });
    expectError(await exchangeCode(idp, code, { extra }), 400, 'invalid_grant');
  });

  it('rejects a code_verifier for a code issued without a challenge (PKCE downgrade): 400 invalid_grant', async () => {
    const code = await codeFor(idp);
    expectError(await exchangeCode(idp, code, { extra: { code_verifier: VERIFIER } }), 400, 'invalid_grant');
  });

  it('lets a public client with required PKCE exchange with client_id only', async () => {
    const code = await codeFor(idp, {
      client: 'kiosk-spa',
      redirectUri: 'http://kiosk.fjord.test/done',
      codeChallenge: s256(VERIFIER),
      codeChallengeMethod: 'S256',
    });
    const answer = await postForm<TokenResponse>(idp.endpoints.token, {
      grant_type: 'authorization_code',
      code,
      client_id: 'kiosk-spa',
      redirect_uri: 'http://kiosk.fjord.test/done',
      code_verifier: VERIFIER,
    });
    expect(answer.status, answer.text).toBe(200);
    expect(decode(answer.json.access_token).claims.azp).toBe('kiosk-spa');
  });

  it('makes codes single-use', async () => {
    const code = await codeFor(idp);
    expect((await exchangeCode(idp, code)).status).toBe(200);
    expectError(await exchangeCode(idp, code), 400, 'invalid_grant');
  });

  it('rejects an unknown code: 400 invalid_grant', async () => {
    expectError(await exchangeCode(idp, 'no-such-code'), 400, 'invalid_grant');
  });

  it('rejects a redirect_uri that differs from the authorize request: 400 invalid_grant', async () => {
    const code = await codeFor(idp, { redirectUri: 'http://127.0.0.1:4000/a' });
    expectError(
      await exchangeCode(idp, code, { redirectUri: 'http://127.0.0.1:4000/b' }),
      400,
      'invalid_grant',
    );
  });

  it('requires redirect_uri at the exchange: 400 invalid_request', async () => {
    const code = await codeFor(idp);
    const answer = await postForm(
      idp.endpoints.token,
      { grant_type: 'authorization_code', code },
      { authorization: basicFor('teller-web') },
    );
    expectError(answer, 400, 'invalid_request');
  });

  it('rejects a code issued to another client, and burns it: 400 invalid_grant', async () => {
    const code = await codeFor(idp);
    expectError(
      await postForm(idp.endpoints.token, {
        grant_type: 'authorization_code',
        code,
        redirect_uri: 'http://app.fjord.test/cb',
        client_id: 'counter-app',
        client_secret: SECRETS['counter-app'],
      }),
      400,
      'invalid_grant',
    );
    expectError(await exchangeCode(idp, code), 400, 'invalid_grant');
  });

  it('rejects a client not allowed the grant: 400 unauthorized_client', async () => {
    const answer = await postForm(
      idp.endpoints.token,
      { grant_type: 'authorization_code', code: 'x', redirect_uri: 'http://app.fjord.test/cb' },
      { authorization: basicFor('ledger-sync') },
    );
    expectError(answer, 400, 'unauthorized_client');
  });

  it('issues no ID token without the openid scope', async () => {
    const tokens = await loginTokens(idp, { scope: 'ledger.read' });
    expect(tokens.id_token).toBeUndefined();
    expect(tokens.scope).toBe('ledger.read');
  });
});

describe('code expiry on a frozen clock', () => {
  const frozen = useIdp({ clock: '2030-01-01T00:00:00Z', frozen: true });

  it('accepts a code 29 s old (codeLifespan 30)', async () => {
    const code = await codeFor(frozen);
    frozen.provider.clock.advance(29);
    expect((await exchangeCode(frozen, code)).status).toBe(200);
  });

  it('rejects a code 30 s old: 400 invalid_grant', async () => {
    const code = await codeFor(frozen);
    frozen.provider.clock.advance(30);
    expectError(await exchangeCode(frozen, code), 400, 'invalid_grant');
  });

  it('rejects a refresh token past refresh_expires_in: 400 invalid_grant', async () => {
    const tokens = await loginTokens(frozen);
    frozen.provider.clock.advance(3599);
    const ok = await refresh(frozen, tokens.refresh_token);
    expect(ok.status, ok.text).toBe(200);
    frozen.provider.clock.advance(3600);
    expectError(await refresh(frozen, ok.json.refresh_token), 400, 'invalid_grant');
  });
});

describe('grant_type=client_credentials', () => {
  it('without scope grants the client default scopes and no ID token', async () => {
    const answer = await clientCredentials(idp);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.id_token).toBeUndefined();
    expect(answer.json.scope).toBe('ledger.read ledger.write statements');
    const { claims } = await verifyToken(idp, answer.json.access_token);
    expect(claims.aud).toEqual(['ledger-api', 'statement-rs']);
    expect(claims.resource_access).toEqual({
      'ledger-api': { roles: ['import', 'viewer', 'editor'] },
      'statement-rs': { roles: ['reader'] },
    });
  });

  it('with scope grants exactly that scope', async () => {
    const answer = await clientCredentials(idp, 'ledger.read');
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.scope).toBe('ledger.read');
    const { claims } = await verifyToken(idp, answer.json.access_token, 'ledger-api');
    expect(claims).toMatchObject({
      typ: 'Bearer',
      azp: 'ledger-sync',
      client_id: 'ledger-sync',
      aud: 'ledger-api',
      preferred_username: 'service-account-ledger-sync',
      realm_access: { roles: ['sync-job'] },
      resource_access: { 'ledger-api': { roles: ['import', 'viewer'] } },
      scope: 'ledger.read',
    });
  });

  it.each([
    ['an unknown scope', 'ledger.delete'],
    ['a scope the client may not request', 'openid'],
    ['a scope in the wrong case', 'Ledger.Read'],
    ['one bad scope among good ones', 'ledger.read payments'],
  ])('rejects %s: 400 invalid_scope', async (_name, scope) => {
    expectError(await clientCredentials(idp, scope), 400, 'invalid_scope');
  });

  it.each<[SecretClient, string, string]>([
    [
      'teller-web',
      'grants: authorization_code, refresh_token',
      'authorization_code, refresh_token, client_credentials',
    ],
    ['ledger-api', 'grants: none', 'client_credentials'],
  ])('rejects client %s, not allowed the grant: 400 unauthorized_client, (%s)', async (id, listed, after) => {
    const answer = await clientCredentials<Record<string, string>>(idp, undefined, id);
    expectError(answer, 400, 'unauthorized_client');
    expect(answer.json['error_description']).toBe(
      `Client "${id}" is not allowed the client_credentials grant (${listed}); add client_credentials to the client's grants in the fixtures (clients.${id}.grants: [${after}])`,
    );
  });
});

describe('grant_type=refresh_token', () => {
  it('returns a whole new token set for the same session', async () => {
    const first = await loginTokens(idp, { scope: 'openid profile ledger.read', nonce: 'n-refresh' });
    const answer = await refresh(idp, first.refresh_token);
    expect(answer.status, answer.text).toBe(200);
    const next = answer.json;
    expect(next.access_token).not.toBe(first.access_token);
    expect(next.refresh_token).not.toBe(first.refresh_token);
    expect(next.id_token).toBeDefined();
    expect(next.id_token).not.toBe(first.id_token);
    expect(next.sid).toBe(first.sid);
    expect(next.session_state).toBe(first.session_state);
    expect(next.scope).toBe('openid profile ledger.read');
    const id = await verifyToken(idp, next.id_token as string, 'teller-web');
    expect(id.claims.nonce).toBe('n-refresh');
    expect(id.claims.sid).toBe(first.sid);
  });

  it('accepts a narrower scope and narrows the tokens', async () => {
    const first = await loginTokens(idp, { scope: 'openid profile ledger.read statements' });
    const answer = await refresh(idp, first.refresh_token, { scope: 'openid ledger.read' });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.scope).toBe('openid ledger.read');
    const access = await verifyToken(idp, answer.json.access_token);
    expect(access.claims.aud).toBe('ledger-api');
    expect(access.claims.name).toBeUndefined();
    expect(access.claims.scope).toBe('openid ledger.read');
  });

  it.each([
    ['a wider scope', 'openid ledger.read ledger.write'],
    ['a scope in the wrong case', 'OPENID'],
    ['an unknown scope', 'openid nope'],
  ])('rejects %s: 400 invalid_scope', async (_name, scope) => {
    const first = await loginTokens(idp, { scope: 'openid ledger.read' });
    expectError(await refresh(idp, first.refresh_token, { scope }), 400, 'invalid_scope');
  });

  it("rejects another client's refresh token: 400 invalid_grant", async () => {
    const first = await loginTokens(idp);
    expectError(await refresh(idp, first.refresh_token, { client: 'counter-app' }), 400, 'invalid_grant');
  });

  it.each([
    ['an access token', (t: TokenResponse) => t.access_token],
    ['an ID token', (t: TokenResponse) => t.id_token as string],
    ['garbage', () => 'not-a-jwt'],
    ['a tampered refresh token', (t: TokenResponse) => `${t.refresh_token.slice(0, -4)}AAAA`],
  ])('rejects %s as refresh_token: 400 invalid_grant', async (_name, pick) => {
    const first = await loginTokens(idp);
    expectError(await refresh(idp, pick(first)), 400, 'invalid_grant');
  });

  it('rejects a refresh token after logout: 400 invalid_grant', async () => {
    const first = await loginTokens(idp);
    const logout = await postForm(
      idp.endpoints.logout,
      { refresh_token: first.refresh_token },
      { authorization: basicFor('teller-web') },
    );
    expect(logout.status, logout.text).toBe(204);
    expectError(await refresh(idp, first.refresh_token), 400, 'invalid_grant');
  });

  it('refreshes a client_credentials token set without an ID token', async () => {
    const first = await clientCredentials(idp, 'ledger.read');
    const answer = await refresh(idp, first.json.refresh_token, { client: 'ledger-sync' });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.id_token).toBeUndefined();
    expect(decode(answer.json.access_token).claims.sub).toBe(decode(first.json.access_token).claims.sub);
  });
});

interface ErrorCase {
  name: string;
  body: Record<string, string> | [string, string][] | string;
  authorization?: string;
  headers?: Record<string, string>;
  status: number;
  error: string;
}

const cc = { grant_type: 'client_credentials' };
const ERROR_CASES: ErrorCase[] = [
  {
    name: 'missing grant_type',
    body: {},
    authorization: basicFor('ledger-sync'),
    status: 400,
    error: 'invalid_request',
  },
  {
    name: 'empty grant_type',
    body: { grant_type: '' },
    authorization: basicFor('ledger-sync'),
    status: 400,
    error: 'invalid_request',
  },
  {
    name: 'grant_type password for a client that does not list it',
    body: { grant_type: 'password', username: 'ingrid', password: 'x' },
    authorization: basicFor('teller-web'),
    status: 400,
    error: 'unauthorized_client',
  },
  {
    name: 'grant_type implicit',
    body: { grant_type: 'implicit' },
    authorization: basicFor('teller-web'),
    status: 400,
    error: 'unsupported_grant_type',
  },
  {
    name: 'grant_type in the wrong case',
    body: { grant_type: 'Client_Credentials' },
    authorization: basicFor('ledger-sync'),
    status: 400,
    error: 'unsupported_grant_type',
  },
  {
    name: 'duplicated grant_type',
    body: [
      ['grant_type', 'client_credentials'],
      ['grant_type', 'client_credentials'],
    ],
    authorization: basicFor('ledger-sync'),
    status: 400,
    error: 'invalid_request',
  },
  {
    name: 'duplicated scope',
    body: [
      ['grant_type', 'client_credentials'],
      ['scope', 'ledger.read'],
      ['scope', 'statements'],
    ],
    authorization: basicFor('ledger-sync'),
    status: 400,
    error: 'invalid_request',
  },
  {
    name: 'duplicated client_id',
    body: [
      ['grant_type', 'client_credentials'],
      ['client_id', 'ledger-sync'],
      ['client_id', 'ledger-sync'],
      ['client_secret', SECRETS['ledger-sync']],
    ],
    status: 400,
    error: 'invalid_request',
  },
  { name: 'no client authentication', body: cc, status: 401, error: 'invalid_client' },
  {
    name: 'an unknown client (Basic)',
    body: cc,
    authorization: basic('ghost', 'boo'),
    status: 401,
    error: 'invalid_client',
  },
  {
    name: 'an unknown client (post)',
    body: { ...cc, client_id: 'ghost', client_secret: 'boo' },
    status: 401,
    error: 'invalid_client',
  },
  {
    name: 'a wrong secret (Basic)',
    body: cc,
    authorization: basic('ledger-sync', 'wrong'),
    status: 401,
    error: 'unauthorized_client',
  },
  {
    name: 'a wrong secret (post)',
    body: { ...cc, client_id: 'ledger-sync', client_secret: 'wrong' },
    status: 401,
    error: 'unauthorized_client',
  },
  {
    name: 'a secret in the wrong case',
    body: cc,
    authorization: basic('ledger-sync', SECRETS['ledger-sync'].toUpperCase()),
    status: 401,
    error: 'unauthorized_client',
  },
  {
    name: 'a confidential client without a secret',
    body: { ...cc, client_id: 'ledger-sync' },
    status: 401,
    error: 'unauthorized_client',
  },
  {
    name: 'Basic for a client_secret_post-only client',
    body: { grant_type: 'authorization_code', code: 'x', redirect_uri: 'http://counter.fjord.test/return' },
    authorization: basicFor('counter-app'),
    status: 401,
    error: 'unauthorized_client',
  },
  {
    name: 'a secret for a private_key_jwt client',
    body: { ...cc, client_id: 'vault-signer', client_secret: 'x' },
    status: 401,
    error: 'unauthorized_client',
  },
  {
    name: 'a malformed Basic header',
    body: cc,
    authorization: 'Basic !!!',
    status: 400,
    error: 'invalid_request',
  },
  {
    name: 'a Basic header without a colon',
    body: cc,
    authorization: `Basic ${Buffer.from('ledger-sync').toString('base64')}`,
    status: 400,
    error: 'invalid_request',
  },
  {
    name: 'client_id differing from Basic',
    body: { ...cc, client_id: 'teller-web' },
    authorization: basicFor('ledger-sync'),
    status: 400,
    error: 'invalid_request',
  },
  {
    name: 'authorization_code without code',
    body: { grant_type: 'authorization_code', redirect_uri: 'http://app.fjord.test/cb' },
    authorization: basicFor('teller-web'),
    status: 400,
    error: 'invalid_request',
  },
  {
    name: 'refresh_token without refresh_token',
    body: { grant_type: 'refresh_token' },
    authorization: basicFor('teller-web'),
    status: 400,
    error: 'invalid_request',
  },
  {
    name: 'a JSON body',
    body: JSON.stringify(cc),
    headers: { 'content-type': 'application/json' },
    authorization: basicFor('ledger-sync'),
    status: 400,
    error: 'invalid_request',
  },
  {
    name: 'a text/plain body',
    body: 'grant_type=client_credentials',
    headers: { 'content-type': 'text/plain' },
    authorization: basicFor('ledger-sync'),
    status: 400,
    error: 'invalid_request',
  },
  {
    name: 'an unsupported charset',
    body: 'grant_type=client_credentials',
    headers: { 'content-type': 'application/x-www-form-urlencoded; charset=latin1' },
    authorization: basicFor('ledger-sync'),
    status: 415,
    error: 'invalid_request',
  },
  {
    name: 'more than 100 parameters',
    body: Array.from({ length: 120 }, (_, i): [string, string] => [`p${i}`, 'v']),
    authorization: basicFor('ledger-sync'),
    status: 413,
    error: 'invalid_request',
  },
];

describe('token endpoint errors', () => {
  it.each(ERROR_CASES)('$name: $status $error', async (c) => {
    const answer = await postForm(idp.endpoints.token, c.body, {
      ...(c.authorization !== undefined ? { authorization: c.authorization } : {}),
      ...(c.headers !== undefined ? { headers: c.headers } : {}),
    });
    expectError(answer, c.status, c.error);
    expect(answer.headers.get('content-type')).toBe('application/json');
    expectNoStack(answer.text);
  });

  it('answers an oversize body with 413 JSON', async () => {
    const answer = await postForm(
      idp.endpoints.token,
      { grant_type: 'client_credentials', filler: 'x'.repeat(200_000) },
      { authorization: basicFor('ledger-sync') },
    );
    expectError(answer, 413, 'invalid_request');
    expect(answer.headers.get('content-type')).toBe('application/json');
  });

  it.each(['GET', 'PUT', 'DELETE', 'PATCH'])('answers %s with 405 and Allow: POST', async (method) => {
    const response = await fetch(idp.endpoints.token, { method });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    const body = (await response.json()) as ErrorResponse;
    expect(body.error).toBe('invalid_request');
  });

  it('answers unsupported_grant_type before authenticating the client', async () => {
    expectError(
      await postForm(idp.endpoints.token, { grant_type: 'urn:ietf:params:oauth:grant-type:saml2-bearer' }),
      400,
      'unsupported_grant_type',
    );
  });
});

describe('token response headers and fields', () => {
  it.each<[string, () => Promise<{ status: number; headers: Headers }>]>([
    ['a success', () => clientCredentials(idp)],
    ['an error', () => clientCredentials(idp, 'nope')],
    ['a client authentication failure', () => postForm(idp.endpoints.token, cc)],
  ])('%s carries application/json, no-store, no-cache', async (_name, call) => {
    const { headers } = await call();
    expect(headers.get('content-type')).toBe('application/json');
    expect(headers.get('cache-control')).toBe('no-store');
    expect(headers.get('pragma')).toBe('no-cache');
  });

  it('has the document fields with the fixture lifespans', async () => {
    const params = await authorizeRedirect(idp, { scope: 'openid ledger.read' });
    const answer = await exchangeCode(idp, params.get('code') as string);
    const t = answer.json;
    expect(t.token_type).toBe('bearer');
    expect(t.expires_in).toBe(600);
    expect(t.refresh_expires_in).toBe(3600);
    expect(t['not-before-policy']).toBe(0);
    expect(t.session_state).toBe(params.get('session_state'));
    expect(t.sid).toBe(params.get('code')?.split('.')[1]);
    expect(t.scope).toBe('openid ledger.read');
    expect(t.idp_proof).toBeUndefined();
  });

  it('adds idp_proof only with the idp_proof scope, signed by the realm key', async () => {
    const t = await loginTokens(idp, { scope: 'openid idp_proof' });
    expect(t.idp_proof).toBeDefined();
    const proof = await verifyToken(idp, t.idp_proof as string);
    expect(proof.header.alg).toBe('RS256');
    expect(proof.claims).toMatchObject({ sub: INGRID_SUB, azp: 'teller-web', sid: t.sid });
    expect(t.scope).toBe('openid idp_proof');
  });

  it('has no id_token and no idp_proof for client_credentials', async () => {
    const { json } = await clientCredentials(idp);
    expect(json.id_token).toBeUndefined();
    expect(json.idp_proof).toBeUndefined();
    expect(json.token_type).toBe('bearer');
    expect(typeof json.sid).toBe('string');
  });

  it.each([
    [
      { tokenType: 'Bearer', sessionStateInResponse: false, notBeforePolicy: 1700000000 },
      'Bearer',
      false,
      1700000000,
    ],
    [{ tokenType: 'bearer', sessionStateInResponse: true }, 'bearer', true, 0],
  ] as const)('follows the fixture token settings %j', async (tokens, tokenType, hasSessionState, nbp) => {
    const custom = await startIdp({
      fixtures: {
        realm: 'settings',
        tokens,
        clients: { m2m: { secret: 's', grants: ['client_credentials'] } },
      },
    });
    try {
      const answer = await postForm<TokenResponse>(custom.endpoints.token, cc, {
        authorization: basic('m2m', 's'),
      });
      expect(answer.status, answer.text).toBe(200);
      expect(answer.json.token_type).toBe(tokenType);
      expect('session_state' in answer.json).toBe(hasSessionState);
      expect(answer.json['not-before-policy']).toBe(nbp);
      expect(typeof answer.json.sid).toBe('string');
    } finally {
      await custom.close();
    }
  });
});
