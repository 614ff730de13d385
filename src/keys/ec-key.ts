// The realm's EC P-256 signing key (ES256) and its published JWK. Signatures are RFC 6979 deterministic
// (@noble/curves), so a fixed key signs the same bytes the same way from run to run, as RS256 does.
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { p256 } from '@noble/curves/nist.js';
import { calculateJwkThumbprint, type JWK } from 'jose';

export interface EcSigningKey {
  kid: string;
  /** The private scalar, 32 bytes: what @noble/curves signs with. */
  scalar: Uint8Array;
  privateKey: KeyObject;
  /** The public JWK as served at `/certs`: kid, use, alg, x5c (leaf first, then the CA) and x5t#S256. */
  publicJwk: JWK;
  /** The chain as base64 DER, leaf first. */
  x5c: string[];
}

/** The private scalar of a P-256 KeyObject. */
export function scalarOf(key: KeyObject): Uint8Array {
  return Buffer.from((key.export({ format: 'jwk' }) as JWK).d as string, 'base64url');
}

/** A P-256 private KeyObject from its 32-byte scalar. */
export function ecKeyFromScalar(scalar: Uint8Array): KeyObject {
  const point = p256.getPublicKey(scalar, false);
  return createPrivateKey({
    format: 'jwk',
    key: {
      kty: 'EC',
      crv: 'P-256',
      x: Buffer.from(point.subarray(1, 33)).toString('base64url'),
      y: Buffer.from(point.subarray(33, 65)).toString('base64url'),
      d: Buffer.from(scalar).toString('base64url'),
    },
  });
}

/** A P-256 scalar from seed material (FIPS 186-5 A.2.1 reduction: 48 bytes in, uniform mod n). */
export function scalarFromSeed(seed: Uint8Array): Uint8Array {
  return p256.utils.randomSecretKey(seed);
}

/** ECDSA P-256 with SHA-256 over `data`, RFC 6979 deterministic; r‖s, 64 bytes (the JWS and WebCrypto form). */
export function signP256(scalar: Uint8Array, data: Uint8Array): Uint8Array {
  return p256.sign(data, scalar, { prehash: true, lowS: false });
}

/** Builds the published key: `kid` is the RFC 7638 thumbprint, stable for a fixed key. */
export async function toEcSigningKey(
  privateKey: KeyObject,
  x5c: string[],
  x5tS256: string,
): Promise<EcSigningKey> {
  const pub = createPublicKey(privateKey).export({ format: 'jwk' }) as JWK;
  const kid = await calculateJwkThumbprint(pub, 'sha256');
  return {
    kid,
    scalar: scalarOf(privateKey),
    privateKey,
    x5c,
    publicJwk: {
      kty: 'EC',
      kid,
      use: 'sig',
      alg: 'ES256',
      crv: 'P-256',
      x: pub.x as string,
      y: pub.y as string,
      x5c,
      'x5t#S256': x5tS256,
    },
  };
}
