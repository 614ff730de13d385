// DPoP (RFC 9449) with proofs built by hand with jose: what binds a token, and every refusal, on a mock clock
// frozen in 2030 (a proof made on the real clock passes too, as a standard client makes it).
import { createHash, randomUUID } from 'node:crypto';
import {
  base64url,
  calculateJwkThumbprint,
  decodeJwt,
  exportJWK,
  generateKeyPair,
  SignJWT,
  type CryptoKey,
  type JWK,
} from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectOAuthError } from '../helpers/assert.js';
import { basicFor, codeFor, introspect, type TokenResponse } from '../helpers/flows.js';
import { grantsFixtures } from '../helpers/grants.js';
import { get, postForm, rawRequest, readAnswer, type Answer } from '../helpers/http.js';
import { s256, verifyToken } from '../helpers/jwt.js';
import { useIdp, Y2030 } from '../helpers/server.js';

const idp = useIdp(() => ({
  fixtures: grantsFixtures({
    'dpop-only': {
      secret: 'dpop-pass',
      grants: ['client_credentials'],
      scopes: ['ledger.read'],
      dpop: 'required',
    },
  }),
  clock: Y2030,
  frozen: true,
}));

interface Holder {
  privateKey: CryptoKey;
  jwk: JWK;
  jkt: string;
}

async function holder(alg = 'ES256'): Promise<Holder> {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
  const jwk = await exportJWK(publicKey);
  return { privateKey, jwk, jkt: await calculateJwkThumbprint(jwk) };
}

const key = await holder();
const otherKey = await holder();

interface ProofOptions {
  htm?: string;
  htu?: string;
  /** Seconds from the mock clock's now. */
  iatFromNow?: number;
  iat?: number;
  jti?: string;
  ath?: string;
  typ?: string;
  /** The header's jwk (default: the signer's public key). */
  jwk?: JWK;
  signer?: Holder;
  /** Claims left out. */
  omit?: string[];
}

/** A proof made with jose, as a client would (default: POST to the token endpoint, now, signed by `key`). */
async function proof(o: ProofOptions = {}): Promise<string> {
  const signer = o.signer ?? key;
  const claims: Record<string, unknown> = {
    htm: o.htm ?? 'POST',
    htu: o.htu ?? idp.endpoints.token,
    iat: o.iat ?? idp.clock.nowSeconds() + (o.iatFromNow ?? 0),
    jti: o.jti ?? randomUUID(),
    ...(o.ath !== undefined ? { ath: o.ath } : {}),
  };
  for (const name of o.omit ?? []) delete claims[name];
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'ES256', typ: o.typ ?? 'dpop+jwt', jwk: o.jwk ?? signer.jwk })
    .sign(signer.privateKey);
}

const ath = (token: string): string => createHash('sha256').update(token).digest('base64url');

/** client_credentials for ledger-sync with these DPoP header values. */
function clientCredentials(dpop: string | string[] | undefined, client = 'ledger-sync'): Promise<Answer> {
  const auth = client === 'dpop-only' ? `Basic ${btoa('dpop-only:dpop-pass')}` : basicFor('ledger-sync');
  const body = new URLSearchParams({ grant_type: 'client_credentials', scope: 'ledger.read' }).toString();
  const { origin, pathname } = new URL(idp.endpoints.token);
  return rawRequest(origin, {
    method: 'POST',
    path: pathname,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: auth,
      ...(dpop !== undefined ? { dpop } : {}),
    },
    body,
  }).then((raw) => {
    let json: Record<string, unknown> = {};
    try {
      json = JSON.parse(raw.text) as Record<string, unknown>;
    } catch {
      // not JSON: the assertions say so
    }
    return {
      status: raw.status,
      headers: new Headers(raw.headers as Record<string, string>),
      text: raw.text,
      json,
    };
  });
}

/** Userinfo with an Authorization header and, when given, a DPoP header. */
async function userinfo(authorization: string, dpop?: string): Promise<Answer> {
  return readAnswer(
    await fetch(idp.endpoints.userinfo, {
      headers: { authorization, ...(dpop !== undefined ? { dpop } : {}) },
    }),
  );
}

