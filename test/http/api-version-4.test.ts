// Interface version 4 over HTTP: every refusal it adds at authorize and at the token endpoint, the national
// id as login_hint through a pushed request and an encrypted request object, the claims it leaves out (and
// versions 1–3 keep), the QA mint, and openid-client 6's code flow, plain and pushed.
import { readFileSync } from 'node:fs';
import {
  CompactEncrypt,
  createRemoteJWKSet,
  importJWK,
  jwtVerify,
  SignJWT,
  type CryptoKey,
  type JWK,
  type JWTPayload,
} from 'jose';
import * as client from 'openid-client';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { FixturesInput } from '../../src/fixtures/schema.js';
import { BUNDLED_FIXTURES, readFixturesSummary } from '../../src/testcontainers/fixtures-summary.js';
import { authorizeWith, exchangeCode, redirectParams, type TokenResponse } from '../helpers/flows.js';
import { basic, call, get, postForm, type Answer } from '../helpers/http.js';
import { s256, vaultSignerKey, type Claims } from '../helpers/jwt.js';
import { codeFlow, type CodeFlowTokens } from '../helpers/openid-client.js';
import { FJORD_FIXTURES, useIdp } from '../helpers/server.js';

const CB = 'http://app.fjord.test/cb';
const VAULT_CB = 'http://vault.fjord.test/cb';
const FRONT_CB = 'http://front.fjord.test/cb';
const TELLER = basic('teller-web', 'teller-pass-7');
/** ingrid's national identity number (her nnin_altsub in the fjord fixtures) and sub. */
const NNIN = '17037912345';
const INGRID = '7f3e2a10-5b6c-4d7e-8f90-a1b2c3d4e5f6';
const VERIFIER = 'version-four-verifier-0123456789-abcdefghijklmnop';
const CHALLENGE = s256(VERIFIER);
const HINT_REFUSED =
  'Invalid parameter: login_hint carries a national identity number; api_version 4 accepts one only inside a pushed request or an encrypted request object';
const PROOF_REFUSED = 'Invalid scopes: idp_proof (api_version 4 has no proof token; leave the scope out)';
/** What version 4 leaves out of each place; versions 1–3 have them all. */
const GONE = {
  access: ['originator', 'session_state', 'nonce'],
  id: ['originator', 'additionalCertInfo', 'tid', 'session_state'],
  userinfo: ['originator', 'additionalCertInfo', 'tid'],
} as const;

/** The fjord realm, with ingrid's password, clients configured for version 4 and one allowed implicit. */
function fixtures(): FixturesInput {
  const f = parse(readFileSync(FJORD_FIXTURES, 'utf8')) as FixturesInput;
  const clients = f.clients as Record<string, Record<string, unknown>>;
  const users = f.users as Record<string, Record<string, unknown>>;
  users['ingrid'] = { ...users['ingrid'], password: 'ingrid-pass' };
  clients['sync-4'] = {
    secret: 'sync-4-pass',
    grants: ['client_credentials'],
    scopes: ['ledger.read', 'idp_proof'],
    apiVersion: 4,
  };
  clients['pw-4'] = {
    secret: 'pw-4-pass',
    grants: ['password', 'refresh_token'],
    scopes: ['openid', 'profile', 'idp_proof'],
    apiVersion: 4,
  };
  clients['web-4'] = {
    secret: 'web-4-pass',
    redirectUris: [CB],
    grants: ['authorization_code'],
    scopes: ['openid', 'profile'],
    apiVersion: 4,
  };
  clients['front'] = {
    secret: 'front-pass',
    redirectUris: [FRONT_CB],
    grants: ['authorization_code', 'implicit'],
    scopes: ['openid'],
  };
  return f;
}

const idp = useIdp(() => ({ fixtures: fixtures() }));

/** Verifies a token with the realm's JWKS as a client would, whatever alg its version signs with. */
async function verified(token: string, audience?: string): Promise<Claims> {
  const jwks = createRemoteJWKSet(new URL(idp.endpoints.certs));
  const { payload } = await jwtVerify(token, jwks, {
    issuer: idp.issuer,
    ...(audience !== undefined ? { audience } : {}),
  });
  return payload as Claims;
}

