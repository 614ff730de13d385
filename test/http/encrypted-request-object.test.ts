// Encrypted request objects (JWE to the realm's encryption key from /certs) at the authorize endpoint:
// every key management × content encryption pair, signed or none inside, a full code flow with
// openid-client, and every way one cannot be decrypted.
import {
  calculateJwkThumbprint,
  CompactEncrypt,
  exportJWK,
  generateKeyPair,
  importJWK,
  SignJWT,
  type CryptoKey,
  type JWK,
} from 'jose';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MockIdpOptions } from '../../src/index.js';
import { tempDir, writeTestKey } from '../helpers/files.js';
import { get } from '../helpers/http.js';
import { decode, fjordRequestObject, TELLER_CB, VAULT_CB, vaultSignerKey } from '../helpers/jwt.js';
import { authorizeWith, redirectParams } from '../helpers/flows.js';
import { FJORD_FIXTURES, startIdp, useIdp, useLocalServer } from '../helpers/server.js';

const ALGS = ['RSA-OAEP-256', 'RSA-OAEP'] as const;
const ENCS = ['A128GCM', 'A192GCM', 'A256GCM', 'A128CBC-HS256', 'A192CBC-HS384', 'A256CBC-HS512'] as const;

const idp = useIdp();
/** Serves encrypted request objects by path, for request_uri. */
const served = new Map<string, string>();
const host = useLocalServer((req, res) => {
  const object = served.get(req.url ?? '');
  res.writeHead(object === undefined ? 404 : 200, { 'content-type': 'application/oauth-authz-req+jwt' });
  res.end(object);
});
let signerKey: CryptoKey;
let encJwk: JWK;

beforeAll(async () => {
  signerKey = await vaultSignerKey();
  const { json } = await get<{ keys: JWK[] }>(idp.endpoints.certs);
  encJwk = json.keys.find((k) => k.use === 'enc') as JWK;
});

/** A request object for `clientId` (vault-signer: RS256 with its fixture key; else alg none). */
function inner(clientId = 'vault-signer', claims: Record<string, unknown> = {}): Promise<string> {
  return fjordRequestObject(idp, {
    client: clientId,
    alg: clientId === 'vault-signer' ? 'RS256' : 'none',
    key: signerKey,
    claims: { state: 'from-jwe', ...claims },
  });
}

/** `plaintext` encrypted as a client would, to the realm's published encryption key unless told otherwise. */
async function encrypt(
  plaintext: string,
  alg: string = 'RSA-OAEP-256',
  enc: string = 'A256GCM',
  key: JWK = encJwk,
  kid: string | undefined = encJwk.kid,
): Promise<string> {
  return new CompactEncrypt(new TextEncoder().encode(plaintext))
    .setProtectedHeader({ alg, enc, cty: 'JWT', ...(kid !== undefined ? { kid } : {}) })
    .encrypt(await importJWK({ ...key, alg }, alg));
}

const authorize = (query: Record<string, string>): Promise<Response> => authorizeWith(idp, query);

describe("the realm's encryption key", () => {
  it('is an RSA key with use enc and alg RSA-OAEP-256 in /certs, after the signing keys', async () => {
    const { json } = await get<{ keys: JWK[] }>(idp.endpoints.certs);
    expect(json.keys.map((k) => [k.use, k.alg])).toEqual([
      ['sig', 'RS256'],
      ['sig', 'ES256'],
      ['enc', 'RSA-OAEP-256'],
    ]);
    expect(encJwk).toMatchObject({ kty: 'RSA', use: 'enc', alg: 'RSA-OAEP-256', e: 'AQAB' });
    expect(encJwk.d).toBeUndefined();
    expect(encJwk.n?.length).toBe(342); // 2048 bits
  });

  it('discovery lists the algorithms accepted', async () => {
    const { json } = await get(`${idp.issuer}/.well-known/openid-configuration`);
    expect(json['request_object_encryption_alg_values_supported']).toEqual([...ALGS]);
    expect(json['request_object_encryption_enc_values_supported']).toEqual([...ENCS]);
  });
});