describe('a valid proof binds the token', () => {
  it('client_credentials: token_type DPoP, cnf.jkt the key thumbprint, introspection shows both', async () => {
    const answer = await clientCredentials(await proof());
    expect(answer.status, answer.text).toBe(200);
    const tokens = answer.json as unknown as TokenResponse;
    expect(tokens.token_type).toBe('DPoP');
    const { claims } = await verifyToken(idp, tokens.access_token);
    expect(claims['cnf']).toEqual({ jkt: key.jkt });
    const seen = await introspect(idp, tokens.access_token);
    expect(seen.json).toMatchObject({ active: true, cnf: { jkt: key.jkt }, token_type: 'DPoP' });
  });

  it('htu is compared as RFC 9449 says: scheme and host case, default port, no query or fragment', async () => {
    const url = new URL(idp.endpoints.token);
    const htu = `HTTP://${url.host.toUpperCase()}${url.pathname}?ignored=1#too`;
    const answer = await clientCredentials(await proof({ htu }));
    expect(answer.status, answer.text).toBe(200);
  });

  it.each([
    [
      'the real clock, as a standard client signs, the mock clock in 2030',
      () => Math.floor(Date.now() / 1000),
    ],
    ['the mock clock', () => idp.clock.nowSeconds()],
  ])('iat on %s: accepted, and its replay refused', async (_name, iat) => {
    const once = await proof({ iat: iat() });
    const answer = await clientCredentials(once);
    expect(answer.status, answer.text).toBe(200);
    expect(decodeJwt(answer.json['access_token'] as string)['cnf']).toEqual({ jkt: key.jkt });
    const again = await clientCredentials(once);
    expect(again.status).toBe(400);
    expect(again.json['error_description']).toMatch(/jti was already used/);
  });

  it('without a proof the token is a Bearer token, as before', async () => {
    const answer = await clientCredentials(undefined);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json['token_type']).toMatch(/^bearer$/i);
    expect(decodeJwt(answer.json['access_token'] as string)['cnf']).toBeUndefined();
  });

  it("a confidential client's refresh token is not bound: a refresh needs no proof and gives a Bearer token", async () => {
    const code = await codeFor(idp, { scope: 'openid' });
    const exchanged = await postForm(
      idp.endpoints.token,
      { grant_type: 'authorization_code', code, redirect_uri: 'http://app.fjord.test/cb' },
      { authorization: basicFor('teller-web'), headers: { dpop: await proof() } },
    );
    expect(exchanged.status, exchanged.text).toBe(200);
    expect(decodeJwt(exchanged.json['access_token'] as string)['cnf']).toEqual({ jkt: key.jkt });
    expect(decodeJwt(exchanged.json['refresh_token'] as string)['cnf']).toBeUndefined();
    const refreshed = await postForm(
      idp.endpoints.token,
      { grant_type: 'refresh_token', refresh_token: exchanged.json['refresh_token'] as string },
      basicFor('teller-web'),
    );
    expect(refreshed.status, refreshed.text).toBe(200);
    expect(refreshed.json['token_type']).toMatch(/^bearer$/i);
  });
});

/** A public client's (kiosk-spa) tokens from a code exchange with a proof made with `key`. */
async function publicClientTokens(): Promise<TokenResponse> {
  const verifier = randomUUID() + randomUUID();
  const code = await codeFor(idp, {
    client: 'kiosk-spa',
    redirectUri: 'http://kiosk.fjord.test/cb',
    codeChallenge: s256(verifier),
    codeChallengeMethod: 'S256',
  });
  const answer = await postForm<TokenResponse>(
    idp.endpoints.token,
    {
      grant_type: 'authorization_code',
      code,
      redirect_uri: 'http://kiosk.fjord.test/cb',
      client_id: 'kiosk-spa',
      code_verifier: verifier,
    },
    { headers: { dpop: await proof() } },
  );
  expect(answer.status, answer.text).toBe(200);
  return answer.json;
}

const refreshPublic = async (refreshToken: string, dpop?: string): Promise<Answer> =>
  postForm(
    idp.endpoints.token,
    { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: 'kiosk-spa' },
    dpop !== undefined ? { headers: { dpop } } : {},
  );