/** A version 4 authorize request of teller-web that passes, with `changes` applied (undefined: left out). */
function v4Query(changes: Record<string, string | undefined> = {}): Record<string, string> {
  const query: Record<string, string | undefined> = {
    response_type: 'code',
    client_id: 'teller-web',
    redirect_uri: CB,
    scope: 'openid profile',
    state: 'st-4',
    nonce: 'n-4',
    code_challenge: CHALLENGE,
    code_challenge_method: 'S256',
    api_version: '4',
    login_hint: 'ingrid',
    ...changes,
  };
  return Object.fromEntries(Object.entries(query).filter((e): e is [string, string] => e[1] !== undefined));
}

/** A code flow of teller-web with `query`, exchanged with the PKCE verifier: the token response. */
async function tokensFor(query: Record<string, string>): Promise<TokenResponse> {
  const params = await redirectParams(await authorizeWith(idp, query), CB);
  const code = params.get('code');
  expect(code, params.toString()).toBeTruthy();
  const answer = await exchangeCode(idp, code as string, { extra: { code_verifier: VERIFIER } });
  expect(answer.status, answer.text).toBe(200);
  return answer.json;
}

let encJwk: JWK;
let signerKey: CryptoKey;
beforeAll(async () => {
  signerKey = await vaultSignerKey();
  const { json } = await get<{ keys: JWK[] }>(idp.endpoints.certs);
  encJwk = json.keys.find((k) => k.use === 'enc') as JWK;
});

/** vault-signer's request object (RS256 with its fixture key) holding `claims`, encrypted to the realm or not. */
async function requestObject(claims: Record<string, unknown>, encrypted: boolean): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const payload: JWTPayload = { iss: 'vault-signer', aud: idp.issuer, iat: now, exp: now + 60, ...claims };
  const signed = await new SignJWT(payload)
    .setProtectedHeader({ alg: 'RS256', kid: 'vault-signer-2024' })
    .sign(signerKey);
  if (!encrypted) return signed;
  return new CompactEncrypt(new TextEncoder().encode(signed))
    .setProtectedHeader({ alg: 'RSA-OAEP-256', enc: 'A256GCM', cty: 'JWT', kid: encJwk.kid as string })
    .encrypt(await importJWK({ ...encJwk, alg: 'RSA-OAEP-256' }, 'RSA-OAEP-256'));
}

/** vault-signer's version 4 parameters, as its request object carries them. */
const VAULT_V4 = {
  client_id: 'vault-signer',
  response_type: 'code',
  redirect_uri: VAULT_CB,
  scope: 'openid',
  state: 'st-jar',
  nonce: 'n-jar',
  code_challenge: CHALLENGE,
  code_challenge_method: 'S256',
  api_version: 4,
};

