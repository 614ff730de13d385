// Dynamic client registration over HTTP (RFC 7591, read and delete of RFC 7592): the answer, the new client
// in every flow, the registration access token, replacement of the fixtures, and every bad input.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  decodeProtectedHeader,
  exportJWK,
  generateKeyPair,
  SignJWT,
  UnsecuredJWT,
  type CryptoKey,
} from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import { PATHS } from '../../src/realm/paths.js';
import { expectNoStack, expectOAuthError } from '../helpers/assert.js';
import { tempDir } from '../helpers/files.js';
import { basic, postForm, readAnswer, type Answer } from '../helpers/http.js';
import { ASSERTION_TYPE, clientAssertion, s256, verifyToken } from '../helpers/jwt.js';
import {
  FJORD_FIXTURES,
  startIdp,
  useIdp,
  VAULT_SIGNER_KEY,
  Y2030,
  type TestIdp,
} from '../helpers/server.js';

const CB = 'http://rp.example.test/cb';
const VERIFIER = 'M25iVXpKU3puUjFaYWg3T1NDTDQtcW1ROUY5YXlwalNoc0hhakxifmZHag';
/** vault-signer's public key (its private half signs the client assertions), registered as another client's. */
const VAULT_JWKS = (() => {
  const { kty, n, e, kid } = JSON.parse(readFileSync(VAULT_SIGNER_KEY, 'utf8')) as Record<string, string>;
  return { keys: [{ kty, n, e, kid }] };
})();

interface Registered {
  client_id: string;
  client_secret?: string;
  client_secret_expires_at?: number;
  client_id_issued_at: number;
  registration_access_token: string;
  registration_client_uri: string;
  [field: string]: unknown;
}

const idp = useIdp();

const endpoint = (i: TestIdp = idp): string => `${i.issuer}${PATHS.registration}`;

async function register<T = Registered>(
  body: unknown,
  options: { contentType?: string | null; raw?: string; on?: TestIdp } = {},
): Promise<Answer<T>> {
  const headers: Record<string, string> = {};
  if (options.contentType !== null) headers['content-type'] = options.contentType ?? 'application/json';
  const response = await fetch(endpoint(options.on), {
    method: 'POST',
    headers,
    body: options.raw ?? JSON.stringify(body),
  });
  return readAnswer<T>(response);
}

async function registered(body: Record<string, unknown>): Promise<Registered> {
  const answer = await register(body);
  expect(answer.status, answer.text).toBe(201);
  return answer.json;
}

async function call(method: string, uri: string, token?: string): Promise<Answer> {
  const response = await fetch(uri, {
    method,
    headers: token !== undefined ? { authorization: `Bearer ${token}` } : {},
  });
  return readAnswer(response);
}

/** The code flow with login_hint for a registered client: authorize, then exchange with `auth`. */
async function codeFlow(
  c: Registered,
  auth: { authorization?: string; body?: Record<string, string> },
  on: TestIdp = idp,
): Promise<Answer> {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: c.client_id,
    redirect_uri: CB,
    scope: 'openid',
    state: 's',
    login_hint: 'ingrid',
    code_challenge: s256(VERIFIER),
    code_challenge_method: 'S256',
  });
  const response = await fetch(`${on.endpoints.auth}?${query}`, { redirect: 'manual' });
  expect(response.status, await response.text()).toBe(302);
  const code = new URL(response.headers.get('location') as string).searchParams.get('code') as string;
  expect(code).toBeTruthy();
  return postForm(
    on.endpoints.token,
    { grant_type: 'authorization_code', code, redirect_uri: CB, code_verifier: VERIFIER, ...auth.body },
    auth.authorization !== undefined ? { authorization: auth.authorization } : {},
  );
}

