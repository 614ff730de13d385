// Pushed authorization requests (RFC 9126) over HTTP: openid-client 6 pushes and runs the code flow; the
// answer's shape; every refusal of the push and of authorize; single use, expiry, requirePar, the login
// page, faults, and two servers on one Redis.
import {
  CompactEncrypt,
  createRemoteJWKSet,
  exportJWK,
  generateKeyPair,
  importJWK,
  jwtVerify,
  SignJWT,
  UnsecuredJWT,
  type JWK,
} from 'jose';
import * as client from 'openid-client';
import { describe, expect, it } from 'vitest';
import type { FixturesInput } from '../../src/fixtures/schema.js';
import { expectOAuthError } from '../helpers/assert.js';
import { basic, get, postForm, type Answer } from '../helpers/http.js';
import { ASSERTION_TYPE, clientAssertion } from '../helpers/jwt.js';
import { codeFlow } from '../helpers/openid-client.js';
import { SKIP_REDIS, useRedis } from '../helpers/redis.js';
import { startIdp, useIdp, useStarted, type TestIdp } from '../helpers/server.js';

const CB = 'http://app.test/cb';
const SPA_CB = 'http://spa.test/cb';
const WEB = basic('web', 'web-secret');
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
const URN =
  /^urn:ietf:params:oauth:request_uri:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const signer = await generateKeyPair('RS256');
const signerJwk = {
  ...(await exportJWK(signer.publicKey)),
  kty: 'RSA',
  kid: 'signer-key',
  alg: 'RS256',
  use: 'sig',
};

const fixtures = (): FixturesInput => ({
  realm: 'par',
  clients: {
    web: { secret: 'web-secret', redirectUris: [CB] },
    other: { secret: 'other-secret', redirectUris: [CB] },
    spa: { authMethods: ['none'], redirectUris: [SPA_CB], pkce: 'required' },
    strict: { secret: 'strict-secret', redirectUris: [CB], requirePar: true },
    signer: { authMethods: ['private_key_jwt'], jwks: { keys: [signerJwk] }, redirectUris: [CB] },
  },
  users: { alice: { claims: { name: 'Alice Aas' } }, bob: {} },
});

const idp = useIdp(() => ({ fixtures: fixtures() }));
const parUrl = (i: TestIdp = idp): string => i.endpoints.par;

/** The code flow's usual parameters for the web client. */
const AUTHORIZE = { response_type: 'code', redirect_uri: CB, scope: 'openid', state: 'st-1' };

/** Pushes `body`; `authorization` null sends no Authorization header (a public client, or none at all). */
function push(
  body: Record<string, string>,
  authorization: string | null = WEB,
  i: TestIdp = idp,
): Promise<Answer> {
  return postForm(parUrl(i), body, authorization !== null ? { authorization } : {});
}

/** Pushes, expects 201, returns the request_uri. */
async function pushed(
  body: Record<string, string>,
  authorization: string | null = WEB,
  i: TestIdp = idp,
): Promise<string> {
  const answer = await push(body, authorization, i);
  expect(answer.status, answer.text).toBe(201);
  return String(answer.json['request_uri']);
}

/** Authorize with client_id and request_uri only, as a browser is sent there. */
function authorize(clientId: string, requestUri: string, i: TestIdp = idp): Promise<Response> {
  const query = new URLSearchParams({ client_id: clientId, request_uri: requestUri });
  return fetch(`${i.endpoints.auth}?${query}`, { redirect: 'manual' });
}

/** The redirect's query parameters; expects a 302 to the callback. */
async function redirected(response: Response, to = CB): Promise<URLSearchParams> {
  expect(response.status, await response.text()).toBe(302);
  const location = new URL(response.headers.get('location') as string);
  expect(`${location.origin}${location.pathname}`).toBe(to);
  return location.searchParams;
}