describe('version 4 refuses at authorize, to the redirect URI with state and iss', () => {
  it.each<[string, Record<string, string | undefined>, string, string]>([
    [
      'no code_challenge',
      { code_challenge: undefined, code_challenge_method: undefined },
      'invalid_request',
      'Missing parameter: code_challenge (api_version 4 requires PKCE with S256)',
    ],
    [
      'code_challenge_method plain',
      { code_challenge_method: 'plain' },
      'invalid_request',
      'Invalid parameter: code_challenge_method "plain" (api_version 4 requires S256)',
    ],
    [
      'no code_challenge_method (plain by default)',
      { code_challenge_method: undefined },
      'invalid_request',
      'Missing parameter: code_challenge_method (api_version 4 requires S256; plain is refused)',
    ],
    [
      'no state',
      { state: undefined },
      'invalid_request',
      'Missing parameter: state (required at api_version 4)',
    ],
    [
      'no nonce',
      { nonce: undefined },
      'invalid_request',
      'Missing parameter: nonce (required at api_version 4)',
    ],
    ['the proof scope', { scope: 'openid idp_proof' }, 'invalid_scope', PROOF_REFUSED],
    ['a national id hint BID:{id}', { login_hint: `BID:${NNIN}` }, 'invalid_request', HINT_REFUSED],
    ['a national id hint :{id}', { login_hint: `:${NNIN}` }, 'invalid_request', HINT_REFUSED],
    ['a national id hint of no user', { login_hint: 'BID:01010100000' }, 'invalid_request', HINT_REFUSED],
    [
      'implicit (id_token) without PKCE: the same rules for every response type',
      {
        response_type: 'id_token',
        client_id: 'front',
        redirect_uri: FRONT_CB,
        scope: 'openid',
        code_challenge: undefined,
        code_challenge_method: undefined,
      },
      'invalid_request',
      'Missing parameter: code_challenge (api_version 4 requires PKCE with S256)',
    ],
  ])('%s: %s', async (_name, changes, error, description) => {
    const query = v4Query(changes);
    // The implicit row's error goes to the fragment, as its tokens would.
    const base = query['redirect_uri'] as string;
    const response = await authorizeWith(idp, query);
    const url = new URL(response.headers.get('location') ?? 'http://none/');
    expect(response.status, await response.text()).toBe(302);
    expect(`${url.origin}${url.pathname}`).toBe(base);
    const params = url.hash.length > 1 ? new URLSearchParams(url.hash.slice(1)) : url.searchParams;
    expect(Object.fromEntries(params)).toEqual({
      error,
      error_description: description,
      ...(query['state'] !== undefined ? { state: query['state'] } : {}),
      iss: idp.issuer,
    });
  });

  it.each<[string, (hint: string) => Promise<Record<string, string>>]>([
    [
      'in a request object that is signed, not encrypted',
      async (hint) => ({
        client_id: 'vault-signer',
        request: await requestObject({ ...VAULT_V4, login_hint: hint }, false),
      }),
    ],
    [
      'in the query beside an encrypted request object that has none',
      async (hint) => ({
        client_id: 'vault-signer',
        redirect_uri: VAULT_CB,
        login_hint: hint,
        request: await requestObject(VAULT_V4, true),
      }),
    ],
  ])('a national id hint %s: invalid_request', async (_name, query) => {
    const params = await redirectParams(await authorizeWith(idp, await query(`BID:${NNIN}`)), VAULT_CB);
    expect(Object.fromEntries(params)).toEqual({
      error: 'invalid_request',
      error_description: HINT_REFUSED,
      state: 'st-jar',
      iss: idp.issuer,
    });
  });

  it('a pushed request without PKCE: 400 invalid_request from the PAR endpoint', async () => {
    const answer = await postForm(
      idp.endpoints.par,
      v4Query({ code_challenge: undefined, code_challenge_method: undefined }),
      { authorization: TELLER },
    );
    expect(answer.status, answer.text).toBe(400);
    expect(answer.json).toEqual({
      error: 'invalid_request',
      error_description: 'Missing parameter: code_challenge (api_version 4 requires PKCE with S256)',
    });
  });
});

describe('versions 1–3 keep the rules of before', () => {
  it.each(['1', '2', '3'])(
    'api_version %s: no PKCE, state or nonce, a plain national id hint and the proof scope: tokens and a proof',
    async (version) => {
      const query = v4Query({
        api_version: version,
        code_challenge: undefined,
        code_challenge_method: undefined,
        state: undefined,
        nonce: undefined,
        login_hint: `BID:${NNIN}`,
        scope: 'openid idp_proof',
      });
      const params = await redirectParams(await authorizeWith(idp, query), CB);
      const answer = await exchangeCode(idp, params.get('code') as string);
      expect(answer.status, answer.text).toBe(200);
      expect(answer.json.idp_proof).toBeTruthy();
      expect((await verified(answer.json.id_token as string, 'teller-web'))['sub']).toBe(INGRID);
    },
  );
});

describe('a national id hint at version 4 where only the client and the realm read it', () => {
  it.each(['BID:', ':'])('pushed (%s{id}): ingrid signs in', async (form) => {
    const pushed = await postForm(idp.endpoints.par, v4Query({ login_hint: `${form}${NNIN}` }), {
      authorization: TELLER,
    });
    expect(pushed.status, pushed.text).toBe(201);
    const tokens = await tokensFor({
      client_id: 'teller-web',
      request_uri: String(pushed.json['request_uri']),
    });
    const id = await verified(tokens.id_token as string, 'teller-web');
    expect(id).toMatchObject({ sub: INGRID, nonce: 'n-4', api_ver: 4 });
  });

  it.each(['BID:', ':'])('inside an encrypted request object (%s{id}): a code for ingrid', async (form) => {
    const request = await requestObject({ ...VAULT_V4, login_hint: `${form}${NNIN}` }, true);
    const params = await redirectParams(
      await authorizeWith(idp, { client_id: 'vault-signer', request }),
      VAULT_CB,
    );
    expect(params.get('error'), params.toString()).toBeNull();
    expect(params.get('code')).toBeTruthy();
    expect(params.get('state')).toBe('st-jar');
  });
});

