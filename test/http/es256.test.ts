// Interface version 3 over HTTP: ES256 tokens with the realm's EC key (verified with jose through certs and
// through the x5c leaf), every token a version 3 sign-in gets, ES256 client keys, the QA mint, determinism.
import { createHash, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  createRemoteJWKSet,
  exportJWK,
  generateKeyPair,
  importX509,
  jwtVerify,
  SignJWT,
  type CryptoKey,
  type JWK,
} from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { FixturesInput } from '../../src/fixtures/schema.js';
import { tempDir, writeTestKey } from '../helpers/files.js';
import { authorizeRedirect, exchangeCode, introspect, loginTokens, refresh } from '../helpers/flows.js';
import { basic, call, get, postForm } from '../helpers/http.js';
import { decode, s256 } from '../helpers/jwt.js';
import {
  endpointsOf,
  FJORD_FIXTURES,
  startIdp,
  useIdp,
  useLocalServer,
  Y2030,
  type TestIdp,
} from '../helpers/server.js';

const V3_CB = 'http://v3.fjord.test/cb';
const V1_CB = 'http://v1.fjord.test/cb';
const EC_CB = 'http://ec.fjord.test/cb';

/** The private key of the ec-signer client (its public JWK is in the fixtures) and one in no JWKS. */
const ecSigner = await generateKeyPair('ES256');
const stranger = await generateKeyPair('ES256');
const ecSignerJwk: JWK = {
  ...(await exportJWK(ecSigner.publicKey)),
  kid: 'ec-signer-1',
  alg: 'ES256',
  use: 'sig',
};

let received: string[] = [];
const logoutReceiver = useLocalServer((req, res) => {
  let body = '';
  req.on('data', (c: Buffer) => (body += c.toString()));
  req.on('end', () => {
    received.push(`${req.url} ${body}`);
    res.writeHead(200).end();
  });
});

/** fjord, plus a client configured for version 3, one for version 1 and one with an EC key in its jwks. */
function fixtures(receiver: string): FixturesInput {
  const f = parse(readFileSync(FJORD_FIXTURES, 'utf8')) as FixturesInput;
  const clients = f.clients as Record<string, Record<string, unknown>>;
  const web = (secret: string, cb: string) => ({
    secret,
    redirectUris: [cb],
    grants: ['authorization_code', 'refresh_token', 'implicit'],
    scopes: ['openid', 'profile', 'idp_proof'],
  });
  clients['v3-app'] = { ...web('v3-pass', V3_CB), apiVersion: 3, backchannelLogoutUri: `${receiver}/v3-app` };
  clients['v1-app'] = { ...web('v1-pass', V1_CB), backchannelLogoutUri: `${receiver}/v1-app` };
  clients['ec-signer'] = {
    authMethods: ['private_key_jwt'],
    jwks: { keys: [ecSignerJwk] },
    redirectUris: [EC_CB],
    grants: ['authorization_code', 'client_credentials'],
    scopes: ['openid', 'ledger.read'],
  };
  return f;
}

const idp = useIdp(() => ({ fixtures: fixtures(logoutReceiver.url), clock: Y2030, frozen: true }));

type Jwks = { keys: JWK[] };
const ecJwkOf = async (target: TestIdp): Promise<JWK> =>
  (await get<Jwks>(target.endpoints.certs)).json.keys.find((k) => k.kty === 'EC') as JWK;

/** Verifies an ES256 token with the realm's JWKS, as a client would. */
async function verifyEs256(token: string, audience?: string) {
  const { payload, protectedHeader } = await jwtVerify(
    token,
    createRemoteJWKSet(new URL(idp.endpoints.certs)),
    {
      algorithms: ['ES256'],
      issuer: idp.issuer,
      currentDate: idp.clock.now(),
      ...(audience !== undefined ? { audience } : {}),
    },
  );
  return { header: protectedHeader, claims: payload as Record<string, unknown> };
}