describe('POST: registration', () => {
  it('answers 201 with the client, its secret, the registration access token and the metadata', async () => {
    const answer = await register({ redirect_uris: [CB], client_name: 'Relying party' });
    expect(answer.status, answer.text).toBe(201);
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(answer.headers.get('cache-control')).toBe('no-store');
    const c = answer.json;
    expect(c.client_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(c.client_secret).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(c.registration_access_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(c).toMatchObject({
      client_secret_expires_at: 0,
      registration_client_uri: `${endpoint()}/${c.client_id}`,
      redirect_uris: [CB],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
      subject_type: 'public',
      client_name: 'Relying party',
    });
    expect(answer.headers.get('location')).toBe(c.registration_client_uri);
    expect(Math.abs(c.client_id_issued_at - idp.clock.nowSeconds())).toBeLessThanOrEqual(1);
    expect((c['scope'] as string).split(' ')).toEqual(
      expect.arrayContaining(['openid', 'profile', 'ledger.read']),
    );
  });

  it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    [
      'client_credentials only, with a scope',
      { grant_types: ['client_credentials'], scope: 'ledger.read' },
      { grant_types: ['client_credentials'], response_types: [], redirect_uris: [], scope: 'ledger.read' },
    ],
    [
      'a public client (none): no secret',
      { redirect_uris: [CB], token_endpoint_auth_method: 'none' },
      { token_endpoint_auth_method: 'none', client_secret: undefined, client_secret_expires_at: undefined },
    ],
    [
      'private_key_jwt with jwks: no secret',
      { redirect_uris: [CB], token_endpoint_auth_method: 'private_key_jwt', jwks: VAULT_JWKS },
      { token_endpoint_auth_method: 'private_key_jwt', jwks: VAULT_JWKS, client_secret: undefined },
    ],
    [
      'the implicit grant and the hybrid response types',
      {
        redirect_uris: [CB],
        grant_types: ['authorization_code', 'implicit'],
        response_types: ['code', 'token id_token', 'code id_token'],
      },
      {
        grant_types: ['authorization_code', 'implicit'],
        response_types: ['code', 'id_token token', 'code id_token'],
      },
    ],
    [
      'unknown metadata is ignored',
      { redirect_uris: [CB], color: 'blue', require_auth_time: true },
      { color: undefined, require_auth_time: undefined },
    ],
    [
      'a repeated redirect URI once',
      { redirect_uris: [CB, CB, 'com.example.app:/cb'] },
      { redirect_uris: [CB, 'com.example.app:/cb'] },
    ],
  ])('%s', async (_name, body, expected) => {
    const c = await registered(body);
    for (const [field, value] of Object.entries(expected)) expect(c[field], field).toEqual(value);
  });

  it('ids, secrets and tokens follow the seed; the time the clock', async () => {
    const a = await startIdp({ seed: 'reg-seed', clock: Y2030, frozen: true });
    const b = await startIdp({ seed: 'reg-seed', clock: Y2030, frozen: true });
    try {
      const [ra, rb] = await Promise.all([a, b].map((on) => register({ redirect_uris: [CB] }, { on })));
      expect(ra?.status).toBe(201);
      const strip = (j: Registered): unknown => ({ ...j, registration_client_uri: undefined });
      expect(strip(ra?.json as Registered)).toEqual(strip(rb?.json as Registered));
      expect(ra?.json.client_id_issued_at).toBe(Y2030);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

describe('the registered client works as a fixture client does', () => {
  it('code flow with client_secret_basic, then refresh and introspection by itself', async () => {
    const c = await registered({ redirect_uris: [CB], scope: 'openid profile' });
    const answer = await codeFlow(c, { authorization: basic(c.client_id, c.client_secret as string) });
    expect(answer.status, answer.text).toBe(200);
    const { claims } = await verifyToken(idp, answer.json['id_token'] as string, c.client_id);
    expect(claims.azp).toBe(c.client_id);
    const refreshed = await postForm(
      idp.endpoints.token,
      { grant_type: 'refresh_token', refresh_token: answer.json['refresh_token'] as string },
      { authorization: basic(c.client_id, c.client_secret as string) },
    );
    expect(refreshed.status, refreshed.text).toBe(200);
    const introspected = await postForm(
      idp.endpoints.introspect,
      { token: answer.json['access_token'] as string },
      { authorization: basic(c.client_id, c.client_secret as string) },
    );
    expect(introspected.json).toMatchObject({ active: true, client_id: c.client_id });
  });

  it('client_secret_post, as Keycloak takes a client secret either way', async () => {
    const c = await registered({ redirect_uris: [CB], token_endpoint_auth_method: 'client_secret_post' });
    const answer = await codeFlow(c, {
      body: { client_id: c.client_id, client_secret: c.client_secret as string },
    });
    expect(answer.status, answer.text).toBe(200);
  });

  it('a public client (none) with PKCE', async () => {
    const c = await registered({ redirect_uris: [CB], token_endpoint_auth_method: 'none' });
    const answer = await codeFlow(c, { body: { client_id: c.client_id } });
    expect(answer.status, answer.text).toBe(200);
  });

  it('private_key_jwt with the registered jwks', async () => {
    const c = await registered({
      redirect_uris: [CB],
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: VAULT_JWKS,
    });
    const assertion = await clientAssertion(idp, { clientId: c.client_id });
    const answer = await codeFlow(c, {
      body: { client_assertion_type: ASSERTION_TYPE, client_assertion: assertion },
    });
    expect(answer.status, answer.text).toBe(200);
  });

  it('private_key_jwt with an EC P-256 key: ES256 client assertions', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'ec-1' };
    const c = await registered({
      grant_types: ['client_credentials'],
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: { keys: [jwk] },
    });
    const signed = async (alg: string, key: CryptoKey | Uint8Array): Promise<string> => {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ jti: crypto.randomUUID() })
        .setProtectedHeader({ alg, kid: 'ec-1' })
        .setIssuer(c.client_id)
        .setSubject(c.client_id)
        .setAudience(idp.endpoints.token)
        .setIssuedAt(now)
        .setExpirationTime(now + 60)
        .sign(key);
    };
    const token = (assertion: string): Promise<Answer> =>
      postForm(idp.endpoints.token, {
        grant_type: 'client_credentials',
        client_assertion_type: ASSERTION_TYPE,
        client_assertion: assertion,
      });
    const answer = await token(await signed('ES256', privateKey));
    expect(answer.status, answer.text).toBe(200);
    const other = await generateKeyPair('ES256');
    const refused = await token(await signed('ES256', other.privateKey));
    // As for a fixture client's bad assertion (Keycloak's JWT client authenticator answers so).
    expectOAuthError(refused, 401, 'unauthorized_client');
    expect(refused.json['error_description']).toContain('signature verification failed');
  });

  it('client_credentials when granted; its service account introspects', async () => {
    const c = await registered({ grant_types: ['client_credentials'], scope: 'ledger.read' });
    const auth = { authorization: basic(c.client_id, c.client_secret as string) };
    const answer = await postForm(idp.endpoints.token, { grant_type: 'client_credentials' }, auth);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json['scope']).toBe('ledger.read');
    const introspected = await postForm(
      idp.endpoints.introspect,
      { token: answer.json['access_token'] as string },
      auth,
    );
    expect(introspected.json).toMatchObject({ active: true, username: `service-account-${c.client_id}` });
  });

  it('the implicit flow when it registered the implicit grant', async () => {
    const c = await registered({
      redirect_uris: [CB],
      grant_types: ['implicit'],
      response_types: ['id_token token'],
    });
    const query = new URLSearchParams({
      response_type: 'id_token token',
      client_id: c.client_id,
      redirect_uri: CB,
      scope: 'openid',
      nonce: 'n-1',
      login_hint: 'ingrid',
    });
    const response = await fetch(`${idp.endpoints.auth}?${query}`, { redirect: 'manual' });
    expect(response.status, await response.text()).toBe(302);
    const fragment = new URLSearchParams(new URL(response.headers.get('location') as string).hash.slice(1));
    const { claims } = await verifyToken(idp, fragment.get('id_token') as string, c.client_id);
    expect(claims.nonce).toBe('n-1');
    expect(fragment.get('access_token')).toBeTruthy();
  });

  it('subject_type pairwise: one sub per sector (the redirect host, or sector_identifier_uri), not the public one', async () => {
    const subOf = async (body: Record<string, unknown>): Promise<unknown> => {
      const c = await registered({ redirect_uris: [CB], ...body });
      const answer = await codeFlow(c, { authorization: basic(c.client_id, c.client_secret as string) });
      expect(answer.status, answer.text).toBe(200);
      return (await verifyToken(idp, answer.json['id_token'] as string, c.client_id)).claims.sub;
    };
    const publicSub = await subOf({});
    const a = await subOf({ subject_type: 'pairwise' });
    const b = await subOf({ subject_type: 'pairwise' });
    const other = await subOf({
      subject_type: 'pairwise',
      sector_identifier_uri: 'https://sector.example.test/uris.json',
    });
    expect(a).toBe(b);
    expect(a).not.toBe(publicSub);
    expect(other).not.toBe(a);
    expect(other).not.toBe(publicSub);
  });

  it('userinfo_signed_response_alg RS256: userinfo answers a signed JWT', async () => {
    const c = await registered({ redirect_uris: [CB], userinfo_signed_response_alg: 'RS256' });
    expect(c['userinfo_signed_response_alg']).toBe('RS256');
    const answer = await codeFlow(c, { authorization: basic(c.client_id, c.client_secret as string) });
    const userinfo = await fetch(idp.endpoints.userinfo, {
      headers: { authorization: `Bearer ${answer.json['access_token'] as string}` },
    });
    expect(userinfo.status).toBe(200);
    expect(userinfo.headers.get('content-type')).toMatch(/^application\/jwt/);
    const { claims } = await verifyToken(idp, await userinfo.text(), c.client_id);
    expect(claims.sub).toBeTruthy();
  });

  it('request_object_signing_alg RS256: an unsigned request object is refused', async () => {
    const c = await registered({ redirect_uris: [CB], request_object_signing_alg: 'RS256' });
    expect(c['request_object_signing_alg']).toBe('RS256');
    const object = new UnsecuredJWT({
      client_id: c.client_id,
      response_type: 'code',
      redirect_uri: CB,
      scope: 'openid',
      login_hint: 'ingrid',
    }).encode();
    const query = new URLSearchParams({ client_id: c.client_id, redirect_uri: CB, request: object });
    const response = await fetch(`${idp.endpoints.auth}?${query}`, { redirect: 'manual' });
    const params = new URL(response.headers.get('location') as string).searchParams;
    expect(params.get('error')).toBe('invalid_request_object');
    expect(params.get('error_description')).toBe(
      `Invalid request object: alg "none": client "${c.client_id}" requires request objects with alg RS256`,
    );
  });

  it('a grant it did not register is refused (unauthorized_client)', async () => {
    const c = await registered({ redirect_uris: [CB] });
    const answer = await postForm(
      idp.endpoints.token,
      { grant_type: 'client_credentials' },
      { authorization: basic(c.client_id, c.client_secret as string) },
    );
    expectOAuthError(answer, 400, 'unauthorized_client');
  });

  it('post_logout_redirect_uris are accepted at logout', async () => {
    const after = 'http://rp.example.test/signed-out';
    const c = await registered({ redirect_uris: [CB], post_logout_redirect_uris: [after] });
    const query = new URLSearchParams({
      client_id: c.client_id,
      post_logout_redirect_uri: after,
      state: 'bye',
    });
    const response = await fetch(`${idp.endpoints.logout}?${query}`, { redirect: 'manual' });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe(`${after}?state=bye`);
  });

  it('the journal records the endpoint and the new client', async () => {
    const c = await registered({ redirect_uris: [CB] });
    const last = idp.requests({ endpoint: 'registration' }).at(-1);
    expect(last).toMatchObject({ method: 'POST', status: 201, client: c.client_id });
  });

  it('faults can target it', async () => {
    const fault = await fetch(`${idp.issuer}/mock/faults`, {
      method: 'POST',
      body: JSON.stringify({ endpoint: 'registration', status: 503, count: 1 }),
    });
    expect(fault.status).toBe(201);
    expectOAuthError(await register({ redirect_uris: [CB] }), 503, 'temporarily_unavailable');
    expect((await register({ redirect_uris: [CB] })).status).toBe(201);
  });
});