describe('a national id hint at version 4 that names no one', () => {
  /** A synthetic-looking national id no fixture user has. */
  const NOBODY = '31129999999';
  it.each<[string, (hint: string) => Promise<Record<string, string>>]>([
    [
      'pushed',
      async (hint) => {
        const pushed = await postForm(idp.endpoints.par, v4Query({ login_hint: hint }), {
          authorization: TELLER,
        });
        expect(pushed.status, pushed.text).toBe(201);
        return { client_id: 'teller-web', request_uri: String(pushed.json['request_uri']) };
      },
    ],
    [
      'in an encrypted request object',
      async (hint) => ({
        client_id: 'vault-signer',
        request: await requestObject({ ...VAULT_V4, login_hint: hint }, true),
      }),
    ],
  ])('%s: the login page says so without showing the number', async (_how, query) => {
    for (const hint of [`BID:${NOBODY}`, `:${NOBODY}`]) {
      const response = await authorizeWith(idp, await query(hint));
      const page = await response.text();
      expect(response.status, page).toBe(200);
      expect(page).toContain('No user has the national id given in the request');
      expect(page).not.toContain(NOBODY);
    }
  });
});

/** The claims of each place for a sign-in of teller-web with ingrid in `version`. */
async function claimsAt(version: string): Promise<{
  tokens: TokenResponse;
  access: Claims;
  id: Claims;
  userinfo: Record<string, unknown>;
  introspection: Record<string, unknown>;
}> {
  const tokens = await tokensFor(v4Query({ api_version: version }));
  const access = await verified(tokens.access_token);
  const id = await verified(tokens.id_token as string, 'teller-web');
  const info = await get(idp.endpoints.userinfo, { authorization: `Bearer ${tokens.access_token}` });
  expect(info.status, info.text).toBe(200);
  const intro = await postForm(
    idp.endpoints.introspect,
    { token: tokens.access_token },
    { authorization: basic('ledger-api', 'ledger-rs-pass') },
  );
  expect(intro.status, intro.text).toBe(200);
  return { tokens, access, id, userinfo: info.json, introspection: intro.json };
}

describe('the claims version 4 leaves out', () => {
  it.each([
    ['1', true],
    ['2', true],
    ['3', true],
    ['4', false],
  ])('api_version %s: present %s', async (version, present) => {
    const { access, id, userinfo, introspection } = await claimsAt(version);
    const has = (claims: Record<string, unknown>, names: readonly string[]) =>
      Object.fromEntries(names.map((n) => [n, n in claims]));
    const all = (names: readonly string[]) => Object.fromEntries(names.map((n) => [n, present]));
    expect(has(access, GONE.access)).toEqual(all(GONE.access));
    expect(has(introspection, GONE.access)).toEqual(all(GONE.access));
    expect(has(id, GONE.id)).toEqual(all(GONE.id));
    expect(has(userinfo, GONE.userinfo)).toEqual(all(GONE.userinfo));
    // What stays in every version: the ID token's nonce, sid, the other user claims.
    expect(id).toMatchObject({ nonce: 'n-4', sid: access['sid'], name: 'Ingrid Fjeld', sub: INGRID });
    expect(access).toMatchObject({ sid: id['sid'], name: 'Ingrid Fjeld', idp_altsub: '9578-6000-4-246810' });
    expect(userinfo).toMatchObject({ sub: INGRID, name: 'Ingrid Fjeld', branch_code: 'NO-0150' });
    if (version !== '1')
      expect([access['api_ver'], id['api_ver']]).toEqual([Number(version), Number(version)]);
  });

  it('refreshed version 4 tokens leave them out too, and keep the nonce in the ID token', async () => {
    const { tokens } = await claimsAt('4');
    const answer = await postForm<TokenResponse>(
      idp.endpoints.token,
      { grant_type: 'refresh_token', refresh_token: tokens.refresh_token },
      { authorization: TELLER },
    );
    expect(answer.status, answer.text).toBe(200);
    const access = await verified(answer.json.access_token);
    const id = await verified(answer.json.id_token as string, 'teller-web');
    expect(GONE.access.filter((n) => n in access)).toEqual([]);
    expect(GONE.id.filter((n) => n in id)).toEqual([]);
    expect(id).toMatchObject({ nonce: 'n-4', api_ver: 4 });
    expect(answer.json).not.toHaveProperty('idp_proof');
  });
});