const v3SignIn = (extra: Record<string, string> = {}) =>
  loginTokens(idp, {
    nonce: 'n-3',
    scope: 'openid profile idp_proof',
    extra: { api_version: '3', ...extra },
  });

describe("the EC key's certificate chain in certs", () => {
  it('the x5c leaf (importX509) verifies a version 3 access token; x5t#S256 is its SHA-256 thumbprint', async () => {
    const ec = await ecJwkOf(idp);
    const [leafDer = '', caDer = ''] = ec.x5c ?? [];
    const pem = `-----BEGIN CERTIFICATE-----\n${leafDer.match(/.{1,64}/g)?.join('\n')}\n-----END CERTIFICATE-----`;
    const tokens = await v3SignIn();
    const { protectedHeader, payload } = await jwtVerify(
      tokens.access_token,
      await importX509(pem, 'ES256'),
      {
        algorithms: ['ES256'],
        issuer: idp.issuer,
        currentDate: idp.clock.now(),
      },
    );
    expect(protectedHeader).toEqual({ alg: 'ES256', typ: 'JWT', kid: ec.kid });
    expect(payload['api_ver']).toBe(3);
    expect(ec['x5t#S256']).toBe(
      createHash('sha256').update(Buffer.from(leafDer, 'base64')).digest('base64url'),
    );

    const leaf = new X509Certificate(Buffer.from(leafDer, 'base64'));
    const ca = new X509Certificate(Buffer.from(caDer, 'base64'));
    expect(leaf.verify(ca.publicKey)).toBe(true);
    expect(leaf.checkIssued(ca)).toBe(true);
    expect(ca.verify(ca.publicKey)).toBe(true);
    expect(ca.ca).toBe(true);
    expect(leaf.ca).toBe(false);
  });
});

describe('every token of a version 3 sign-in is ES256 with the EC key', () => {
  it('code flow: access, ID and proof tokens ES256, refresh token HS256, token_type Bearer', async () => {
    const kid = (await ecJwkOf(idp)).kid;
    const tokens = await v3SignIn();
    expect(tokens.token_type).toBe('Bearer');
    const proof = tokens.idp_proof as string;
    for (const token of [tokens.access_token, tokens.id_token as string, proof])
      expect(decode(token).header).toEqual({ alg: 'ES256', typ: 'JWT', kid });
    expect((await verifyEs256(tokens.id_token as string, 'teller-web')).claims).toMatchObject({
      api_ver: 3,
      nonce: 'n-3',
    });
    expect((await verifyEs256(proof)).claims['typ']).toBe('Proof');
    expect(decode(tokens.refresh_token).header.alg).toBe('HS256');
  });

  it('refresh answers ES256 again; userinfo takes the ES256 access token', async () => {
    const first = await v3SignIn();
    const answer = await refresh(idp, first.refresh_token);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.token_type).toBe('Bearer');
    expect((await verifyEs256(answer.json.access_token)).claims['api_ver']).toBe(3);
    expect((await verifyEs256(answer.json.id_token as string, 'teller-web')).claims['api_ver']).toBe(3);
    const info = await get(idp.endpoints.userinfo, { authorization: `Bearer ${answer.json.access_token}` });
    expect(info.status, info.text).toBe(200);
    expect(info.json).toMatchObject({ sub: '7f3e2a10-5b6c-4d7e-8f90-a1b2c3d4e5f6', name: 'Ingrid Fjeld' });
  });

  it('introspection: a version 3 access token is active; the same with other signature bytes is not', async () => {
    const { access_token } = await v3SignIn({ scope: 'openid ledger.read' });
    const active = await introspect(idp, access_token);
    expect(active.status, active.text).toBe(200);
    expect(active.json).toMatchObject({ active: true, api_ver: 3, typ: 'Bearer' });
    const [h, p, sig = ''] = access_token.split('.');
    const flipped = `${h}.${p}.${sig.startsWith('A') ? 'B' : 'A'}${sig.slice(1)}`;
    expect((await introspect(idp, flipped)).json).toEqual({ active: false });
  });

  it('the front channel (token id_token) of a client configured for 3: ES256, token_type Bearer', async () => {
    const params = await authorizeRedirect(idp, {
      client: 'v3-app',
      redirectUri: V3_CB,
      responseType: 'token id_token',
      nonce: 'n-front',
    });
    expect(params.get('token_type')).toBe('Bearer');
    const id = await verifyEs256(params.get('id_token') as string, 'v3-app');
    expect(id.claims).toMatchObject({ api_ver: 3, nonce: 'n-front' });
    expect((await verifyEs256(params.get('access_token') as string)).claims['api_ver']).toBe(3);
  });

  it('version 1 keeps RS256 with the RSA key and the realm token_type', async () => {
    const tokens = await loginTokens(idp, { nonce: 'n-1' });
    expect(tokens.token_type).toBe('bearer');
    expect(decode(tokens.access_token).header.alg).toBe('RS256');
    expect(decode(tokens.id_token as string).header.alg).toBe('RS256');
  });
});