describe('a fixed encryption key', () => {
  const tmp = tempDir();
  afterAll(() => tmp.remove());
  const rsaFile = writeTestKey(tmp.dir, 'rsa.pem');
  const encPem = writeTestKey(tmp.dir, 'enc.pem');
  const encPrivate = createPrivateKey(readFileSync(encPem));
  const encJwkFile = join(tmp.dir, 'enc.jwk.json');
  writeFileSync(encJwkFile, JSON.stringify({ ...encPrivate.export({ format: 'jwk' }), use: 'enc' }));
  const fjord = readFileSync(FJORD_FIXTURES, 'utf8');
  const withKeys = join(tmp.dir, 'fjord-keys.yaml');
  writeFileSync(withKeys, `keys:\n  - file: rsa.pem\n  - file: enc.pem\n    use: enc\n${fjord}`);

  /** The server's encryption JWK, and whether a JWE to it comes back as a code. */
  async function check(options: MockIdpOptions): Promise<{ rsa: JWK; enc: JWK; code: string | null }> {
    const server = await startIdp(options);
    try {
      const { json } = await get<{ keys: JWK[] }>(server.endpoints.certs);
      const enc = json.keys.find((k) => k.use === 'enc') as JWK;
      const object = await fjordRequestObject(server, {
        client: 'teller-web',
        alg: 'none',
        claims: { state: 's' },
      });
      const request = await encrypt(object, 'RSA-OAEP-256', 'A256GCM', enc, enc.kid);
      const params = await redirectParams(
        await authorizeWith(server, { client_id: 'teller-web', request }),
        TELLER_CB,
      );
      return { rsa: json.keys[0] as JWK, enc, code: params.get('code') };
    } finally {
      await server.close();
    }
  }

  it.each<[string, MockIdpOptions]>([
    ['fixtures keys: an entry with use enc', { fixtures: withKeys }],
    ['--key: a JWK file with "use": "enc"', { keyFile: [rsaFile, encJwkFile] }],
  ])('%s is the encryption key (kid its thumbprint), not a signing key', async (_name, options) => {
    const { rsa, enc, code } = await check(options);
    const mine = encPrivate.export({ format: 'jwk' });
    expect(enc).toMatchObject({ kty: 'RSA', use: 'enc', alg: 'RSA-OAEP-256', n: mine.n, e: mine.e });
    expect(enc.kid).toBe(await calculateJwkThumbprint(createPublicKey(encPrivate)));
    expect(rsa.n).toBe(createPrivateKey(readFileSync(rsaFile)).export({ format: 'jwk' }).n);
    expect(code).toBeTruthy();
  });

  it('under a seed with a fixed RSA key and none given: the RSA key, under a kid of its own', async () => {
    const { rsa, enc, code } = await check({ keyFile: rsaFile, seed: 'enc' });
    expect(enc.n).toBe(rsa.n);
    expect(enc.kid).not.toBe(rsa.kid);
    expect(code).toBeTruthy();
    // Without a seed the encryption key is made at start, as before.
    const unseeded = await check({ keyFile: rsaFile });
    expect(unseeded.enc.n).not.toBe(unseeded.rsa.n);
  });
});

describe('a JWE request object is decrypted, then checked as a signed one', () => {
  const pairs = ALGS.flatMap((alg) => ENCS.map((enc) => [alg, enc] as const));

  it.each(pairs)('%s / %s around an RS256 object: a code, the state inside', async (alg, enc) => {
    const request = await encrypt(await inner('vault-signer', { state: `${alg}-${enc}` }), alg, enc);
    expect(request.split('.')).toHaveLength(5);
    const params = await redirectParams(await authorize({ client_id: 'vault-signer', request }), VAULT_CB);
    expect(params.get('code')).toBeTruthy();
    expect(params.get('state')).toBe(`${alg}-${enc}`);
  });

  it.each(pairs)('%s / %s around an alg none object', async (alg, enc) => {
    const request = await encrypt(await inner('teller-web'), alg, enc);
    const params = await redirectParams(await authorize({ client_id: 'teller-web', request }), TELLER_CB);
    expect(params.get('code')).toBeTruthy();
    expect(params.get('state')).toBe('from-jwe');
  });

  it('fetched from request_uri', async () => {
    served.set('/sealed', await encrypt(await inner('vault-signer', { state: 'by-reference' })));
    const response = await authorize({ client_id: 'vault-signer', request_uri: `${host.url}/sealed` });
    const params = await redirectParams(response, VAULT_CB);
    expect(params.get('code')).toBeTruthy();
    expect(params.get('state')).toBe('by-reference');
  });

  it('without a kid in the header', async () => {
    const request = await encrypt(await inner(), 'RSA-OAEP', 'A128GCM', encJwk, undefined);
    const params = await redirectParams(await authorize({ client_id: 'vault-signer', request }), VAULT_CB);
    expect(params.get('code')).toBeTruthy();
  });
});