describe('the implicit and hybrid response types at version 4', () => {
  it('id_token token with PKCE, state and nonce: front-channel tokens without the left-out claims', async () => {
    const query = v4Query({
      response_type: 'id_token token',
      client_id: 'front',
      redirect_uri: FRONT_CB,
      scope: 'openid',
    });
    const response = await authorizeWith(idp, query);
    expect(response.status, await response.text()).toBe(302);
    const fragment = new URLSearchParams(new URL(response.headers.get('location') as string).hash.slice(1));
    expect(fragment.get('error'), fragment.toString()).toBeNull();
    const access = await verified(fragment.get('access_token') as string);
    const id = await verified(fragment.get('id_token') as string, 'front');
    expect([access['api_ver'], id['api_ver'], id['nonce']]).toEqual([4, 4, 'n-4']);
    expect(GONE.access.filter((n) => n in access)).toEqual([]);
    expect(GONE.id.filter((n) => n in id)).toEqual([]);
  });
});

describe("the library's token() for a client configured for version 4", () => {
  it('runs the code flow with PKCE, state and a nonce', async () => {
    const tokens = await idp.token({ client: 'web-4', user: 'ingrid', scope: 'openid profile' });
    const id = await verified(tokens.id_token as string, 'web-4');
    expect(id).toMatchObject({ sub: INGRID, api_ver: 4 });
    expect(id['nonce']).toMatch(/^flow-\d+$/);
    expect(GONE.id.filter((n) => n in id)).toEqual([]);
  });

  it("the container's token() knows each bundled client's version (web-app-v4: 4)", async () => {
    const { clients } = await readFixturesSummary(BUNDLED_FIXTURES);
    expect([clients.get('web-app')?.apiVersion, clients.get('web-app-v4')?.apiVersion]).toEqual([
      undefined,
      4,
    ]);
  });
});

describe('grants without an authorize request, for a client configured for version 4', () => {
  const token = (body: Record<string, string>, id: string, secret: string): Promise<Answer<TokenResponse>> =>
    postForm<TokenResponse>(idp.endpoints.token, body, { authorization: basic(id, secret) });

  it.each<[string, Record<string, string>, string, string]>([
    [
      'client_credentials',
      { grant_type: 'client_credentials', scope: 'ledger.read idp_proof' },
      'sync-4',
      'sync-4-pass',
    ],
    [
      'password',
      { grant_type: 'password', username: 'ingrid', password: 'ingrid-pass', scope: 'openid idp_proof' },
      'pw-4',
      'pw-4-pass',
    ],
  ])('%s with the proof scope: 400 invalid_scope', async (_name, body, id, secret) => {
    const answer = await token(body, id, secret);
    expect(answer.status, answer.text).toBe(400);
    expect(answer.json).toEqual({ error: 'invalid_scope', error_description: PROOF_REFUSED });
  });

  it('client_credentials: version 4 tokens without session_state', async () => {
    const answer = await token(
      { grant_type: 'client_credentials', scope: 'ledger.read' },
      'sync-4',
      'sync-4-pass',
    );
    expect(answer.status, answer.text).toBe(200);
    const access = await verified(answer.json.access_token);
    expect(access['api_ver']).toBe(4);
    expect(access).not.toHaveProperty('session_state');
    expect(access['sid']).toBeTruthy();
  });

  it('password: version 4 access and ID tokens without the left-out claims', async () => {
    const answer = await token(
      { grant_type: 'password', username: 'ingrid', password: 'ingrid-pass', scope: 'openid profile' },
      'pw-4',
      'pw-4-pass',
    );
    expect(answer.status, answer.text).toBe(200);
    const access = await verified(answer.json.access_token);
    const id = await verified(answer.json.id_token as string, 'pw-4');
    expect([access['api_ver'], id['api_ver']]).toEqual([4, 4]);
    expect(GONE.access.filter((n) => n in access)).toEqual([]);
    expect(GONE.id.filter((n) => n in id)).toEqual([]);
    expect(id).toMatchObject({ sub: INGRID, name: 'Ingrid Fjeld' });
  });
});

