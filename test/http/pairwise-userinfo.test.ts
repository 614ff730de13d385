// Pairwise subjects (OIDC Core 8.1) and signed userinfo (OIDC Core 5.3.2), per client: the sub each client
// sees in every token and answer, and userinfo as an RS256 JWT.
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import type { FixturesInput } from '../../src/fixtures/schema.js';
import { authorizeUrl } from '../helpers/flows.js';
import { basic, get, postForm } from '../helpers/http.js';
import { decode, verifyToken } from '../helpers/jwt.js';
import { useIdp, useLocalServer } from '../helpers/server.js';

const KARI_SUB = '5d1c7a52-0b7e-4c1f-9d2a-3e4f5a6b7c8d';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const CLIENTS = {
  // Sector alpha.example from its redirect URIs (one host, two ports).
  alpha: ['https://alpha.example/cb', 'https://alpha.example:8443/*'],
  // Another host, but sectorIdentifierUri names alpha.example: the same sector as alpha.
  'alpha-mobile': ['https://m.alpha-app.example/cb'],
  beta: ['https://beta.example/cb'],
  plain: ['https://plain.example/cb'],
  signed: ['https://signed.example/cb'],
  'signed-pairwise': ['https://sp.example/cb'],
} as const;
type ClientId = keyof typeof CLIENTS;

let received: string[] = [];

function fixtures(receiver: string): FixturesInput {
  const web = (id: ClientId): Record<string, unknown> => ({
    secret: `${id}-secret`,
    redirectUris: [...CLIENTS[id]],
    grants: ['authorization_code', 'refresh_token', 'implicit'],
  });
  return {
    realm: 'sectors',
    seed: 'pairwise',
    clients: {
      alpha: { ...web('alpha'), subjectType: 'pairwise', backchannelLogoutUri: `${receiver}/alpha` },
      'alpha-mobile': {
        ...web('alpha-mobile'),
        subjectType: 'pairwise',
        sectorIdentifierUri: 'https://alpha.example/sector.json',
      },
      beta: { ...web('beta'), subjectType: 'pairwise', backchannelLogoutUri: `${receiver}/beta` },
      plain: { ...web('plain'), backchannelLogoutUri: `${receiver}/plain` },
      signed: { ...web('signed'), userinfoSigned: true },
      'signed-pairwise': { ...web('signed-pairwise'), subjectType: 'pairwise', userinfoSigned: true },
      machine: {
        secret: 'machine-secret',
        grants: ['client_credentials'],
        subjectType: 'pairwise',
        sectorIdentifierUri: 'https://machine.example/',
      },
      rs: { secret: 'rs-secret' },
    },
    users: {
      kari: { sub: KARI_SUB, claims: { name: 'Kari Nordmann', email: 'kari@example.test' } },
      ola: { claims: { name: 'Ola Nordmann' } },
    },
  } as FixturesInput;
}

const logoutReceiver = useLocalServer((req, res) => {
  let body = '';
  req.on('data', (c: Buffer) => (body += c.toString()));
  req.on('end', () => {
    received.push(`${req.url} ${body}`);
    res.writeHead(200).end();
  });
});
const idp = useIdp(() => ({ fixtures: fixtures(logoutReceiver.url) }));

const auth = (client: string): string => basic(client, `${client}-secret`);

interface SignIn {
  tokens: Record<string, string>;
  idClaims: Record<string, unknown>;
  accessClaims: Record<string, unknown>;
}

/** The code flow for `user` at `client` (login_hint), tokens verified with the realm's JWKS. */
async function signIn(client: ClientId, user: string): Promise<SignIn> {
  const redirectUri = CLIENTS[client][0];
  const url = authorizeUrl(idp, { client, redirectUri, user, scope: 'openid profile email', nonce: 'n' });
  const response = await fetch(url, { redirect: 'manual' });
  expect(response.status, await response.text()).toBe(302);
  const code = new URL(response.headers.get('location') as string).searchParams.get('code') as string;
  const answer = await postForm<Record<string, string>>(
    idp.endpoints.token,
    { grant_type: 'authorization_code', code, redirect_uri: redirectUri },
    { authorization: auth(client) },
  );
  expect(answer.status, answer.text).toBe(200);
  const idClaims = (await verifyToken(idp, answer.json['id_token'] as string, client)).claims;
  const accessClaims = (await verifyToken(idp, answer.json['access_token'] as string)).claims;
  return { tokens: answer.json, idClaims, accessClaims };
}

async function userinfoSub(accessToken: string): Promise<unknown> {
  const answer = await get(idp.endpoints.userinfo, { authorization: `Bearer ${accessToken}` });
  expect(answer.status, answer.text).toBe(200);
  return answer.json['sub'];
}