describe('the code flow with openid-client (private_key_jwt), its signed JAR encrypted with jose', () => {
  it('completes with the decrypted parameters', async () => {
    const config = await client.discovery(
      new URL(idp.issuer),
      'vault-signer',
      { redirect_uris: [VAULT_CB] },
      client.PrivateKeyJwt({ key: signerKey, kid: 'vault-signer-2024' }),
      { execute: [client.allowInsecureRequests] },
    );
    const verifier = client.randomPKCECodeVerifier();
    const plain = client.buildAuthorizationUrl(config, {
      redirect_uri: VAULT_CB,
      scope: 'openid',
      state: 'rp-state',
      nonce: 'rp-nonce',
      login_hint: 'ingrid',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const jar = await client.buildAuthorizationUrlWithJAR(config, plain.searchParams, {
      key: signerKey,
      kid: 'vault-signer-2024',
    });
    const url = new URL(idp.endpoints.auth);
    url.search = new URLSearchParams({
      client_id: 'vault-signer',
      request: await encrypt(jar.searchParams.get('request') as string, 'RSA-OAEP-256', 'A128CBC-HS256'),
    }).toString();
    const back = new URL(
      await redirectParams(await fetch(url, { redirect: 'manual' }), VAULT_CB).then(
        (params) => `${VAULT_CB}?${params}`,
      ),
    );
    const tokens = await client.authorizationCodeGrant(config, back, {
      expectedState: 'rp-state',
      expectedNonce: 'rp-nonce',
      pkceCodeVerifier: verifier,
    });
    const claims = tokens.claims();
    expect(claims?.aud).toBe('vault-signer');
    expect(claims?.nonce).toBe('rp-nonce');
    expect(decode(tokens.access_token).claims['azp']).toBe('vault-signer');
  });
});

describe('one the realm cannot decrypt: invalid_request_object to the registered query redirect_uri', () => {
  /** A JWE whose protected header is replaced: its tag no longer holds, but the header is read first. */
  const withHeader = (jwe: string, header: Record<string, unknown>): string =>
    [Buffer.from(JSON.stringify(header)).toString('base64url'), ...jwe.split('.').slice(1)].join('.');
  /** The same JWE with one character of its ciphertext changed. */
  const flip = (jwe: string): string => {
    const parts = jwe.split('.');
    const text = parts[3] as string;
    parts[3] = `${text[0] === 'A' ? 'B' : 'A'}${text.slice(1)}`;
    return parts.join('.');
  };

  const cases: [string, RegExp, () => Promise<string>][] = [
    [
      'encrypted to another key',
      /decryption failed/,
      async () => {
        const other = await generateKeyPair('RSA-OAEP-256', { extractable: true });
        return encrypt(await inner(), 'RSA-OAEP-256', 'A256GCM', await exportJWK(other.publicKey), undefined);
      },
    ],
    [
      'an unknown kid',
      /kid "not-the-realm" is not the realm's encryption key/,
      async () => encrypt(await inner(), 'RSA-OAEP-256', 'A256GCM', encJwk, 'not-the-realm'),
    ],
    ['a bad tag (ciphertext changed)', /decryption failed/, async () => flip(await encrypt(await inner()))],
    [
      'alg RSA1_5 (not accepted)',
      /"alg" \(Algorithm\) Header Parameter value not allowed/,
      async () =>
        withHeader(await encrypt(await inner()), { alg: 'RSA1_5', enc: 'A256GCM', kid: encJwk.kid }),
    ],
    [
      'alg RSA-OAEP-512 (not listed)',
      /"alg" \(Algorithm\) Header Parameter value not allowed/,
      async () => encrypt(await inner(), 'RSA-OAEP-512', 'A256GCM'),
    ],
    [
      'alg dir (not listed)',
      /"alg" \(Algorithm\) Header Parameter value not allowed/,
      async () => withHeader(await encrypt(await inner()), { alg: 'dir', enc: 'A256GCM' }),
    ],
    [
      'enc XC20P (not listed)',
      /"enc" \(Encryption Algorithm\) Header Parameter value not allowed/,
      async () => withHeader(await encrypt(await inner()), { alg: 'RSA-OAEP-256', enc: 'XC20P' }),
    ],
    ['five parts, not a JWE', /cannot be decrypted/, async () => 'a.b.c.d.e'],
    ['a JWE inside a JWE', /a JWE inside a JWE/, async () => encrypt(await encrypt(await inner()))],
    ['the plaintext is not a JWT', /not a JWT/, async () => encrypt('just some text')],
    [
      'the signed object inside is forged',
      /signature/,
      async () => {
        const other = (await generateKeyPair('RS256')).privateKey;
        const forged = await new SignJWT({ client_id: 'vault-signer', redirect_uri: VAULT_CB })
          .setProtectedHeader({ alg: 'RS256', kid: 'vault-signer-2024' })
          .sign(other);
        return encrypt(forged);
      },
    ],
    [
      'the object inside names another client',
      /client_id/,
      async () => encrypt(await inner('vault-signer', { client_id: 'teller-web' })),
    ],
  ];

  it.each(cases)('%s', async (_name, description, make) => {
    const response = await authorize({
      client_id: 'vault-signer',
      response_type: 'code',
      redirect_uri: VAULT_CB,
      state: 'query-state',
      request: await make(),
    });
    const params = await redirectParams(response, VAULT_CB);
    expect(params.get('error')).toBe('invalid_request_object');
    expect(params.get('error_description')).toMatch(description);
    expect(params.get('state')).toBe('query-state');
    expect(params.get('code')).toBeNull();
  });

  it('without a registered redirect_uri in the query: the error page', async () => {
    const request = flip(await encrypt(await inner()));
    const response = await authorize({ client_id: 'vault-signer', request });
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    expect(await response.text()).toMatch(/Invalid request object: cannot be decrypted/);
  });
});