describe('the QA mint at version 4', () => {
  const mint = (body: unknown) => call('POST', `${idp.issuer}/mock/tokens`, body);

  it.each([
    ['access', GONE.access],
    ['id', GONE.id],
  ])('%s: the left-out claims are left out', async (type, gone) => {
    const at = async (apiVersion: number) => {
      const answer = await mint({ type, client: 'teller-web', user: 'ingrid', apiVersion });
      expect(answer.status, answer.text).toBe(200);
      return verified((answer.json as { token: string }).token);
    };
    const [v3, v4] = [await at(3), await at(4)];
    // The mint has no nonce: the rest of the list is what version 3 has and version 4 leaves out.
    const expected = gone.filter((n) => n !== 'nonce');
    expect(expected.filter((n) => n in v3)).toEqual(expected);
    expect(gone.filter((n) => n in v4)).toEqual([]);
    expect(v4['api_ver']).toBe(4);
  });

  it('a proof token: 400 invalid_request', async () => {
    const answer = await mint({ type: 'proof', client: 'teller-web', user: 'ingrid', apiVersion: 4 });
    expect(answer.status, answer.text).toBe(400);
    expect(answer.json).toEqual({
      error: 'invalid_request',
      error_description: 'Invalid mint request: api_version 4 has no proof token',
    });
  });
});

describe('openid-client 6 at api_version 4', () => {
  const configure = (): Promise<client.Configuration> =>
    client.discovery(new URL(idp.issuer), 'teller-web', {}, client.ClientSecretBasic('teller-pass-7'), {
      execute: [client.allowInsecureRequests],
    });

  /** The tokens of openid-client's code flow, its ID token and the verified access token, checked for version 4. */
  async function expectVersion4(tokens: CodeFlowTokens, nonce: string) {
    const id = tokens.claims() as Claims;
    expect(id).toMatchObject({ iss: idp.issuer, aud: 'teller-web', sub: INGRID, nonce, api_ver: 4 });
    expect(GONE.id.filter((n) => n in id)).toEqual([]);
    const access = await verified(tokens.access_token);
    expect(access['api_ver']).toBe(4);
    expect(GONE.access.filter((n) => n in access)).toEqual([]);
    expect(tokens).not.toHaveProperty('idp_proof');
  }

  it('buildAuthorizationUrl with PKCE S256, state and nonce, then authorizationCodeGrant', async () => {
    const config = await configure();
    const nonce = client.randomNonce();
    const tokens = await codeFlow(config, {
      redirect_uri: CB,
      scope: 'openid profile',
      nonce,
      login_hint: 'ingrid',
      api_version: '4',
    });
    await expectVersion4(tokens, nonce);
  });

  it('buildAuthorizationUrlWithPAR with a national id login_hint', async () => {
    const config = await configure();
    const nonce = client.randomNonce();
    const tokens = await codeFlow(
      config,
      { redirect_uri: CB, scope: 'openid profile', nonce, login_hint: `BID:${NNIN}`, api_version: '4' },
      {
        build: async (c, params) => {
          const url = await client.buildAuthorizationUrlWithPAR(c, params);
          expect([...url.searchParams.keys()].sort()).toEqual(['client_id', 'request_uri']);
          return url;
        },
      },
    );
    await expectVersion4(tokens, nonce);
  });

  it('the same hint in a plain buildAuthorizationUrl is refused', async () => {
    const config = await configure();
    await expect(
      codeFlow(config, {
        redirect_uri: CB,
        scope: 'openid',
        state: 'st-plain',
        nonce: 'n-plain',
        login_hint: `BID:${NNIN}`,
        api_version: '4',
      }),
    ).rejects.toMatchObject({ error: 'invalid_request', error_description: HINT_REFUSED });
  });
});