describe("signing algorithms follow the realm's interface version", () => {
  const files = tempDir();
  afterAll(files.remove);
  const v3 = useIdp(() => {
    const path = join(files.dir, 'fjord-v3.yaml');
    writeFileSync(path, `${readFileSync(FJORD_FIXTURES, 'utf8')}\napiVersion: 3\n`);
    return { fixtures: path };
  });

  it('a version 3 realm registers ES256 for ID tokens and userinfo, and signs them so', async () => {
    const answer = await register(
      { redirect_uris: [CB], id_token_signed_response_alg: 'ES256', userinfo_signed_response_alg: 'ES256' },
      { on: v3 },
    );
    expect(answer.status, answer.text).toBe(201);
    const c = answer.json;
    expect(c).toMatchObject({ id_token_signed_response_alg: 'ES256', userinfo_signed_response_alg: 'ES256' });
    const tokens = await codeFlow(c, { authorization: basic(c.client_id, c.client_secret as string) }, v3);
    expect(tokens.status, tokens.text).toBe(200);
    expect(decodeProtectedHeader(tokens.json['id_token'] as string).alg).toBe('ES256');
    const userinfo = await fetch(v3.endpoints.userinfo, {
      headers: { authorization: `Bearer ${tokens.json['access_token'] as string}` },
    });
    expect(decodeProtectedHeader(await userinfo.text()).alg).toBe('ES256');
  });

  it('a version 3 realm refuses RS256, naming what it signs with', async () => {
    const answer = await register({ redirect_uris: [CB], id_token_signed_response_alg: 'RS256' }, { on: v3 });
    expectOAuthError(answer, 400, 'invalid_client_metadata');
    expect(answer.json['error_description']).toContain('signs with ES256');
  });
});