async function introspected(token: string): Promise<Record<string, unknown>> {
  const answer = await postForm(idp.endpoints.introspect, { token }, { authorization: auth('rs') });
  expect(answer.status, answer.text).toBe(200);
  return answer.json;
}

describe('pairwise subjects', () => {
  it.each<[ClientId, string]>([
    ['alpha', 'kari'],
    ['alpha', 'ola'],
    ['alpha-mobile', 'kari'],
    ['beta', 'kari'],
    ['plain', 'kari'],
  ])(
    '%s sees %s under one sub in the ID token, access token, userinfo, introspection and refresh',
    async (client, user) => {
      const { tokens, idClaims, accessClaims } = await signIn(client, user);
      const sub = idClaims.sub as string;
      expect(sub).toMatch(UUID);
      expect(accessClaims.sub).toBe(sub);
      expect(decode(tokens['refresh_token'] as string).claims.sub).toBe(sub);
      expect(await userinfoSub(tokens['access_token'] as string)).toBe(sub);
      expect(await introspected(tokens['access_token'] as string)).toMatchObject({
        active: true,
        sub,
        username: user,
        client_id: client,
      });
      expect(await introspected(tokens['id_token'] as string)).toMatchObject({
        active: true,
        sub,
        username: user,
      });
      const refreshed = await postForm<Record<string, string>>(
        idp.endpoints.token,
        { grant_type: 'refresh_token', refresh_token: tokens['refresh_token'] as string },
        { authorization: auth(client) },
      );
      expect(refreshed.status, refreshed.text).toBe(200);
      expect(decode(refreshed.json['id_token'] as string).claims.sub).toBe(sub);
      expect(decode(refreshed.json['access_token'] as string).claims.sub).toBe(sub);
    },
  );

  it('differs per sector and per user, is the same within a sector and across logins, and public clients are unchanged', async () => {
    const subOf = async (client: ClientId, user: string): Promise<string> =>
      (await signIn(client, user)).idClaims.sub as string;
    const alpha = await subOf('alpha', 'kari');
    expect(await subOf('alpha', 'kari')).toBe(alpha);
    expect(await subOf('alpha-mobile', 'kari')).toBe(alpha);
    const beta = await subOf('beta', 'kari');
    expect(new Set([alpha, beta, KARI_SUB]).size).toBe(3);
    expect(await subOf('plain', 'kari')).toBe(KARI_SUB);
    expect(await subOf('alpha', 'ola')).not.toBe(alpha);
  });

  it.each<ClientId>(['alpha', 'beta', 'plain'])(
    'GET /mock/sessions lists the sub %s sees (localSub: the realm’s own)',
    async (client) => {
      const { idClaims } = await signIn(client, 'kari');
      const listed = await get(`${idp.issuer}/mock/sessions`);
      const session = (listed.json['sessions'] as Record<string, unknown>[]).find(
        (s) => s['id'] === idClaims['sid'],
      );
      expect(session).toMatchObject({
        clientId: client,
        sub: idClaims.sub,
        localSub: KARI_SUB,
        subs: { [client]: idClaims.sub },
      });
      const paged = await get(`${idp.issuer}/mock/sessions?limit=1000`);
      expect(paged.json['sessions']).toContainEqual(session);
    },
  );

  it('the implicit flow and a minted token carry the same pairwise sub', async () => {
    const { idClaims } = await signIn('beta', 'kari');
    const url = authorizeUrl(idp, {
      client: 'beta',
      redirectUri: CLIENTS.beta[0],
      user: 'kari',
      responseType: 'id_token token',
      nonce: 'n',
    });
    const response = await fetch(url, { redirect: 'manual' });
    const fragment = new URLSearchParams(new URL(response.headers.get('location') as string).hash.slice(1));
    expect(decode(fragment.get('id_token') as string).claims.sub).toBe(idClaims.sub);
    expect(await userinfoSub(fragment.get('access_token') as string)).toBe(idClaims.sub);
    const minted = await idp.mint({ type: 'access', client: 'beta', user: 'kari' });
    expect(minted.claims['sub']).toBe(idClaims.sub);
    expect(await userinfoSub(minted.token)).toBe(idClaims.sub);
  });

  it('a service account keeps its own sub at a pairwise client', async () => {
    const answer = await postForm<Record<string, string>>(
      idp.endpoints.token,
      { grant_type: 'client_credentials' },
      { authorization: auth('machine') },
    );
    expect(answer.status, answer.text).toBe(200);
    const { sub } = decode(answer.json['access_token'] as string).claims;
    expect(await introspected(answer.json['access_token'] as string)).toMatchObject({
      sub,
      username: 'service-account-machine',
    });
    const plainMint = await idp.mint({ type: 'access', client: 'machine' });
    expect(plainMint.claims['sub']).toBe(sub);
  });

  it('a back-channel logout token names the user by the sub each client knows', async () => {
    received = [];
    const subs: Record<string, unknown> = {};
    let cookie = '';
    for (const client of ['alpha', 'beta', 'plain'] as const) {
      const url = authorizeUrl(idp, { client, redirectUri: CLIENTS[client][0], user: 'kari', nonce: 'n' });
      const response = await fetch(url, { redirect: 'manual', headers: cookie !== '' ? { cookie } : {} });
      if (cookie === '')
        cookie = response.headers
          .getSetCookie()
          .map((c) => c.split(';')[0])
          .join('; ');
      const code = new URL(response.headers.get('location') as string).searchParams.get('code') as string;
      const answer = await postForm<Record<string, string>>(
        idp.endpoints.token,
        { grant_type: 'authorization_code', code, redirect_uri: CLIENTS[client][0] },
        { authorization: auth(client) },
      );
      subs[client] = decode(answer.json['id_token'] as string).claims.sub;
      subs[`${client} sid`] = decode(answer.json['id_token'] as string).claims['sid'];
    }
    expect(subs['alpha sid']).toBe(subs['plain sid']);
    const logout = await fetch(`${idp.endpoints.logout}?client_id=plain`, { headers: { cookie } });
    expect(logout.status).toBe(200);
    for (let i = 0; i < 200 && received.length < 3; i++) await new Promise((r) => setTimeout(r, 25));
    const jwks = createRemoteJWKSet(new URL(idp.endpoints.certs));
    const byClient: Record<string, unknown> = {};
    for (const line of received) {
      const [path = '', body = ''] = line.split(' ');
      const token = new URLSearchParams(body).get('logout_token') as string;
      const client = path.slice(1);
      const { payload } = await jwtVerify(token, jwks, { issuer: idp.issuer, audience: client });
      byClient[client] = payload.sub;
    }
    expect(byClient).toEqual({ alpha: subs['alpha'], beta: subs['beta'], plain: KARI_SUB });
  });
});