describe("a public client's refresh token is bound too", () => {
  let tokens: TokenResponse;
  beforeAll(async () => {
    tokens = await publicClientTokens();
  });

  it('carries cnf.jkt, and a refresh with a proof of the same key gives bound tokens again', async () => {
    expect(decodeJwt(tokens.refresh_token)['cnf']).toEqual({ jkt: key.jkt });
    const refreshed = await refreshPublic(tokens.refresh_token, await proof());
    expect(refreshed.status, refreshed.text).toBe(200);
    expect(refreshed.json['token_type']).toBe('DPoP');
    expect(decodeJwt(refreshed.json['refresh_token'] as string)['cnf']).toEqual({ jkt: key.jkt });
    expect(decodeJwt(refreshed.json['access_token'] as string)['cnf']).toEqual({ jkt: key.jkt });
  });
});

type Refusal = [name: string, send: () => Promise<Answer>, description: RegExp];

describe('refusals at the token endpoint: 400 invalid_dpop_proof saying which check failed', () => {
  const cc = (make: () => Promise<string | string[]>) => async (): Promise<Answer> =>
    clientCredentials(await make());

  it.each<Refusal>([
    ['wrong typ', cc(() => proof({ typ: 'JWT' })), /typ must be "dpop\+jwt"/],
    [
      'alg none',
      cc(async () => {
        const header = base64url.encode(JSON.stringify({ alg: 'none', typ: 'dpop+jwt', jwk: key.jwk }));
        const payload = (await proof()).split('.')[1] as string;
        return `${header}.${payload}.`;
      }),
      /alg "none" is not accepted/,
    ],
    [
      'alg HS256',
      cc(() =>
        new SignJWT({ htm: 'POST', htu: idp.endpoints.token, iat: idp.clock.nowSeconds(), jti: randomUUID() })
          .setProtectedHeader({
            alg: 'HS256',
            typ: 'dpop+jwt',
            // A symmetric key, as an HS256 proof would carry it (jose's types keep it out of a jwk header).
            jwk: { kty: 'oct', k: 'c2VjcmV0' } as JWK,
          })
          .sign(new TextEncoder().encode('a shared secret of thirty-two bytes!')),
      ),
      /alg "HS256" is not accepted/,
    ],
    [
      'private key in the jwk',
      cc(async () => proof({ jwk: await exportJWK(key.privateKey) })),
      /jwk must be a public key.*\(d\)/,
    ],
    ['no jwk', cc(stripJwk), /no jwk/],
    ['wrong htm', cc(() => proof({ htm: 'GET' })), /htm must be the request's method POST/],
    ['wrong htu', cc(() => proof({ htu: idp.endpoints.userinfo })), /htu must be the URL of the request/],
    ['htu not a URL', cc(() => proof({ htu: 'token' })), /htu must be the URL of the request/],
    ['iat 61 s old on the mock clock', cc(() => proof({ iatFromNow: -61 })), /61 s in the past/],
    ['iat 61 s ahead on the mock clock', cc(() => proof({ iatFromNow: 61 })), /61 s in the future/],
    [
      'iat 61 s old on the real clock, the mock clock in 2030',
      cc(() => proof({ iat: Math.floor(Date.now() / 1000) - 61 })),
      /s in the past: a proof must be made within 60 s of the server's time \(1893456000\) or of the real time/,
    ],
    ['no jti', cc(() => proof({ omit: ['jti'] })), /jti is missing/],
    ['no iat', cc(() => proof({ omit: ['iat'] })), /iat is missing/],
    [
      'reused jti',
      async () => {
        const once = await proof();
        expect((await clientCredentials(once)).status).toBe(200);
        return clientCredentials(once);
      },
      /jti was already used/,
    ],
    [
      'two DPoP headers',
      cc(async () => [await proof(), await proof()]),
      /exactly one DPoP header \(the request has 2\)/,
    ],
    [
      'two proofs in one header',
      cc(async () => `${await proof()}, ${await proof()}`),
      /exactly one DPoP header \(the request has 2\)/,
    ],
    ['not a JWT', cc(async () => 'not-a-jwt'), /not a JWT/],
    [
      'bad signature (signed by another key than its jwk)',
      cc(() => proof({ signer: otherKey, jwk: key.jwk })),
      /signature does not verify/,
    ],
    ['required but missing', () => clientCredentials(undefined, 'dpop-only'), /requires a DPoP proof/],
    [
      'refresh of a bound refresh token without a proof',
      async () => refreshPublic((await publicClientTokens()).refresh_token),
      /refresh token is DPoP-bound/,
    ],
    [
      'refresh of a bound refresh token with another key',
      async () =>
        refreshPublic((await publicClientTokens()).refresh_token, await proof({ signer: otherKey })),
      /another key than the one the refresh token is bound to/,
    ],
  ])('%s', async (_name, send, description) => {
    const answer = await send();
    expectOAuthError(answer, 400, 'invalid_dpop_proof');
    expect(answer.json['error_description']).toMatch(description);
  });

  it('a client that requires DPoP gets bound tokens with a proof', async () => {
    const answer = await clientCredentials(await proof(), 'dpop-only');
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json['token_type']).toBe('DPoP');
  });
});

