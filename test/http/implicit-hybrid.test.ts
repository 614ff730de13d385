// Implicit and hybrid response types at the authorize endpoint (OIDC Core 3.2, 3.3): what each returns in
// the front channel, the hashes that bind it together, who may use them, and the refusals.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { FixturesInput } from '../../src/fixtures/schema.js';
import { authorizeUrl, type AuthorizeParams } from '../helpers/flows.js';
import { basic, get, postForm } from '../helpers/http.js';
import { decode, s256, verifyToken } from '../helpers/jwt.js';
import { useIdp } from '../helpers/server.js';

const FIXTURES: FixturesInput = {
  realm: 'front',
  seed: 'implicit-hybrid',
  tokens: { accessTokenLifespan: 120 },
  scopes: { 'orders.read': { resource: 'orders-api', roles: ['read'] } },
  clients: {
    // A single-page app on the implicit flow only.
    spa: { authMethods: ['none'], redirectUris: ['http://spa.test/cb'], grants: ['implicit'] },
    // A web app allowed the code flow and the implicit flow: every hybrid.
    web: {
      secret: 'web-secret',
      redirectUris: ['http://web.test/cb'],
      grants: ['authorization_code', 'refresh_token', 'implicit'],
      pkce: 'required',
    },
    // The code flow only (the default grants with redirect URIs).
    classic: { secret: 'classic-secret', redirectUris: ['http://classic.test/cb'] },
    'orders-api': { secret: 'orders-secret' },
  },
  users: {
    kari: { claims: { name: 'Kari Nordmann', given_name: 'Kari' }, realmRoles: ['user'] },
  },
};

const REDIRECT: Record<string, string> = {
  spa: 'http://spa.test/cb',
  web: 'http://web.test/cb',
  classic: 'http://classic.test/cb',
};
const SECRET: Record<string, string> = { web: 'web-secret', classic: 'classic-secret' };
const VERIFIER = 'implicit-hybrid-verifier-0123456789-abcdefghijklmnop';
const CHALLENGE = s256(VERIFIER);

/** The left half of SHA-256 of the UTF-8 value, base64url: at_hash, c_hash, s_hash as a client checks them. */
const leftHalf = (value: string): string =>
  createHash('sha256').update(value, 'utf8').digest().subarray(0, 16).toString('base64url');

const idp = useIdp({ fixtures: FIXTURES });

function request(client: string, a: AuthorizeParams): AuthorizeParams {
  return {
    client,
    redirectUri: REDIRECT[client] as string,
    user: 'kari',
    ...(client === 'web' ? { codeChallenge: CHALLENGE, codeChallengeMethod: 'S256' } : {}),
    ...a,
  };
}

interface FrontAnswer {
  status: number;
  /** Where the parameters came: the query or fragment of the 302, or a form_post page. */
  via: 'query' | 'fragment' | 'form_post' | 'login page' | 'none';
  params: URLSearchParams;
  setCookie: string[];
}

/** Runs authorize and reads the answer the way the redirect_uri's page would. */
async function authorize(a: AuthorizeParams, cookie?: string): Promise<FrontAnswer> {
  const response = await fetch(authorizeUrl(idp, a), {
    redirect: 'manual',
    ...(cookie !== undefined ? { headers: { cookie } } : {}),
  });
  const setCookie = response.headers.getSetCookie();
  const body = await response.text();
  const location = response.headers.get('location');
  if (response.status === 302 && location !== null) {
    const url = new URL(location);
    if (url.hash.length > 1)
      return { status: 302, via: 'fragment', params: new URLSearchParams(url.hash.slice(1)), setCookie };
    return { status: 302, via: 'query', params: url.searchParams, setCookie };
  }
  if (response.status === 200 && body.includes(`<form method="post" action="${idp.endpoints.auth}"`))
    return { status: 200, via: 'login page', params: new URLSearchParams(), setCookie };
  if (response.status === 200 && body.includes('<form method="post"')) {
    const fields = new URLSearchParams();
    const unescape = (v: string): string =>
      v.replace(/&#(\d+);/g, (_m, n: string) => String.fromCharCode(Number(n)));
    for (const m of body.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g))
      fields.set(unescape(m[1] as string), unescape(m[2] as string));
    return { status: 200, via: 'form_post', params: fields, setCookie };
  }
  return { status: response.status, via: 'none', params: new URLSearchParams(), setCookie };
}

async function exchange(client: string, code: string): Promise<Record<string, unknown>> {
  const answer = await postForm(
    idp.endpoints.token,
    {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT[client] as string,
      code_verifier: VERIFIER,
    },
    { authorization: basic(client, SECRET[client] as string) },
  );
  expect(answer.status, answer.text).toBe(200);
  return answer.json;
}