describe('back-channel logout tokens follow the receiving client', () => {
  it("ES256 to a client configured for 3, RS256 to one of version 1 (the session's clients alike)", async () => {
    received = [];
    let cookie = '';
    for (const [client, cb] of [
      ['v3-app', V3_CB],
      ['v1-app', V1_CB],
    ] as const) {
      const url = `${idp.endpoints.auth}?${new URLSearchParams({
        response_type: 'code',
        client_id: client,
        redirect_uri: cb,
        scope: 'openid',
        login_hint: 'ingrid',
      })}`;
      const response = await fetch(url, { redirect: 'manual', headers: cookie !== '' ? { cookie } : {} });
      expect(response.status).toBe(302);
      if (cookie === '')
        cookie = response.headers
          .getSetCookie()
          .map((c) => c.split(';')[0])
          .join('; ');
    }
    const logout = await fetch(`${idp.endpoints.logout}?client_id=v1-app`, { headers: { cookie } });
    expect(logout.status).toBe(200);
    for (let i = 0; i < 200 && received.length < 2; i++) await new Promise((r) => setTimeout(r, 25));
    const algs: Record<string, unknown> = {};
    const jwks = createRemoteJWKSet(new URL(idp.endpoints.certs));
    for (const line of received) {
      const [path = '', body = ''] = line.split(' ');
      const token = new URLSearchParams(body).get('logout_token') as string;
      const { protectedHeader } = await jwtVerify(token, jwks, {
        issuer: idp.issuer,
        audience: path.slice(1),
      });
      algs[path.slice(1)] = [protectedHeader.alg, protectedHeader.typ];
    }
    expect(algs).toEqual({ 'v3-app': ['ES256', 'logout+jwt'], 'v1-app': ['RS256', 'logout+jwt'] });
  });
});

