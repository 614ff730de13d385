// The realm's RSA encryption key ("use":"enc"): clients encrypt request objects (JWE) to it. Made at start
// on the thread pool and not awaited there, so it never delays the first token; /certs and decryption wait.
import { createHash, createPublicKey, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';
import { generateRsaKey } from './ephemeral.js';
import { sharedRsaKey, type ShareValue } from './shared-key.js';

/** The key management algorithm the key's JWK names; the others of ENCRYPTION_ALGS work with it alike. */
const ENCRYPTION_KEY_ALG = 'RSA-OAEP-256';

export interface EncryptionKey {
  kid: string;
  /** The private JWK, without `alg`: one key serves every key management algorithm accepted. */
  privateJwk: JWK;
  publicJwk: JWK;
}

/**
 * The encryption key of a Node private key; `kid` is the RFC 7638 thumbprint, or, for a key that also signs
 * (its thumbprint is the signing key's kid), a hash of it: one kid names one key of `certs`.
 */
export async function toEncryptionKey(key: KeyObject, alsoSigns = false): Promise<EncryptionKey> {
  const privateJwk = key.export({ format: 'jwk' }) as JWK;
  const pub = createPublicKey(key).export({ format: 'jwk' }) as JWK;
  const thumbprint = await calculateJwkThumbprint(pub, 'sha256');
  const kid = alsoSigns
    ? createHash('sha256').update(`enc\u0000${thumbprint}`).digest('base64url')
    : thumbprint;
  return {
    kid,
    privateJwk: { ...privateJwk, kid },
    publicJwk: {
      kty: 'RSA',
      kid,
      use: 'enc',
      alg: ENCRYPTION_KEY_ALG,
      n: pub.n as string,
      e: pub.e as string,
    },
  };
}

/** Starts making the realm's encryption key: a fresh one, or with a shared store the replicas' one. */
export function startEncryptionKey(share?: ShareValue): Promise<EncryptionKey> {
  const key =
    share === undefined
      ? generateRsaKey().then(toEncryptionKey)
      : sharedRsaKey(share, 'encryption-key', generateRsaKey).then(({ key }) => toEncryptionKey(key));
  // Awaited by /certs and decryption; a failure surfaces there, never as an unhandled rejection.
  key.catch(() => undefined);
  return key;
}