describe('signed userinfo (userinfoSigned: true)', () => {
  it.each<[ClientId, boolean]>([
    ['signed', false],
    ['signed-pairwise', true],
  ])(
    '%s: application/jwt, RS256 with the realm key, iss and aud, the usual claims',
    async (client, pairwise) => {
      const { tokens, idClaims } = await signIn(client, 'kari');
      const response = await fetch(idp.endpoints.userinfo, {
        headers: { authorization: `Bearer ${tokens['access_token']}` },
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/jwt');
      expect(response.headers.get('cache-control')).toBe('no-store');
      const { payload, protectedHeader } = await jwtVerify(
        await response.text(),
        createRemoteJWKSet(new URL(idp.endpoints.certs)),
        { issuer: idp.issuer, audience: client, algorithms: ['RS256'] },
      );
      expect(protectedHeader.kid).toEqual(expect.any(String));
      expect(payload).toMatchObject({ sub: idClaims.sub, name: 'Kari Nordmann', email: 'kari@example.test' });
      expect(payload.sub === KARI_SUB).toBe(!pairwise);
    },
  );

  it('a client without it still gets JSON', async () => {
    const { tokens } = await signIn('plain', 'kari');
    const answer = await get(idp.endpoints.userinfo, { authorization: `Bearer ${tokens['access_token']}` });
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(answer.json).toMatchObject({ sub: KARI_SUB, name: 'Kari Nordmann' });
  });

  it.each<[string, Record<string, string>]>([
    ['no token', {}],
    ['a token that is not one of the realm', { authorization: 'Bearer not-a-token' }],
  ])('errors stay JSON with WWW-Authenticate: %s', async (_name, headers) => {
    const answer = await get(idp.endpoints.userinfo, headers);
    expect(answer.status).toBe(401);
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
    expect(answer.json).toMatchObject({ error: 'invalid_token' });
  });

  it('an expired token of a signed-userinfo client: a JSON error, not a JWT', async () => {
    const minted = await idp.mint({ type: 'access', client: 'signed', user: 'kari', expiresIn: -60 });
    const answer = await get(idp.endpoints.userinfo, { authorization: `Bearer ${minted.token}` });
    expect(answer.status).toBe(401);
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(answer.json).toMatchObject({ error: 'invalid_token' });
  });
});