describe.each<[string, string]>([
  ['id_token', 'spa'],
  ['token', 'spa'],
  ['id_token token', 'spa'],
  ['token id_token', 'spa'],
  ['code id_token', 'web'],
  ['code token', 'web'],
  ['code id_token token', 'web'],
  ['token code id_token', 'web'],
])('response_type=%s (client %s)', (responseType, client) => {
  const words = responseType.split(' ');
  const hasCode = words.includes('code');
  const hasToken = words.includes('token');
  const hasId = words.includes('id_token');

  it.each(['fragment (the default)', 'form_post'])(
    'answers by %s with exactly the fields it asks for',
    async (mode) => {
      const state = `st-${client}-ø✓`;
      const answer = await authorize(
        request(client, {
          responseType,
          scope: 'openid profile orders.read',
          nonce: 'n-0S6_WzA2Mj',
          state,
          ...(mode === 'form_post' ? { responseMode: 'form_post' } : {}),
        }),
      );
      expect(answer.via).toBe(mode === 'form_post' ? 'form_post' : 'fragment');
      const p = answer.params;
      const expected = ['iss', 'session_state', 'state'];
      if (hasCode) expected.push('code');
      if (hasToken) expected.push('access_token', 'expires_in', 'token_type');
      if (hasId) expected.push('id_token');
      expect([...p.keys()].sort()).toEqual(expected.sort());
      expect(p.get('state')).toBe(state);
      expect(p.get('iss')).toBe(idp.issuer);
      expect(p.has('refresh_token')).toBe(false);

      const accessToken = p.get('access_token');
      if (hasToken) {
        expect(p.get('token_type')).toBe('bearer');
        expect(p.get('expires_in')).toBe('120');
        const { claims } = await verifyToken(idp, accessToken as string, 'orders-api');
        expect(claims).toMatchObject({
          typ: 'Bearer',
          azp: client,
          nonce: 'n-0S6_WzA2Mj',
          session_state: p.get('session_state'),
          scope: 'openid profile orders.read',
          resource_access: { 'orders-api': { roles: ['read'] } },
        });
        expect((claims.exp as number) - (claims.iat as number)).toBe(120);
      }
      if (hasId) {
        const { claims } = await verifyToken(idp, p.get('id_token') as string, client);
        expect(claims).toMatchObject({
          typ: 'ID',
          azp: client,
          nonce: 'n-0S6_WzA2Mj',
          session_state: p.get('session_state'),
          name: 'Kari Nordmann',
          s_hash: leftHalf(state),
        });
        if (hasToken) expect(claims['at_hash']).toBe(leftHalf(accessToken as string));
        else expect(claims).not.toHaveProperty('at_hash');
        if (hasCode) expect(claims['c_hash']).toBe(leftHalf(p.get('code') as string));
        else expect(claims).not.toHaveProperty('c_hash');
      }
    },
  );

  it('its access token works at userinfo and introspection; its code exchanges for the same user and nonce', async () => {
    const answer = await authorize(request(client, { responseType, scope: 'openid profile', nonce: 'n-2' }));
    const p = answer.params;
    const front = decode((p.get('id_token') ?? p.get('access_token')) as string).claims;
    if (hasToken) {
      const info = await get(idp.endpoints.userinfo, { authorization: `Bearer ${p.get('access_token')}` });
      expect(info.status, info.text).toBe(200);
      expect(info.json).toMatchObject({ sub: front.sub, name: 'Kari Nordmann' });
      const intro = await postForm(
        idp.endpoints.introspect,
        { token: p.get('access_token') as string },
        { authorization: basic('orders-api', 'orders-secret') },
      );
      expect(intro.json).toMatchObject({ active: true, client_id: client, sub: front.sub, username: 'kari' });
    }
    if (hasCode) {
      const tokens = await exchange(client, p.get('code') as string);
      expect(tokens['refresh_token']).toEqual(expect.any(String));
      const { claims } = await verifyToken(idp, tokens['id_token'] as string, client);
      expect(claims).toMatchObject({
        sub: front.sub,
        nonce: 'n-2',
        sid: front['sid'],
        at_hash: leftHalf(tokens['access_token'] as string),
      });
      expect(tokens['session_state']).toBe(p.get('session_state'));
    }
  });
});

describe('response_type=none', () => {
  it('answers with state, session_state and iss only, in the query', async () => {
    const answer = await authorize(request('classic', { responseType: 'none', state: 'only-state' }));
    expect(answer.via).toBe('query');
    expect([...answer.params.keys()].sort()).toEqual(['iss', 'session_state', 'state']);
  });
});