/** A proof whose header has no jwk: signed by `key`, the jwk left out. */
function stripJwk(): Promise<string> {
  return new SignJWT({
    htm: 'POST',
    htu: idp.endpoints.token,
    iat: idp.clock.nowSeconds(),
    jti: randomUUID(),
  })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt' })
    .sign(key.privateKey);
}

describe('userinfo with a DPoP-bound token', () => {
  let token: string;
  beforeAll(async () => {
    const code = await codeFor(idp, { scope: 'openid profile' });
    const answer = await postForm(
      idp.endpoints.token,
      { grant_type: 'authorization_code', code, redirect_uri: 'http://app.fjord.test/cb' },
      { authorization: basicFor('teller-web'), headers: { dpop: await proof() } },
    );
    expect(answer.status, answer.text).toBe(200);
    token = answer.json['access_token'] as string;
  });

  const userinfoProof = (o: ProofOptions = {}): Promise<string> =>
    proof({ htm: 'GET', htu: idp.endpoints.userinfo, ath: ath(token), ...o });

  it('answers Authorization: DPoP with a proof carrying ath', async () => {
    const answer = await userinfo(`DPoP ${token}`, await userinfoProof());
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json).toMatchObject({ preferred_username: 'ingrid' });
  });

  it.each<[string, () => Promise<Answer>, 'invalid_token' | 'invalid_dpop_proof', RegExp]>([
    ['sent as Bearer', () => userinfo(`Bearer ${token}`), 'invalid_token', /DPoP-bound/],
    ['no proof', () => userinfo(`DPoP ${token}`), 'invalid_dpop_proof', /Missing DPoP proof/],
    [
      'proof without ath',
      async () => userinfo(`DPoP ${token}`, await proof({ htm: 'GET', htu: idp.endpoints.userinfo })),
      'invalid_dpop_proof',
      /ath is missing/,
    ],
    [
      'wrong ath',
      async () => userinfo(`DPoP ${token}`, await userinfoProof({ ath: ath('another token') })),
      'invalid_dpop_proof',
      /ath is not the base64url SHA-256/,
    ],
    [
      'proof for the token endpoint',
      async () => userinfo(`DPoP ${token}`, await userinfoProof({ htu: idp.endpoints.token })),
      'invalid_dpop_proof',
      /htu must be the URL of the request/,
    ],
    [
      'proof for POST',
      async () => userinfo(`DPoP ${token}`, await userinfoProof({ htm: 'POST' })),
      'invalid_dpop_proof',
      /htm must be the request's method GET/,
    ],
    [
      'proof made with another key',
      async () => userinfo(`DPoP ${token}`, await userinfoProof({ signer: otherKey })),
      'invalid_token',
      /Invalid DPoP key binding/,
    ],
  ])('%s: 401 and a DPoP challenge', async (_name, send, error, description) => {
    const answer = await send();
    expectOAuthError(answer, 401, error);
    expect(answer.json['error_description']).toMatch(description);
    const challenge = answer.headers.get('www-authenticate') ?? '';
    expect(challenge).toMatch(new RegExp(`^DPoP error="${error}", error_description="[^"]+", algs="[^"]+"$`));
    expect(challenge).toContain('algs="ES256 ES384 ES512 PS256 PS384 PS512 RS256 RS384 RS512 EdDSA Ed25519"');
  });

  it('an unbound token sent with the DPoP scheme is answered when its proof passes, refused without one', async () => {
    const plain = (await clientCredentials(undefined)).json['access_token'] as string;
    const withProof = await userinfo(
      `DPoP ${plain}`,
      await proof({ htm: 'GET', htu: idp.endpoints.userinfo, ath: ath(plain) }),
    );
    expect(withProof.status, withProof.text).toBe(200);
    expectOAuthError(await userinfo(`DPoP ${plain}`), 401, 'invalid_dpop_proof');
  });

  it('a Bearer token is still answered as before', async () => {
    const answer = await clientCredentials(undefined);
    const plain = await get(idp.endpoints.userinfo, {
      authorization: `Bearer ${answer.json['access_token'] as string}`,
    });
    expect(plain.status, plain.text).toBe(200);
  });
});

