// Signing: RS256 with the realm key for access/ID/proof tokens (ES256 with its EC key from interface version 3),
// HS256 with the realm secret for refresh tokens.
import { createHash } from 'node:crypto';
import type { CryptoKey, JWTHeaderParameters, JWTPayload } from 'jose';
import type { KeyStore, SigningKey } from '../keys/key-store.js';
import { jwsHs256, jwsRs256 } from './jws.js';
import { signsEs256, type ApiVersion } from './versions.js';

export interface RealmSecret {
  kid: string;
  key: Uint8Array;
}

/** A secret with its `kid`: the first 16 bytes of its SHA-256, so the kid never reveals the secret. */
export function realmSecret(key: Uint8Array): RealmSecret {
  return { key, kid: createHash('sha256').update(key).digest().subarray(0, 16).toString('base64url') };
}

const hmacKeys = new WeakMap<Uint8Array, Promise<CryptoKey>>();

/** The secret as a WebCrypto HMAC key, imported once (jose would import raw bytes on every call). */
export function hmacKey(secret: RealmSecret): Promise<CryptoKey> {
  let key = hmacKeys.get(secret.key);
  if (key === undefined) {
    key = crypto.subtle.importKey('raw', secret.key, { name: 'HMAC', hash: 'SHA-256' }, false, [
      'sign',
      'verify',
    ]);
    hmacKeys.set(secret.key, key);
  }
  return key;
}

/**
 * RS256 with the realm key, via the prepared-header signer (src/tokens/jws.ts: jose's bytes, less per-call work).
 * Its promise itself: an async wrapper would add a promise and two microtask turns per token.
 */
export function signRs256(
  key: SigningKey,
  claims: JWTPayload,
  header: Partial<JWTHeaderParameters> = {},
): Promise<string> {
  return jwsRs256(key, claims, header);
}

/** Signs the claims (and extra header parameters) of one token. */
type Signer = (claims: JWTPayload, header?: Partial<JWTHeaderParameters>) => Promise<string>;

/**
 * The signer of access, ID and proof tokens, signed userinfo and logout tokens at `version`: ES256 with the
 * realm's EC key from version 3, RS256 with the active RSA key before (and when no version is known).
 */
export function signFor(keys: KeyStore, version: ApiVersion | undefined): Signer {
  if (!signsEs256(version)) {
    const key = keys.active;
    return (claims, header) => signRs256(key, claims, header);
  }
  return async (claims, header) => {
    const made = keys.ecKey();
    if (made === undefined) throw new Error('this realm has no EC key to sign ES256 with');
    // Loaded on first use: @noble/curves stays off the start path of a realm that never signs ES256.
    const [key, { signEs256 }] = await Promise.all([made, import('./sign-es256.js')]);
    return signEs256(key, claims, header);
  };
}

/**
 * The header parameters of an access token: `typ` from the fixtures' `tokens.accessTokenType` (`JWT` as every
 * token has it, or RFC 9068's `at+jwt`); none for `JWT`, so those tokens keep their bytes.
 */
export function accessTokenHeader(
  accessTokenType: 'JWT' | 'at+jwt',
): Partial<JWTHeaderParameters> | undefined {
  return accessTokenType === 'at+jwt' ? { typ: 'at+jwt' } : undefined;
}

/** HS256 with the realm secret (refresh tokens, the identity cookie), via the prepared-header signer. */
export async function signHs256(
  secret: RealmSecret,
  claims: JWTPayload,
  header: Partial<JWTHeaderParameters> = {},
): Promise<string> {
  return jwsHs256(secret, claims, header);
}

/**
 * at_hash / c_hash / s_hash: left half of SHA-256 of the value, base64url (OIDC Core 3.1.3.6, FAPI 1.0 5.1).
 * UTF-8 as clients hash it (a `state` may be any text; tokens and codes are ASCII, where the two agree).
 */
export function halfHash(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest().subarray(0, 16).toString('base64url');
}