describe('browser sessions work as for response_type=code', () => {
  it('single sign-on: a code-flow sign-in lets the implicit flow answer at once, with prompt=none', async () => {
    const first = await authorize(request('web', { responseType: 'code', state: 's1' }));
    expect(first.via).toBe('query');
    const cookie = first.setCookie.map((c) => c.split(';')[0]).join('; ');
    const sid = (first.params.get('code') as string).split('.')[1];
    const silent = await authorize(
      request('spa', { responseType: 'id_token token', nonce: 'n-sso', user: '', extra: { prompt: 'none' } }),
      cookie,
    );
    expect(silent.via).toBe('fragment');
    const { claims } = await verifyToken(idp, silent.params.get('id_token') as string, 'spa');
    expect(claims['sid']).toBe(sid);
    // One browser session, one session_state (its id), whichever client and response type.
    expect(first.params.get('session_state')).toBe(sid);
    expect(silent.params.get('session_state')).toBe(sid);
    expect(claims['session_state']).toBe(sid);

    const forced = await authorize(
      request('spa', { responseType: 'token', user: '', extra: { prompt: 'login' } }),
      cookie,
    );
    expect(forced.via).toBe('login page');
  });

  it('prompt=none without a session: login_required in the fragment', async () => {
    const answer = await authorize(
      request('spa', {
        responseType: 'id_token',
        nonce: 'n',
        user: '',
        state: 's',
        extra: { prompt: 'none' },
      }),
    );
    expect(answer.via).toBe('fragment');
    expect(answer.params.get('error')).toBe('login_required');
    expect(answer.params.get('state')).toBe('s');
  });
});

describe('refusals, redirected to the client', () => {
  it.each<[string, string, AuthorizeParams, string, 'query' | 'fragment']>([
    [
      'token for a client without implicit',
      'classic',
      { responseType: 'token' },
      'unauthorized_client',
      'fragment',
    ],
    [
      'id_token for a client without implicit',
      'classic',
      { responseType: 'id_token', nonce: 'n' },
      'unauthorized_client',
      'fragment',
    ],
    [
      'code token for a client without implicit',
      'classic',
      { responseType: 'code token' },
      'unauthorized_client',
      'fragment',
    ],
    [
      'code id_token token for a client without implicit',
      'classic',
      { responseType: 'code id_token token', nonce: 'n' },
      'unauthorized_client',
      'fragment',
    ],
    ['code for an implicit-only client', 'spa', { responseType: 'code' }, 'unauthorized_client', 'query'],
    [
      'code token for an implicit-only client',
      'spa',
      { responseType: 'code token' },
      'unauthorized_client',
      'fragment',
    ],
    [
      'code id_token for an implicit-only client',
      'spa',
      { responseType: 'code id_token', nonce: 'n' },
      'unauthorized_client',
      'fragment',
    ],
    ['none for an implicit-only client', 'spa', { responseType: 'none' }, 'unauthorized_client', 'query'],
    ['id_token without nonce', 'spa', { responseType: 'id_token' }, 'invalid_request', 'fragment'],
    [
      'id_token token without nonce',
      'spa',
      { responseType: 'id_token token' },
      'invalid_request',
      'fragment',
    ],
    [
      'code id_token token without nonce',
      'web',
      { responseType: 'code id_token token' },
      'invalid_request',
      'fragment',
    ],
    [
      'id_token without the openid scope',
      'spa',
      { responseType: 'id_token', nonce: 'n', scope: 'profile' },
      'invalid_request',
      'fragment',
    ],
    [
      'token with response_mode=query',
      'spa',
      { responseType: 'token', responseMode: 'query' },
      'invalid_request',
      'query',
    ],
    [
      'code token with response_mode=query',
      'web',
      { responseType: 'code token', responseMode: 'query' },
      'invalid_request',
      'query',
    ],
    ['token token', 'spa', { responseType: 'token token' }, 'unsupported_response_type', 'fragment'],
    ['code none', 'web', { responseType: 'code none' }, 'unsupported_response_type', 'query'],
    ['none token', 'spa', { responseType: 'none token' }, 'unsupported_response_type', 'fragment'],
    ['Token (case matters)', 'spa', { responseType: 'Token' }, 'unsupported_response_type', 'query'],
    [
      'id_token  token (two spaces)',
      'spa',
      { responseType: 'id_token  token' },
      'unsupported_response_type',
      'fragment',
    ],
    ['device_code', 'spa', { responseType: 'device_code' }, 'unsupported_response_type', 'query'],
  ])('%s → %s', async (_name, client, a, error, via) => {
    const answer = await authorize(request(client, { state: 'st-err', ...a }));
    expect(answer.via).toBe(via);
    const p = answer.params;
    expect(p.get('error')).toBe(error);
    expect(p.get('error_description')).toBeTruthy();
    expect(p.get('state')).toBe('st-err');
    expect(p.get('iss')).toBe(idp.issuer);
    for (const field of ['code', 'access_token', 'id_token']) expect(p.has(field)).toBe(false);
  });

  it('grant_type=implicit at the token endpoint is unsupported_grant_type', async () => {
    const answer = await postForm(
      idp.endpoints.token,
      { grant_type: 'implicit' },
      { authorization: basic('web', 'web-secret') },
    );
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ error: 'unsupported_grant_type' });
  });
});