describe("ES256 client keys: a client's jwks with an EC P-256 key", () => {
  const assertion = (key: CryptoKey, kid: string) =>
    new SignJWT({ jti: crypto.randomUUID() })
      .setProtectedHeader({ alg: 'ES256', kid })
      .setIssuer('ec-signer')
      .setSubject('ec-signer')
      .setAudience(idp.endpoints.token)
      .setIssuedAt()
      .setExpirationTime('60s')
      .sign(key);

  const clientCredentialsWith = (clientAssertion: string) =>
    postForm(idp.endpoints.token, {
      grant_type: 'client_credentials',
      scope: 'ledger.read',
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: clientAssertion,
    });

  it('private_key_jwt: an ES256 client assertion is accepted', async () => {
    const answer = await clientCredentialsWith(await assertion(ecSigner.privateKey, 'ec-signer-1'));
    expect(answer.status, answer.text).toBe(200);
    expect(decode(answer.json['access_token'] as string).claims['azp']).toBe('ec-signer');
  });

  it.each<[string, () => Promise<string>, string]>([
    [
      'signed by a key in no jwks, under the jwks kid',
      () => assertion(stranger.privateKey, 'ec-signer-1'),
      'Invalid client assertion: signature verification failed',
    ],
    [
      'signed under a kid the jwks does not hold',
      () => assertion(ecSigner.privateKey, 'other-kid'),
      'Invalid client assertion: no applicable key found in the JSON Web Key Set',
    ],
  ])('private_key_jwt: an ES256 assertion %s is refused', async (_name, make, description) => {
    const answer = await clientCredentialsWith(await make());
    expect(answer.status).toBe(401);
    expect(answer.json).toEqual({ error: 'unauthorized_client', error_description: description });
  });

  const requestObject = (key: CryptoKey) =>
    new SignJWT({
      client_id: 'ec-signer',
      response_type: 'code',
      redirect_uri: EC_CB,
      scope: 'openid',
      api_version: 3,
    })
      .setProtectedHeader({ alg: 'ES256', kid: 'ec-signer-1' })
      .setIssuer('ec-signer')
      .setAudience(idp.issuer)
      .setIssuedAt()
      .setExpirationTime('60s')
      .sign(key);

  it('an ES256 request object is accepted (its api_version 3 gives an ES256 ID token)', async () => {
    const params = await authorizeRedirect(idp, {
      client: 'ec-signer',
      redirectUri: EC_CB,
      extra: { request: await requestObject(ecSigner.privateKey) },
    });
    const code = params.get('code') as string;
    expect(code, params.toString()).toBeTruthy();
    const answer = await postForm<Record<string, string>>(idp.endpoints.token, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: EC_CB,
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: await assertion(ecSigner.privateKey, 'ec-signer-1'),
    });
    expect(answer.status, answer.text).toBe(200);
    expect((await verifyEs256(answer.json['id_token'] as string, 'ec-signer')).claims['api_ver']).toBe(3);
  });

  it('an ES256 request object signed by a key in no jwks: invalid_request_object', async () => {
    const params = await authorizeRedirect(idp, {
      client: 'ec-signer',
      redirectUri: EC_CB,
      extra: { request: await requestObject(stranger.privateKey) },
    });
    expect(params.get('error')).toBe('invalid_request_object');
    expect(params.get('error_description')).toBe('Invalid request object: signature verification failed');
  });
});

