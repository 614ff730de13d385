// POST {realm}/mock/tokens and idp.mint(): every token type and signature variant, verified as a client would.
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  errors,
  jwtVerify,
  UnsecuredJWT,
  type JSONWebKeySet,
} from 'jose';
import { beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import {
  OAuthError,
  startMockIdp,
  TokenFlowError,
  type MintRequest,
  type MockIdpOptions,
  type RequestFilter,
  type TokenFlowRequest,
} from '../../src/index.js';
import {
  authorize,
  BATCH_JOB,
  DEFAULT_FIXTURES,
  exchangeCode,
  PAYMENTS_API,
  WEB_APP,
} from '../helpers/bundled.js';
import { call, postForm } from '../helpers/http.js';
import { endpointsOf, useIdp, Y2030 } from '../helpers/server.js';

const idp = useIdp({ fixtures: DEFAULT_FIXTURES, clock: Y2030, frozen: true, seed: 'mint' });
let base: string;
let jwks: ReturnType<typeof createRemoteJWKSet>;
const at2030 = { currentDate: new Date(Y2030 * 1000) };

beforeAll(() => {
  base = idp.issuer;
  jwks = createRemoteJWKSet(new URL(endpointsOf(base).certs));
});

const mint = (body: unknown) => call('POST', `${base}/mock/tokens`, body);

describe('token types', () => {
  it.each([
    ['access', 'RS256', 'Bearer', 'payments-api'],
    ['id', 'RS256', 'ID', 'web-app'],
    ['proof', 'RS256', 'Proof', 'web-app'],
    ['refresh', 'HS256', 'Refresh', undefined],
  ] as const)('%s: alg %s, typ %s, the realm lifespan, a session', async (type, alg, typ, aud) => {
    const answer = await mint({ type, client: 'web-app', user: 'alice' });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    const { token, header, claims } = answer.json as {
      token: string;
      header: object;
      claims: Record<string, unknown>;
    };
    expect(header).toEqual(decodeProtectedHeader(token));
    expect(claims).toEqual(decodeJwt(token));
    expect(header).toMatchObject({ alg, typ: 'JWT' });
    expect(claims).toMatchObject({
      typ,
      iss: base,
      azp: 'web-app',
      sub: '0b7c7f6e-1c2d-4a5b-9c8d-112233445566',
      iat: Y2030,
      exp: Y2030 + (type === 'refresh' ? 1800 : 300),
    });
    expect(claims).not.toHaveProperty('nbf');
    if (aud !== undefined) {
      const { payload } = await jwtVerify(token, jwks, { issuer: base, audience: aud, ...at2030 });
      expect(payload).toEqual(claims);
    }
    const sessions = await call('GET', `${base}/mock/sessions`);
    expect(sessions.json['sessions']).toContainEqual(
      expect.objectContaining({ id: claims['sid'], clientId: 'web-app', username: 'alice' }),
    );
  });

  it('idp.mint types the registered claims and the header (a TypeScript user reads exp as a number)', async () => {
    const minted = await idp.mint({ type: 'access', client: 'web-app', user: 'alice' });
    expectTypeOf(minted.claims.exp).toEqualTypeOf<number | undefined>();
    expectTypeOf(minted.claims.aud).toEqualTypeOf<string | string[] | undefined>();
    expectTypeOf(minted.header.alg).toEqualTypeOf<string>();
    const secondsLeft: number = (minted.claims.exp ?? 0) - Y2030;
    expect(secondsLeft).toBe(300);
    expect(minted.header.alg).toBe('RS256');
  });

  it('builds the same claims as the real code flow (only ids differ)', async () => {
    const scope = 'openid profile payments.read';
    const real = await exchangeCode(base, (await authorize(base, 'alice', scope, null)).code);
    const realClaims = decodeJwt(String(real.json['access_token']));
    const minted = await mint({ type: 'access', client: 'web-app', user: 'alice', scope });
    const claims = minted.json['claims'] as Record<string, unknown>;
    const ids = { jti: expect.any(String), sid: expect.any(String), session_state: expect.any(String) };
    expect(Object.keys(claims)).toEqual(Object.keys(realClaims));
    expect({ ...claims, ...ids }).toEqual({ ...realClaims, ...ids });
    expect(minted.json['header']).toEqual(decodeProtectedHeader(String(real.json['access_token'])));
  });

  it("without user, the subject is the client's service account", async () => {
    const { json } = await mint({ type: 'access', client: 'batch-job' });
    expect(json['claims']).toMatchObject({
      azp: 'batch-job',
      client_id: 'batch-job',
      preferred_username: 'service-account-batch-job',
      scope: 'payments.read payments.write',
      realm_access: { roles: ['batch'] },
    });
  });

  it('a minted access token is active at introspection and userinfo', async () => {
    const { json } = await mint({ type: 'access', client: 'web-app', user: 'alice' });
    const token = String(json['token']);
    const introspected = await postForm(endpointsOf(base).introspect, { token }, PAYMENTS_API);
    expect(introspected.json).toMatchObject({ active: true, username: 'alice', client_id: 'web-app' });
    const userinfo = await fetch(`${endpointsOf(base).userinfo}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(await userinfo.json()).toMatchObject({
      sub: '0b7c7f6e-1c2d-4a5b-9c8d-112233445566',
      name: 'Alice Nordmann',
    });
  });

  it.each([
    ['a user', { client: 'web-app', user: 'bob' }, WEB_APP, 'bob'],
    ['a service account', { client: 'batch-job' }, BATCH_JOB, 'service-account-batch-job'],
  ])('a minted refresh token for %s works at the token endpoint', async (_what, who, auth, username) => {
    const { json } = await mint({ type: 'refresh', ...who });
    const refreshed = await postForm(
      endpointsOf(base).token,
      { grant_type: 'refresh_token', refresh_token: String(json['token']) },
      auth,
    );
    expect(refreshed.status, refreshed.text).toBe(200);
    expect(decodeJwt(String(refreshed.json['access_token']))).toMatchObject({ preferred_username: username });
  });
});

describe('claims, header and times', () => {
  it('claims override and null removes; header overrides and null removes', async () => {
    const { json } = await mint({
      type: 'access',
      client: 'web-app',
      user: 'alice',
      claims: { aud: ['other-api', 'payments-api'], custom: { a: 1 }, acr: null, name: null },
      header: { kid: null, typ: 'at+jwt', x5t: 'abc' },
    });
    expect(json['claims']).toMatchObject({ aud: ['other-api', 'payments-api'], custom: { a: 1 } });
    expect(json['claims']).not.toHaveProperty('acr');
    expect(json['claims']).not.toHaveProperty('name');
    expect(json['header']).toEqual({ alg: 'RS256', typ: 'at+jwt', x5t: 'abc' });
  });

  it.each([
    ['expiresIn -60 = already expired', { expiresIn: -60 }, { iat: Y2030, exp: Y2030 - 60 }],
    ['expiresIn 10', { expiresIn: 10 }, { iat: Y2030, exp: Y2030 + 10 }],
    ['issuedAt as ISO-8601', { issuedAt: '2029-12-31T23:00:00Z' }, { iat: Y2030 - 3600, exp: Y2030 - 3300 }],
    ['issuedAt as epoch seconds', { issuedAt: Y2030 - 100 }, { iat: Y2030 - 100, exp: Y2030 + 200 }],
    ['notBefore in the future', { notBefore: Y2030 + 600 }, { iat: Y2030, nbf: Y2030 + 600 }],
    ['notBefore as ISO-8601', { notBefore: '2030-01-01T01:00:00Z' }, { nbf: Y2030 + 3600 }],
  ])('%s', async (_name, times, expected) => {
    const { status, json } = await mint({ type: 'access', client: 'web-app', user: 'alice', ...times });
    expect(status).toBe(200);
    expect(json['claims']).toMatchObject(expected);
    if ('nbf' in expected)
      expect(Object.keys(json['claims'] as object).slice(0, 3)).toEqual(['exp', 'iat', 'nbf']);
  });

  it('verifiers reject the expired and the not-yet-valid token, by the clock', async () => {
    const expired = await mint({ type: 'access', client: 'web-app', user: 'alice', expiresIn: -60 });
    await expect(jwtVerify(String(expired.json['token']), jwks, at2030)).rejects.toBeInstanceOf(
      errors.JWTExpired,
    );
    const early = await mint({ type: 'access', client: 'web-app', user: 'alice', notBefore: Y2030 + 600 });
    await expect(jwtVerify(String(early.json['token']), jwks, at2030)).rejects.toMatchObject({
      claim: 'nbf',
    });
  });
});

describe('signatures', () => {
  it('invalid: well formed, same header and payload encoding, wrong signature bytes', async () => {
    const { json } = await mint({ type: 'access', client: 'web-app', user: 'alice', signature: 'invalid' });
    const token = String(json['token']);
    const parts = token.split('.');
    expect(parts).toHaveLength(3);
    expect(Buffer.from(parts[2] ?? '', 'base64url')).toHaveLength(256);
    expect(json['header']).toMatchObject({ alg: 'RS256', kid: idp.provider.keys.active.kid });
    await expect(jwtVerify(token, jwks, at2030)).rejects.toBeInstanceOf(
      errors.JWSSignatureVerificationFailed,
    );
    const introspected = await postForm(endpointsOf(base).introspect, { token }, PAYMENTS_API);
    expect(introspected.json).toEqual({ active: false });
  });

  it('none: alg none, an empty signature', async () => {
    const { json } = await mint({ type: 'id', client: 'web-app', user: 'alice', signature: 'none' });
    const token = String(json['token']);
    expect(token.endsWith('.')).toBe(true);
    expect(json['header']).toMatchObject({ alg: 'none', typ: 'JWT' });
    expect(UnsecuredJWT.decode(token, at2030).payload).toEqual(json['claims']);
    await expect(jwtVerify(token, jwks, at2030)).rejects.toBeInstanceOf(errors.JOSENotSupported);
  });

  it('unknown-key: signed by one key that is not in the JWKS', async () => {
    const first = await mint({ type: 'access', client: 'web-app', user: 'alice', signature: 'unknown-key' });
    const second = await idp.mint({
      type: 'proof',
      client: 'web-app',
      user: 'alice',
      signature: 'unknown-key',
    });
    const kid = (first.json['header'] as { kid: string }).kid;
    expect(second.header['kid']).toBe(kid);
    const published = (await call('GET', endpointsOf(base).certs)).json as unknown as JSONWebKeySet;
    expect(published.keys.map((k) => k.kid)).not.toContain(kid);
    await expect(
      jwtVerify(String(first.json['token']), createLocalJWKSet(published), at2030),
    ).rejects.toBeInstanceOf(errors.JWKSNoMatchingKey);
  });

  it.each(['invalid', 'none', 'unknown-key'])(
    'a refresh token with signature %s is refused at the token endpoint',
    async (signature) => {
      const { json } = await mint({ type: 'refresh', client: 'web-app', user: 'alice', signature });
      const refreshed = await postForm(
        endpointsOf(base).token,
        { grant_type: 'refresh_token', refresh_token: String(json['token']) },
        WEB_APP,
      );
      expect(refreshed.status).toBe(400);
      expect(refreshed.json['error']).toBe('invalid_grant');
    },
  );
});

describe('bad requests answer 400 invalid_request', () => {
  it.each([
    ['unknown client', { type: 'access', client: 'nope' }, /Unknown client "nope" \(clients: web-app/],
    ['unknown user', { type: 'access', client: 'web-app', user: 'zed' }, /Unknown user "zed"/],
    ['unknown type', { type: 'saml', client: 'web-app' }, /type: Invalid option/],
    ['missing client', { type: 'access' }, /missing required field "client"/],
    ['unknown scope', { type: 'access', client: 'web-app', scope: 'openid nope' }, /Unknown scope nope/],
    ['unknown field', { type: 'access', client: 'web-app', expires_in: 5 }, /unknown field "expires_in"/],
    [
      'a mistyped field',
      { type: 'access', client: 'web-app', expiresin: 5 },
      /^Invalid mint request: unknown field "expiresin" \(did you mean "expiresIn"\?\)$/,
    ],
    ['fractional expiresIn', { type: 'access', client: 'web-app', expiresIn: 1.5 }, /expiresIn: /],
    [
      'bad issuedAt',
      { type: 'access', client: 'web-app', issuedAt: 'yesterday' },
      /issuedAt: expected an ISO-8601/,
    ],
    [
      'bad signature kind',
      { type: 'access', client: 'web-app', signature: 'broken' },
      /signature: Invalid option/,
    ],
    [
      'header alg',
      { type: 'access', client: 'web-app', header: { alg: 'HS256' } },
      /header\.alg cannot be set/,
    ],
    ['claims not an object', { type: 'access', client: 'web-app', claims: [1] }, /claims: /],
    ['not an object', [1, 2], /Invalid mint request/],
  ])('%s', async (_name, body, description) => {
    const answer = await mint(body);
    expect(answer.status).toBe(400);
    expect(answer.json['error']).toBe('invalid_request');
    expect(String(answer.json['error_description'])).toMatch(description);
  });

  it('a body that is not JSON', async () => {
    const answer = await fetch(`${base}/mock/tokens`, { method: 'POST', body: 'type=access&client=web-app' });
    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({ error: 'invalid_request' });
  });

  it('idp.mint() rejects with an OAuthError', async () => {
    await expect(idp.mint({ type: 'access', client: 'nope' })).rejects.toBeInstanceOf(OAuthError);
    await expect(idp.mint({ type: 'access', client: 'nope' })).rejects.toMatchObject({
      error: 'invalid_request',
      status: 400,
    });
  });
});

describe('the library refuses names it does not know, with "did you mean"', () => {
  it.each([
    [{ fixturez: 'f.yaml' }, 'startMockIdp: unknown option "fixturez" (did you mean "fixtures"?)'],
    [
      { prot: 0, colour: 'blue' },
      'startMockIdp: unknown option "prot" (did you mean "port"?); unknown option "colour"',
    ],
  ])('startMockIdp(%j) rejects before listening', async (options, message) => {
    const started = startMockIdp(options as MockIdpOptions);
    await expect(started).rejects.toThrow(TypeError);
    await expect(started).rejects.toThrow(new RegExp(`^${message.replace(/[()?]/g, '\\$&')}$`));
  });

  it.each<[string, unknown, string]>([
    ['a typo', { client: 'web-app', usr: 'alice' }, 'idp.token: unknown option "usr" (did you mean "user"?)'],
    ['no client', {}, 'idp.token: "client" is required: the id of a client of the fixtures'],
    [
      'a user that is not text',
      { client: 'web-app', user: 7 },
      'idp.token: "user" must be a string (got number)',
    ],
    ['not an object', 'web-app', 'idp.token: expected { client, user?, scope?, secret?, dpop? }'],
  ])('idp.token() with %s rejects with a TypeError', async (_name, request, message) => {
    const answer = idp.token(request as TokenFlowRequest);
    await expect(answer).rejects.toBeInstanceOf(TypeError);
    await expect(answer).rejects.toThrow(message);
  });

  it('idp.token() for a client the fixtures lack names the ones they have', async () => {
    const answer = idp.token({ client: 'web-ap' });
    await expect(answer).rejects.toBeInstanceOf(TokenFlowError);
    await expect(answer).rejects.toThrow(
      /^unknown client "web-ap" \(did you mean "web-app"\?\) \(clients: .*web-app/,
    );
  });

  it('idp.requests({ endpont }) throws naming endpoint, as GET /mock/requests answers', () => {
    expect(() => idp.requests({ endpont: 'token' } as RequestFilter)).toThrow(
      expect.objectContaining({
        error: 'invalid_request',
        description: expect.stringMatching(/^Unknown filter "endpont" \(did you mean "endpoint"\?\)/),
      }),
    );
    expect(idp.requests({ endpoint: 'token', limit: 1, since: new Date(0), status: '2xx' })).toHaveLength(1);
  });

  it.each<[unknown, string]>([
    ['abc', 'clock.advance: seconds must be a number (got "abc")'],
    ['5', 'clock.advance: seconds must be a number (got "5")'],
    [Number.NaN, 'clock.advance: seconds must be a number (got NaN)'],
  ])('idp.clock.advance(%s) throws a TypeError and leaves the clock', (seconds, message) => {
    const before = idp.clock.nowMs();
    expect(() => idp.clock.advance(seconds as number)).toThrow(new TypeError(message));
    expect(idp.clock.nowMs()).toBe(before);
  });

  it.each([
    [{ tokn: 'eyJ' }, /^Invalid verify request: .*unknown field "tokn" \(did you mean "token"\?\)/],
    [{ tok: 'eyJ' }, /^Invalid verify request: unknown field "tok"; missing required field "token"$/],
    [{ token: 7 }, /^Invalid verify request: token: /],
  ])('POST /mock/tokens/verify %j is a 400 naming the field', async (body, description) => {
    const answer = await call('POST', `${base}/mock/tokens/verify`, body);
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ error: 'invalid_request', error_description: description });
  });

  it('idp.mint({ expiresin }) rejects naming expiresIn', async () => {
    const minted = idp.mint({ type: 'access', client: 'web-app', expiresin: 60 } as MintRequest);
    await expect(minted).rejects.toBeInstanceOf(OAuthError);
    await expect(minted).rejects.toMatchObject({
      error: 'invalid_request',
      description: 'Invalid mint request: unknown field "expiresin" (did you mean "expiresIn"?)',
    });
  });
});