describe('the QA mint binds a token to a public JWK', () => {
  it('dpopJwk: cnf.jkt is its thumbprint, and userinfo then wants a proof made with it', async () => {
    const minted = await idp.mint({ type: 'access', client: 'teller-web', user: 'ingrid', dpopJwk: key.jwk });
    expect(minted.claims['cnf']).toEqual({ jkt: key.jkt });
    expect((await userinfo(`Bearer ${minted.token}`)).status).toBe(401);
    const proofOf = await proof({ htm: 'GET', htu: idp.endpoints.userinfo, ath: ath(minted.token) });
    const answer = await userinfo(`DPoP ${minted.token}`, proofOf);
    expect(answer.status, answer.text).toBe(200);
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    ['a private key', { type: 'access', dpopJwk: { ...key.jwk, d: 'AAAA' } }, /public key.*\(d\)/],
    ['not a JWK', { type: 'access', dpopJwk: { kty: 'EC' } }, /dpopJwk is not a JWK/],
    ['an ID token', { type: 'id', dpopJwk: key.jwk }, /binds an access or refresh token/],
  ])('POST /mock/tokens refuses dpopJwk of %s', async (_name, body, description) => {
    const answer = await readAnswer(
      await fetch(`${idp.issuer}/mock/tokens`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client: 'teller-web', user: 'ingrid', ...body }),
      }),
    );
    expectOAuthError(answer, 400, 'invalid_request');
    expect(answer.json['error_description']).toMatch(description);
  });
});

describe('dynamic registration: dpop_bound_access_tokens', () => {
  const register = (metadata: Record<string, unknown>): Promise<Answer> =>
    fetch(idp.endpoints.registration, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_types: ['client_credentials'], ...metadata }),
    }).then(readAnswer);

  it('true: echoed, and a token request of the client without a proof is refused', async () => {
    const registered = await register({ dpop_bound_access_tokens: true });
    expect(registered.status, registered.text).toBe(201);
    expect(registered.json['dpop_bound_access_tokens']).toBe(true);
    const auth = `Basic ${btoa(`${registered.json['client_id'] as string}:${registered.json['client_secret'] as string}`)}`;
    const form = { grant_type: 'client_credentials' };
    const refused = await postForm(idp.endpoints.token, form, auth);
    expectOAuthError(refused, 400, 'invalid_dpop_proof');
    expect(refused.json['error_description']).toMatch(/requires a DPoP proof/);
    const bound = await postForm(idp.endpoints.token, form, {
      authorization: auth,
      headers: { dpop: await proof() },
    });
    expect(bound.status, bound.text).toBe(200);
    expect(bound.json['token_type']).toBe('DPoP');
  });

  it('not a boolean: 400 invalid_client_metadata', async () => {
    const answer = await register({ dpop_bound_access_tokens: 'yes' });
    expectOAuthError(answer, 400, 'invalid_client_metadata');
    expect(answer.json['error_description']).toBe('dpop_bound_access_tokens must be true or false');
  });
});