/** The error page's status and message. */
async function errorPage(response: Response): Promise<{ status: number; message: string }> {
  const text = await response.text();
  const html = /<p class="error" id="error">([^<]*)</.exec(text)?.[1] ?? text;
  const message = html.replace(/&#(\d+);/g, (_s, n: string) => String.fromCharCode(Number(n)));
  return { status: response.status, message };
}

describe('pushed authorization requests', () => {
  it('openid-client buildAuthorizationUrlWithPAR, then the code flow to tokens a client verifies', async () => {
    const config = await client.discovery(
      new URL(idp.issuer),
      'web',
      {},
      client.ClientSecretBasic('web-secret'),
      { execute: [client.allowInsecureRequests] },
    );
    expect(config.serverMetadata()).toMatchObject({
      pushed_authorization_request_endpoint: parUrl(),
      require_pushed_authorization_requests: false,
    });
    const nonce = client.randomNonce();
    const tokens = await codeFlow(
      config,
      { redirect_uri: CB, scope: 'openid profile', nonce, state: 'st-par', login_hint: 'alice' },
      {
        build: async (c, params) => {
          const url = await client.buildAuthorizationUrlWithPAR(c, params);
          // The browser carries only the client and the reference: everything else was pushed.
          expect([...url.searchParams.keys()].sort()).toEqual(['client_id', 'request_uri']);
          expect(url.searchParams.get('request_uri')).toMatch(URN);
          return url;
        },
      },
    );
    expect(tokens.claims()).toMatchObject({ iss: idp.issuer, aud: 'web', nonce, name: 'Alice Aas' });
    const jwks = createRemoteJWKSet(new URL(idp.endpoints.certs));
    const { payload } = await jwtVerify(tokens.access_token, jwks, { issuer: idp.issuer });
    expect(payload['azp']).toBe('web');
  });

  it('answers 201 with a urn request_uri that lives 60 s, not to be stored', async () => {
    const answer = await push({ ...AUTHORIZE, login_hint: 'alice' });
    expect(answer.status).toBe(201);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(Object.keys(answer.json).sort()).toEqual(['expires_in', 'request_uri']);
    expect(answer.json['request_uri']).toMatch(URN);
    expect(answer.json['expires_in']).toBe(60);
  });

  it('authorize uses only the pushed parameters: the query cannot change them', async () => {
    const uri = await pushed({ ...AUTHORIZE, login_hint: 'alice', state: 'pushed-state' });
    const query = new URLSearchParams({
      client_id: 'web',
      request_uri: uri,
      state: 'query-state',
      login_hint: 'bob',
      redirect_uri: 'http://evil.test/cb',
    });
    const params = await redirected(await fetch(`${idp.endpoints.auth}?${query}`, { redirect: 'manual' }));
    expect(params.get('state')).toBe('pushed-state');
    expect(params.get('code')).toBeTruthy();
    expect(idp.requests({ endpoint: 'auth' }).at(-1)).toMatchObject({ user: 'alice', client: 'web' });
  });

  it('a request object inside the push: its parameters are the request', async () => {
    const request = new UnsecuredJWT({
      ...AUTHORIZE,
      client_id: 'web',
      login_hint: 'alice',
      state: 'from-jwt',
    })
      .setIssuer('web')
      .setAudience(idp.issuer)
      .encode();
    const uri = await pushed({ client_id: 'web', request });
    const params = await redirected(await authorize('web', uri));
    expect(params.get('state')).toBe('from-jwt');
    expect(params.get('code')).toBeTruthy();
  });

  it('a public client pushes with its client_id, and its PKCE rule holds', async () => {
    const body = { ...AUTHORIZE, redirect_uri: SPA_CB, client_id: 'spa', login_hint: 'alice' };
    const uri = await pushed({ ...body, code_challenge: CHALLENGE, code_challenge_method: 'S256' }, null);
    expect((await redirected(await authorize('spa', uri), SPA_CB)).get('code')).toBeTruthy();
  });

  it('private_key_jwt: an assertion naming the push endpoint authenticates the push', async () => {
    const assertion = await clientAssertion(idp, {
      clientId: 'signer',
      audience: parUrl(),
      key: signer.privateKey,
      kid: 'signer-key',
    });
    const body = {
      ...AUTHORIZE,
      login_hint: 'alice',
      client_id: 'signer',
      client_assertion_type: ASSERTION_TYPE,
      client_assertion: assertion,
    };
    const uri = await pushed(body, null);
    expect((await redirected(await authorize('signer', uri))).get('code')).toBeTruthy();
    // The same assertion again is a replay, refused as the token endpoint refuses it.
    const replay = await push(body, null);
    expectOAuthError(replay, 401, 'unauthorized_client');
    expect(replay.json['error_description']).toBe(
      'Invalid client assertion: jti was already used (assertions are single-use)',
    );
  });

  describe('an encrypted request object (JWE to the realm key from /certs) inside the push', () => {
    /** The signer client's push body: a fresh private_key_jwt assertion naming the push endpoint and `request`. */
    const signerPush = async (request: string): Promise<Record<string, string>> => ({
      client_id: 'signer',
      client_assertion_type: ASSERTION_TYPE,
      client_assertion: await clientAssertion(idp, {
        clientId: 'signer',
        audience: parUrl(),
        key: signer.privateKey,
        kid: 'signer-key',
      }),
      request,
    });
    /** A request object signed RS256 by the signer client, encrypted RSA-OAEP-256 + A256GCM to `key`. */
    const encrypted = async (key: JWK, kid: string | undefined): Promise<string> => {
      const signed = await new SignJWT({
        ...AUTHORIZE,
        client_id: 'signer',
        login_hint: 'alice',
        state: 'from-jwe',
      })
        .setProtectedHeader({ alg: 'RS256', kid: 'signer-key' })
        .setIssuer('signer')
        .setAudience(idp.issuer)
        .setIssuedAt()
        .setExpirationTime('1m')
        .sign(signer.privateKey);
      return new CompactEncrypt(new TextEncoder().encode(signed))
        .setProtectedHeader({ alg: 'RSA-OAEP-256', enc: 'A256GCM', cty: 'JWT', ...(kid ? { kid } : {}) })
        .encrypt(await importJWK({ ...key, alg: 'RSA-OAEP-256' }, 'RSA-OAEP-256'));
    };
    const realmKey = async (): Promise<JWK> =>
      (await get<{ keys: JWK[] }>(idp.endpoints.certs)).json.keys.find((k) => k.use === 'enc') as JWK;

    it('is decrypted at the push: 201 with a request_uri, and authorize with it gives a code', async () => {
      const key = await realmKey();
      const answer = await push(await signerPush(await encrypted(key, key.kid)), null);
      expect(answer.status, answer.text).toBe(201);
      expect(answer.json['request_uri']).toMatch(URN);
      const params = await redirected(await authorize('signer', String(answer.json['request_uri'])));
      expect(params.get('state')).toBe('from-jwe');
      expect(params.get('code')).toBeTruthy();
      expect(idp.requests({ endpoint: 'auth' }).at(-1)).toMatchObject({ user: 'alice', client: 'signer' });
    });

    it('one encrypted to another key is refused at the push with invalid_request_object', async () => {
      const other = await generateKeyPair('RSA-OAEP-256', { extractable: true });
      const answer = await push(
        await signerPush(await encrypted(await exportJWK(other.publicKey), undefined)),
        null,
      );
      expectOAuthError(answer, 400, 'invalid_request_object');
      expect(answer.json['error_description']).toBe(
        'Invalid request object: cannot be decrypted: decryption failed (another key, or altered)',
      );
      expect(idp.requests({ endpoint: 'par' }).at(-1)).toMatchObject({
        status: 400,
        error: 'invalid_request_object',
        client: 'signer',
      });
    });
  });

  it('a request_uri is used once: the replay is refused with invalid_request_uri', async () => {
    const uri = await pushed({ ...AUTHORIZE, login_hint: 'alice' });
    expect((await redirected(await authorize('web', uri))).get('code')).toBeTruthy();
    expect(await errorPage(await authorize('web', uri))).toEqual({
      status: 400,
      message: 'Invalid request_uri: not issued, or already used',
    });
    expect(idp.requests({ endpoint: 'auth' }).at(-1)).toMatchObject({
      status: 400,
      error: 'invalid_request_uri',
    });
  });

  it('a request_uri expires after 60 s on the mock clock', async () => {
    // Frozen on a whole second: a running clock could cross a second boundary between the
    // push and the check (expiry is in whole seconds) and make the 59-s request look expired.
    const start = new Date('2030-01-01T00:00:00Z').getTime();
    idp.clock.set({ now: new Date(start), frozen: true });
    try {
      const late = await pushed({ ...AUTHORIZE, login_hint: 'alice' });
      const inTime = await pushed({ ...AUTHORIZE, login_hint: 'alice' });
      idp.clock.set({ now: new Date(start + 59_999), frozen: true });
      expect((await redirected(await authorize('web', inTime))).get('code')).toBeTruthy();
      idp.clock.set({ now: new Date(start + 60_000), frozen: true });
      expect(await errorPage(await authorize('web', late))).toEqual({
        status: 400,
        message: 'Invalid request_uri: expired',
      });
    } finally {
      idp.clock.reset();
    }
  });

  it.each([
    ['another client', true, 'other', 'Invalid request_uri: not issued to client "other"'],
    ['one never issued', false, 'web', 'Invalid request_uri: not issued, or already used'],
  ])('authorize refuses the request_uri of %s', async (_what, issued, clientId, message) => {
    const uri = issued
      ? await pushed({ ...AUTHORIZE, login_hint: 'alice' })
      : 'urn:ietf:params:oauth:request_uri:00000000-0000-4000-8000-000000000000';
    expect(await errorPage(await authorize(clientId, uri))).toEqual({ status: 400, message });
  });

  it.each<[string, Record<string, string>, string | null, number, string, string | RegExp]>([
    [
      'no client authentication',
      AUTHORIZE,
      null,
      401,
      'invalid_client',
      'Missing client authentication: send client credentials (Basic, client_secret, or client_assertion)',
    ],
    [
      'an unknown client',
      AUTHORIZE,
      basic('nobody', 'x'),
      401,
      'invalid_client',
      'Invalid client or Invalid client credentials',
    ],
    [
      'a wrong secret',
      AUTHORIZE,
      basic('web', 'wrong'),
      401,
      'unauthorized_client',
      'Invalid client or Invalid client credentials',
    ],
    [
      'a request_uri inside the push',
      { ...AUTHORIZE, request_uri: 'urn:ietf:params:oauth:request_uri:x' },
      WEB,
      400,
      'invalid_request',
      'Invalid parameter: request_uri is not allowed in a pushed authorization request',
    ],
    [
      'a client_id other than the authenticated one',
      { ...AUTHORIZE, client_id: 'other' },
      WEB,
      400,
      'invalid_request',
      'client_id in the body differs from the Authorization header',
    ],
    [
      'no redirect_uri',
      { response_type: 'code', scope: 'openid' },
      WEB,
      400,
      'invalid_request',
      'Missing parameter: redirect_uri',
    ],
    [
      'an unregistered redirect_uri',
      { ...AUTHORIZE, redirect_uri: 'http://evil.test/cb' },
      WEB,
      400,
      'invalid_request',
      'Invalid parameter: redirect_uri "http://evil.test/cb" is not registered for client "web"',
    ],
    [
      'no response_type',
      { redirect_uri: CB, scope: 'openid' },
      WEB,
      400,
      'invalid_request',
      'Missing parameter: response_type',
    ],
    [
      'an unsupported response_type',
      { ...AUTHORIZE, response_type: 'code foo' },
      WEB,
      400,
      'unsupported_response_type',
      'Unsupported response_type "code foo" (supported: code, none, id_token, token, id_token token, code id_token, code token, code id_token token)',
    ],
    [
      'a response_type the client may not use',
      { ...AUTHORIZE, response_type: 'token', nonce: 'n' },
      WEB,
      400,
      'unauthorized_client',
      'Client "web" is not allowed the implicit grant (response_type token)',
    ],
    [
      'an unknown scope',
      { ...AUTHORIZE, scope: 'openid no-such-scope' },
      WEB,
      400,
      'invalid_scope',
      // The rest lists the realm's scopes.
      /^Invalid scopes: no-such-scope \(client "web" may request: openid /,
    ],
    [
      'a malformed code_challenge',
      { ...AUTHORIZE, code_challenge: 'short', code_challenge_method: 'S256' },
      WEB,
      400,
      'invalid_request',
      'Invalid parameter: code_challenge (43 to 128 characters of A-Z, a-z, 0-9 and -._~; got 5)',
    ],
    [
      'no PKCE from a client that requires it',
      { ...AUTHORIZE, redirect_uri: SPA_CB, client_id: 'spa' },
      null,
      400,
      'invalid_request',
      'Missing parameter: code_challenge_method (client "spa" requires PKCE)',
    ],
    [
      'plain PKCE from a client that requires S256',
      { ...AUTHORIZE, redirect_uri: SPA_CB, client_id: 'spa', code_challenge: CHALLENGE },
      null,
      400,
      'invalid_request',
      'Invalid parameter: code_challenge_method (client "spa" requires S256)',
    ],
    [
      'a request object that is not a JWT',
      { client_id: 'web', request: 'not-a-jwt' },
      WEB,
      400,
      'invalid_request_object',
      'Invalid request object: not a JWT',
    ],
    [
      'a bad prompt',
      { ...AUTHORIZE, prompt: 'sometimes' },
      WEB,
      400,
      'invalid_request',
      'Invalid parameter: prompt "sometimes" (none, login, consent or select_account)',
    ],
  ])('the push refuses %s', async (_what, body, authorization, status, error, description) => {
    const answer = await push(body, authorization);
    expectOAuthError(answer, status, error);
    if (typeof description === 'string') expect(answer.json['error_description']).toBe(description);
    else expect(answer.json['error_description']).toMatch(description);
  });

  it('the push is POST only', async () => {
    const answer = await get(parUrl());
    expectOAuthError(answer, 405, 'invalid_request');
    expect(answer.headers.get('allow')).toBe('POST');
  });

  it('requirePar: authorize without a pushed request is refused with invalid_request, with one it signs in', async () => {
    const query = new URLSearchParams({ ...AUTHORIZE, client_id: 'strict', login_hint: 'alice' });
    const refused = await redirected(await fetch(`${idp.endpoints.auth}?${query}`, { redirect: 'manual' }));
    expect(Object.fromEntries(refused)).toEqual({
      error: 'invalid_request',
      error_description: 'Client "strict" requires a pushed authorization request (PAR)',
      state: 'st-1',
      iss: idp.issuer,
    });
    const uri = await pushed({ ...AUTHORIZE, login_hint: 'alice' }, basic('strict', 'strict-secret'));
    expect((await redirected(await authorize('strict', uri))).get('code')).toBeTruthy();
  });

  it('the login page of a pushed request posts back a new request_uri, and signs in the chosen user', async () => {
    const uri = await pushed(AUTHORIZE, basic('strict', 'strict-secret'));
    const page = await authorize('strict', uri);
    expect(page.status).toBe(200);
    const html = await page.text();
    const hidden = [...html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)].map(
      (m) => [m[1], m[2]] as [string, string],
    );
    expect(hidden.map(([name]) => name)).toEqual(['client_id', 'request_uri']);
    const next = hidden[1]?.[1] as string;
    expect(next).toMatch(URN);
    expect(next).not.toBe(uri);
    const posted = await postForm(idp.endpoints.auth, [...hidden, ['login_hint', 'bob']]);
    expect(posted.status, posted.text).toBe(302);
    const callback = new URL(posted.headers.get('location') as string);
    expect(callback.searchParams.get('code')).toBeTruthy();
    expect(callback.searchParams.get('state')).toBe('st-1');
    expect(idp.requests({ endpoint: 'auth' }).at(-1)).toMatchObject({ user: 'bob', client: 'strict' });
    expect((await errorPage(await authorize('strict', uri))).status).toBe(400);
  });

  it('the journal names the endpoint par, and faults can target it', async () => {
    await pushed({ ...AUTHORIZE });
    expect(idp.requests({ endpoint: 'par' }).at(-1)).toMatchObject({
      method: 'POST',
      status: 201,
      client: 'web',
    });
    const fault = await fetch(`${idp.issuer}/mock/faults`, {
      method: 'POST',
      body: JSON.stringify({ endpoint: 'par', status: 503, count: 1 }),
    });
    expect(fault.status).toBe(201);
    expectOAuthError(await push(AUTHORIZE), 503, 'temporarily_unavailable');
    expect((await push(AUTHORIZE)).status).toBe(201);
  });
});

describe.skipIf(SKIP_REDIS)('pushed authorization requests on one Redis', () => {
  const redis = useRedis();
  const pair = useStarted(
    'two servers',
    async () => {
      const options = { fixtures: fixtures(), store: redis.url };
      return { a: await startIdp(options), b: await startIdp(options) };
    },
    async ({ a, b }) => Promise.all([a.close(), b.close()]),
  );

  it('pushed at one server, used at the other, once', async () => {
    const { a, b } = pair;
    const uri = await pushed({ ...AUTHORIZE, login_hint: 'alice' }, WEB, a);
    expect((await redirected(await authorize('web', uri, b))).get('code')).toBeTruthy();
    expect(await errorPage(await authorize('web', uri, a))).toEqual({
      status: 400,
      message: 'Invalid request_uri: not issued, or already used',
    });
  });
});