describe('the QA mint and decoder at version 3', () => {
  const mint = (body: Record<string, unknown>) =>
    call<{ token: string }>('POST', `${idp.issuer}/mock/tokens`, {
      type: 'access',
      client: 'teller-web',
      user: 'ingrid',
      apiVersion: 3,
      ...body,
    });
  const decoder = async (token: string) =>
    (await call<{ valid: boolean; reason: string }>('POST', `${idp.issuer}/mock/tokens/verify`, { token }))
      .json;

  it('signature valid: ES256 verified with jose against the JWKS; the decoder names api_ver and alg', async () => {
    const answer = await mint({});
    expect(answer.status, answer.text).toBe(200);
    const { header, claims } = await verifyEs256(answer.json.token);
    expect(header).toEqual({ alg: 'ES256', typ: 'JWT', kid: (await ecJwkOf(idp)).kid });
    expect(claims['api_ver']).toBe(3);
    expect(await decoder(answer.json.token)).toMatchObject({
      valid: true,
      reason: 'an active access token of this realm (api_ver 3, ES256)',
    });
  });

  it.each<[string, string, RegExp]>([
    ['invalid', 'ES256', /^bad signature \(kid "[^"]+"\)$/],
    ['unknown-key', 'ES256', /^unknown kid "[^"]+"/],
    ['none', 'none', /^alg none is not accepted \(RS256 or ES256 tokens, HS256 refresh tokens\)$/],
  ])('signature %s: alg %s, refused by the decoder', async (signature, alg, reason) => {
    const answer = await mint({ signature });
    expect(answer.status, answer.text).toBe(200);
    expect(decode(answer.json.token).header.alg).toBe(alg);
    const verdict = await decoder(answer.json.token);
    expect(verdict.valid).toBe(false);
    expect(verdict.reason).toMatch(reason);
  });
});

describe('determinism under a seed, a fixed RSA key and a frozen clock', () => {
  const tmp = tempDir();
  afterAll(() => tmp.remove());
  const keyFile = writeTestKey(tmp.dir);
  const ISSUER = 'http://idp.test/realms/fjord';
  const VERIFIER = 'w'.repeat(43);

  /** certs, a version 3 code flow (authorize, token, refresh) and a QA mint, as texts. */
  async function run(target: TestIdp): Promise<string[]> {
    const certs = await get(target.endpoints.certs);
    const params = await authorizeRedirect(target, {
      nonce: 'n-d',
      codeChallenge: s256(VERIFIER),
      codeChallengeMethod: 'S256',
      extra: { api_version: '3' },
    });
    const tokens = await exchangeCode(target, params.get('code') as string, {
      extra: { code_verifier: VERIFIER },
    });
    const refreshed = await refresh(target, tokens.json.refresh_token);
    const minted = await call('POST', `${target.issuer}/mock/tokens`, {
      type: 'id',
      client: 'teller-web',
      user: 'ingrid',
      apiVersion: 3,
    });
    // All of certs: the signing keys, the EC chain and the encryption key (the RSA key's, under its own kid).
    return [certs.text, params.toString(), tokens.text, refreshed.text, minted.text];
  }

  it('two servers give byte-identical ES256 tokens and certs; another seed does not', async () => {
    const texts: string[][] = [];
    for (const seed of ['es', 'es', 'other']) {
      const server = await startIdp({ keyFile, seed, clock: Y2030, frozen: true, issuer: ISSUER });
      try {
        // Reached on its port, known by the fixed issuer (tokens name it, whatever the port).
        const base = `http://127.0.0.1:${server.port}/realms/fjord`;
        texts.push(
          await run(
            Object.assign(Object.create(server) as TestIdp, { endpoints: endpointsOf(base), issuer: base }),
          ),
        );
      } finally {
        await server.close();
      }
    }
    const [a = [], b = [], c = []] = texts;
    expect(JSON.parse(a[2] ?? '{}')).toMatchObject({ token_type: 'Bearer' });
    expect(decode(JSON.parse(a[2] ?? '{}').id_token as string).header.alg).toBe('ES256');
    expect(b).toEqual(a);
    const kids = (JSON.parse(a[0] ?? '{}') as Jwks).keys.map((k) => `${k.use}:${k.kty}`);
    expect(kids).toEqual(['sig:RSA', 'sig:EC', 'enc:RSA']);
    expect(new Set((JSON.parse(a[0] ?? '{}') as Jwks).keys.map((k) => k.kid)).size).toBe(3);
    expect(c[0]).not.toBe(a[0]);
    expect(c[2]).not.toBe(a[2]);
  });
});

describe('a client configured for version 3 (clients.{id}.apiVersion)', () => {
  it('signs in at version 3 without api_version: ES256, api_ver 3, token_type Bearer', async () => {
    const params = await authorizeRedirect(idp, { client: 'v3-app', redirectUri: V3_CB });
    const answer = await postForm<Record<string, string>>(
      idp.endpoints.token,
      { grant_type: 'authorization_code', code: params.get('code') as string, redirect_uri: V3_CB },
      { authorization: basic('v3-app', 'v3-pass') },
    );
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json['token_type']).toBe('Bearer');
    expect((await verifyEs256(answer.json['access_token'] as string)).claims['api_ver']).toBe(3);
  });
});