describe('dpop_jkt binds the code to a key (at authorize, or at PAR by dpop_jkt or a proof)', () => {
  const CB = 'http://app.fjord.test/cb';
  const exchange = async (code: string, dpop?: string): Promise<Answer> =>
    postForm(
      idp.endpoints.token,
      { grant_type: 'authorization_code', code, redirect_uri: CB },
      { authorization: basicFor('teller-web'), ...(dpop !== undefined ? { headers: { dpop } } : {}) },
    );
  const push = async (body: Record<string, string>, dpop?: string): Promise<Answer> =>
    postForm(
      idp.endpoints.par,
      { response_type: 'code', redirect_uri: CB, scope: 'openid', login_hint: 'ingrid', ...body },
      { authorization: basicFor('teller-web'), ...(dpop !== undefined ? { headers: { dpop } } : {}) },
    );
  const parProof = (signer = key): Promise<string> => proof({ htu: idp.endpoints.par, signer });
  /** The code of authorize by the request_uri of a push that answered 201. */
  async function pushedCode(pushed: Answer): Promise<string> {
    expect(pushed.status, pushed.text).toBe(201);
    const query = new URLSearchParams({
      client_id: 'teller-web',
      request_uri: String(pushed.json['request_uri']),
    });
    const response = await fetch(`${idp.endpoints.auth}?${query}`, { redirect: 'manual' });
    expect(response.status, await response.text()).toBe(302);
    const code = new URL(response.headers.get('location') as string).searchParams.get('code');
    expect(code).toBeTruthy();
    return code as string;
  }

  const ways: [string, () => Promise<string>][] = [
    ['authorize', () => codeFor(idp, { extra: { dpop_jkt: key.jkt } })],
    ['PAR with dpop_jkt', async () => pushedCode(await push({ dpop_jkt: key.jkt }))],
    ['PAR with a DPoP proof', async () => pushedCode(await push({}, await parProof()))],
    [
      'PAR with both, the same key',
      async () => pushedCode(await push({ dpop_jkt: key.jkt }, await parProof())),
    ],
  ];

  it.each(ways)('%s: the exchange with a proof of that key gives a token bound to it', async (_way, code) => {
    const answer = await exchange(await code(), await proof());
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json['token_type']).toBe('DPoP');
    const { claims } = await verifyToken(idp, answer.json['access_token'] as string);
    expect(claims['cnf']).toEqual({ jkt: key.jkt });
  });

  it.each(ways)('%s: the exchange without a proof is refused', async (_way, code) => {
    const answer = await exchange(await code());
    expectOAuthError(answer, 400, 'invalid_dpop_proof');
    expect(answer.json['error_description']).toMatch(/DPoP proof required: .*dpop_jkt/);
  });

  it.each(ways)('%s: the exchange with a proof of another key is refused', async (_way, code) => {
    const answer = await exchange(await code(), await proof({ signer: otherKey }));
    expectOAuthError(answer, 400, 'invalid_dpop_proof');
    expect(answer.json['error_description']).toContain(`is not the dpop_jkt ${key.jkt}`);
  });

  it('PAR with a proof of one key and dpop_jkt of another: 400 invalid_dpop_proof', async () => {
    const answer = await push({ dpop_jkt: otherKey.jkt }, await parProof());
    expectOAuthError(answer, 400, 'invalid_dpop_proof');
    expect(answer.json['error_description']).toMatch(
      /dpop_jkt .* is not the thumbprint of the DPoP proof's key/,
    );
  });

  it('PAR with a proof that fails a check: 400 invalid_dpop_proof', async () => {
    const answer = await push({}, await proof());
    expectOAuthError(answer, 400, 'invalid_dpop_proof');
    expect(answer.json['error_description']).toMatch(/htu must be the URL of the request/);
  });

  it.each(['not-a-thumbprint', `${key.jkt}=`, key.jkt.slice(1)])(
    'a malformed dpop_jkt %j: invalid_request at authorize and at PAR',
    async (value) => {
      const response = await fetch(
        `${idp.endpoints.auth}?${new URLSearchParams({ client_id: 'teller-web', response_type: 'code', redirect_uri: CB, scope: 'openid', login_hint: 'ingrid', dpop_jkt: value })}`,
        { redirect: 'manual' },
      );
      expect(response.status).toBe(302);
      const params = new URL(response.headers.get('location') as string).searchParams;
      expect(params.get('error')).toBe('invalid_request');
      expect(params.get('error_description')).toMatch(/dpop_jkt must be the base64url SHA-256 thumbprint/);
      expectOAuthError(await push({ dpop_jkt: value }), 400, 'invalid_request');
    },
  );

  it('a code without dpop_jkt is exchanged without a proof, as before', async () => {
    const answer = await exchange(await codeFor(idp));
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json['token_type']).toMatch(/^bearer$/i);
  });
});
