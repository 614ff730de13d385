// Token helpers with jose, as a client would: verify against the server's /certs, decode, hash, assertions.
import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  createRemoteJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  importJWK,
  jwtVerify,
  SignJWT,
  UnsecuredJWT,
  type CryptoKey,
  type JWK,
  type JWTPayload,
  type ProtectedHeaderParameters,
} from 'jose';
import { VAULT_SIGNER_KEY, type TestIdp } from './server.js';

export type Claims = JWTPayload & Record<string, unknown>;

interface Decoded {
  header: ProtectedHeaderParameters;
  claims: Claims;
}

export function decode(token: string): Decoded {
  return { header: decodeProtectedHeader(token), claims: decodeJwt(token) as Claims };
}

/** Verifies an RS256 token with the server's JWKS (fetched from /certs), at the mock clock's time. */
export async function verifyToken(idp: TestIdp, token: string, audience?: string): Promise<Decoded> {
  const jwks = createRemoteJWKSet(new URL(idp.endpoints.certs));
  const { payload, protectedHeader } = await jwtVerify(token, jwks, {
    algorithms: ['RS256'],
    issuer: idp.issuer,
    currentDate: idp.clock.now(),
    ...(audience !== undefined ? { audience } : {}),
  });
  return { header: protectedHeader, claims: payload as Claims };
}

/** at_hash / c_hash as a client computes them (OIDC Core 3.1.3.6, RS256 → SHA-256). */
export function halfHash(value: string): string {
  return createHash('sha256').update(value, 'ascii').digest().subarray(0, 16).toString('base64url');
}

export function s256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** The vault-signer client's private key (its public half is in the fixtures file). */
export async function vaultSignerKey(): Promise<CryptoKey> {
  const jwk = JSON.parse(readFileSync(VAULT_SIGNER_KEY, 'utf8')) as JWK;
  return (await importJWK(jwk, 'RS256')) as CryptoKey;
}

/** The fjord fixtures' redirect URIs of vault-signer and teller-web. */
export const VAULT_CB = 'http://vault.fjord.test/cb';
export const TELLER_CB = 'http://app.fjord.test/cb';

interface RequestObjectOptions {
  /** A fjord client (default vault-signer); its redirect URI is vault-signer's or else teller-web's. */
  client?: string;
  /** `none` (unsigned) or a signing alg (default RS256), with `key` (default vault-signer's) and its kid. */
  alg?: string;
  key?: CryptoKey | Uint8Array;
  /** Claims to set or (with undefined) leave out. */
  claims?: Record<string, unknown>;
}

/**
 * An authorize request object (OIDC Core 6.1) of a fjord client for `idp`, as the client makes it: iss and
 * client_id the client, aud the issuer, a code request for ingrid, valid for a minute of real time.
 */
export async function fjordRequestObject(
  idp: Pick<TestIdp, 'issuer'>,
  o: RequestObjectOptions = {},
): Promise<string> {
  const client = o.client ?? 'vault-signer';
  const now = Math.floor(Date.now() / 1000);
  const claims: JWTPayload = {
    iss: client,
    aud: idp.issuer,
    client_id: client,
    response_type: 'code',
    redirect_uri: client === 'vault-signer' ? VAULT_CB : TELLER_CB,
    scope: 'openid',
    login_hint: 'ingrid',
    iat: now,
    exp: now + 60,
    ...o.claims,
  };
  const alg = o.alg ?? 'RS256';
  if (alg === 'none') return new UnsecuredJWT(claims).encode();
  return new SignJWT(claims)
    .setProtectedHeader({ alg, kid: 'vault-signer-2024' })
    .sign(o.key ?? (await vaultSignerKey()));
}

interface AssertionOptions {
  clientId?: string;
  audience?: string;
  key?: CryptoKey;
  kid?: string;
  /** Claims to set or (with undefined) remove. */
  claims?: Record<string, unknown>;
  /** Issued-at, epoch seconds (default: real now). */
  iat?: number;
}

/** A private_key_jwt client assertion (RFC 7523) for vault-signer, as a client makes it with its real clock. */
export async function clientAssertion(idp: TestIdp, options: AssertionOptions = {}): Promise<string> {
  const clientId = options.clientId ?? 'vault-signer';
  const iat = options.iat ?? Math.floor(Date.now() / 1000);
  const claims: Record<string, unknown> = {
    iss: clientId,
    sub: clientId,
    aud: options.audience ?? idp.endpoints.token,
    jti: randomUUID(),
    iat,
    exp: iat + 60,
  };
  for (const [k, v] of Object.entries(options.claims ?? {})) {
    if (v === undefined) delete claims[k];
    else claims[k] = v;
  }
  return new SignJWT(claims as JWTPayload)
    .setProtectedHeader({ alg: 'RS256', kid: options.kid ?? 'vault-signer-2024' })
    .sign(options.key ?? (await vaultSignerKey()));
}

export const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