describe('GET and DELETE with the registration access token', () => {
  it('GET reads the same registration', async () => {
    const c = await registered({ redirect_uris: [CB], client_name: 'Reader' });
    const answer = await call('GET', c.registration_client_uri, c.registration_access_token);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.json).toEqual(c);
  });

  it.each<[string, (c: Registered) => [string, string | undefined]]>([
    ['no token', (c) => [c.registration_client_uri, undefined]],
    ['a wrong token', (c) => [c.registration_client_uri, `${c.registration_access_token}x`]],
    ["another client's token", (c) => [`${endpoint()}/teller-web`, c.registration_access_token]],
    ['an unknown client', (c) => [`${endpoint()}/no-such-client`, c.registration_access_token]],
    ['the client secret instead', (c) => [c.registration_client_uri, c.client_secret]],
  ])('%s: 401 invalid_token, for GET and DELETE', async (_name, target) => {
    const c = await registered({ redirect_uris: [CB] });
    const [uri, token] = target(c);
    for (const method of ['GET', 'DELETE']) {
      const answer = await call(method, uri, token);
      expectOAuthError(answer, 401, 'invalid_token');
      expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer /);
    }
    expect((await call('GET', c.registration_client_uri, c.registration_access_token)).status).toBe(200);
  });

  it('DELETE answers 204; the client is gone everywhere', async () => {
    const c = await registered({
      redirect_uris: [CB],
      grant_types: ['authorization_code', 'client_credentials'],
    });
    const deleted = await call('DELETE', c.registration_client_uri, c.registration_access_token);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expectOAuthError(
      await call('GET', c.registration_client_uri, c.registration_access_token),
      401,
      'invalid_token',
    );
    const token = await postForm(
      idp.endpoints.token,
      { grant_type: 'client_credentials' },
      { authorization: basic(c.client_id, c.client_secret as string) },
    );
    expectOAuthError(token, 401, 'invalid_client');
    const auth = await fetch(
      `${idp.endpoints.auth}?${new URLSearchParams({ client_id: c.client_id, redirect_uri: CB, response_type: 'code' })}`,
    );
    expect(auth.status).toBe(400);
  });

  it.each<[string, string, string]>([
    ['PUT on the client URI', 'PUT', 'GET, DELETE'],
    ['GET on the registration endpoint', 'GET', 'POST'],
  ])('%s: 405', async (_name, method, allow) => {
    const c = await registered({ redirect_uris: [CB] });
    const uri = method === 'PUT' ? c.registration_client_uri : endpoint();
    const answer = await call(method, uri, c.registration_access_token);
    expectOAuthError(answer, 405, 'invalid_request');
    expect(answer.headers.get('allow')).toBe(allow);
  });
});

describe('replacing the fixtures ends every registration', () => {
  it.each([['PUT /mock/fixtures']])('%s', async () => {
    const own = await startIdp();
    try {
      const answer = await register(
        { redirect_uris: [CB], grant_types: ['client_credentials'] },
        { on: own },
      );
      const c = answer.json;
      const put = await fetch(`${own.issuer}/mock/fixtures`, {
        method: 'PUT',
        headers: { 'content-type': 'application/yaml' },
        body: readFileSync(FJORD_FIXTURES, 'utf8'),
      });
      expect(put.status, await put.text()).toBe(200);
      expectOAuthError(
        await call('GET', c.registration_client_uri, c.registration_access_token),
        401,
        'invalid_token',
      );
      const token = await postForm(
        own.endpoints.token,
        { grant_type: 'client_credentials' },
        { authorization: basic(c.client_id, c.client_secret as string) },
      );
      expectOAuthError(token, 401, 'invalid_client');
    } finally {
      await own.close();
    }
  });
});

describe('bad input: 400 with the RFC 7591 §3.2.2 error, never a 500', () => {
  const many = Array.from({ length: 101 }, (_, i) => `http://rp.example.test/cb${i}`);
  const ecJwks = async (): Promise<unknown> => ({
    keys: [await exportJWK((await generateKeyPair('ES384')).publicKey)],
  });
  const privateJwks = async (): Promise<unknown> => ({
    keys: [await exportJWK((await generateKeyPair('RS256', { extractable: true })).privateKey)],
  });
  it.each<[string, string, () => Promise<unknown> | unknown]>([
    [
      'an unknown grant type',
      'invalid_client_metadata',
      () => ({ redirect_uris: [CB], grant_types: ['authorization_code', 'magic'] }),
    ],
    [
      'grant_types not an array',
      'invalid_client_metadata',
      () => ({ redirect_uris: [CB], grant_types: 'authorization_code' }),
    ],
    ['a redirect URI with a fragment', 'invalid_redirect_uri', () => ({ redirect_uris: [`${CB}#frag`] })],
    [
      'a redirect URI with user info',
      'invalid_redirect_uri',
      () => ({ redirect_uris: ['http://user:pw@rp.example.test/cb'] }),
    ],
    ['a relative redirect URI', 'invalid_redirect_uri', () => ({ redirect_uris: ['/cb'] })],
    [
      'a javascript: redirect URI',
      'invalid_redirect_uri',
      () => ({ redirect_uris: ['javascript:alert(1)'] }),
    ],
    [
      'a wildcard redirect URI',
      'invalid_redirect_uri',
      () => ({ redirect_uris: ['http://rp.example.test/*'] }),
    ],
    ['101 redirect URIs', 'invalid_redirect_uri', () => ({ redirect_uris: many })],
    [
      'authorization_code without redirect URIs',
      'invalid_redirect_uri',
      () => ({ grant_types: ['authorization_code'] }),
    ],
    [
      'a post-logout redirect URI with a fragment',
      'invalid_redirect_uri',
      () => ({ redirect_uris: [CB], post_logout_redirect_uris: [`${CB}#x`] }),
    ],
    [
      'request_object_signing_alg HS256',
      'invalid_client_metadata',
      () => ({ redirect_uris: [CB], request_object_signing_alg: 'HS256' }),
    ],
    [
      'an unknown auth method',
      'invalid_client_metadata',
      () => ({ redirect_uris: [CB], token_endpoint_auth_method: 'tls_client_auth' }),
    ],
    [
      'private_key_jwt without jwks',
      'invalid_client_metadata',
      () => ({ redirect_uris: [CB], token_endpoint_auth_method: 'private_key_jwt' }),
    ],
    [
      'jwks_uri',
      'invalid_client_metadata',
      () => ({ redirect_uris: [CB], jwks_uri: 'http://rp.example.test/jwks' }),
    ],
    ['jwks not a JWK set', 'invalid_client_metadata', () => ({ redirect_uris: [CB], jwks: [1, 2] })],
    [
      'an EC key on P-384 in jwks',
      'invalid_client_metadata',
      async () => ({ redirect_uris: [CB], jwks: await ecJwks() }),
    ],
    [
      'id_token_signed_response_alg ES256 in a version 1 realm (it signs RS256)',
      'invalid_client_metadata',
      () => ({ redirect_uris: [CB], id_token_signed_response_alg: 'ES256' }),
    ],
    [
      'a private key in jwks',
      'invalid_client_metadata',
      async () => ({ redirect_uris: [CB], jwks: await privateJwks() }),
    ],
    [
      'a broken RSA key in jwks',
      'invalid_client_metadata',
      () => ({ redirect_uris: [CB], jwks: { keys: [{ kty: 'RSA', n: 'AQ', e: '' }] } }),
    ],
    [
      'response type token without implicit',
      'invalid_client_metadata',
      () => ({ redirect_uris: [CB], response_types: ['token'] }),
    ],
    [
      'response type code without its grant',
      'invalid_client_metadata',
      () => ({ grant_types: ['client_credentials'], response_types: ['code'] }),
    ],
    [
      'an unknown response type',
      'invalid_client_metadata',
      () => ({ redirect_uris: [CB], response_types: ['code magic'] }),
    ],
    [
      'an unknown scope',
      'invalid_client_metadata',
      () => ({ redirect_uris: [CB], scope: 'openid ledger.delete' }),
    ],
    [
      'id_token_signed_response_alg HS256',
      'invalid_client_metadata',
      () => ({ redirect_uris: [CB], id_token_signed_response_alg: 'HS256' }),
    ],
    [
      'client_name not a string',
      'invalid_client_metadata',
      () => ({ redirect_uris: [CB], client_name: { en: 'x' } }),
    ],
    [
      'an ftp back-channel logout URI',
      'invalid_client_metadata',
      () => ({ redirect_uris: [CB], backchannel_logout_uri: 'ftp://rp.example.test/bc' }),
    ],
    ['a JSON array', 'invalid_client_metadata', () => [CB]],
    ['JSON null', 'invalid_client_metadata', () => null],
    [
      'an unknown subject_type',
      'invalid_client_metadata',
      () => ({ redirect_uris: [CB], subject_type: 'secret' }),
    ],
    [
      'pairwise with redirect URIs on two hosts',
      'invalid_client_metadata',
      () => ({ redirect_uris: [CB, 'http://other.example.test/cb'], subject_type: 'pairwise' }),
    ],
    [
      'an http sector_identifier_uri',
      'invalid_client_metadata',
      () => ({
        redirect_uris: [CB],
        subject_type: 'pairwise',
        sector_identifier_uri: 'http://s.example.test/x',
      }),
    ],
    [
      'a sector_identifier_uri for a public subject',
      'invalid_client_metadata',
      () => ({ redirect_uris: [CB], sector_identifier_uri: 'https://s.example.test/x' }),
    ],
    [
      'userinfo_signed_response_alg HS256',
      'invalid_client_metadata',
      () => ({ redirect_uris: [CB], userinfo_signed_response_alg: 'HS256' }),
    ],
    [
      '__proto__ as a member',
      'invalid_client_metadata',
      () => JSON.parse(`{"redirect_uris":["${CB}"],"__proto__":{"x":1}}`),
    ],
    [
      'nested 100 levels deep',
      'invalid_client_metadata',
      () => ({ redirect_uris: [CB], x: JSON.parse('['.repeat(100) + ']'.repeat(100)) }),
    ],
  ])('%s → %s', async (_name, error, make) => {
    const answer = await register(await make());
    expectOAuthError(answer, 400, error);
    expectNoStack(answer.text);
  });

  it.each<[string, number, string, { contentType?: string | null; raw: string }]>([
    ['a body that is not JSON', 400, 'invalid_client_metadata', { raw: '{"redirect_uris": [' }],
    ['an empty body', 400, 'invalid_client_metadata', { raw: '' }],
    [
      'a form body',
      400,
      'invalid_request',
      { contentType: 'application/x-www-form-urlencoded', raw: `redirect_uris=${CB}` },
    ],
    [
      'no Content-Type',
      400,
      'invalid_request',
      { contentType: null, raw: JSON.stringify({ redirect_uris: [CB] }) },
    ],
    [
      'a body over 64 kB',
      413,
      'invalid_request',
      { raw: JSON.stringify({ redirect_uris: [CB], client_name: 'x'.repeat(70_000) }) },
    ],
  ])('%s → %i %s', async (_name, status, error, options) => {
    const answer = await register(undefined, options);
    expectOAuthError(answer, status, error);
    expectNoStack(answer.text);
  });
});
