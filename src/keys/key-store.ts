// The realm's signing keys: the active one signs, older ones stay in the JWKS until removed.
import { createPublicKey, type KeyObject } from 'node:crypto';
import { takeEphemeralKey } from './ephemeral.js';
import type { EcSigningKey } from './ec-key.js';
import { calculateJwkThumbprint, importJWK, type CryptoKey, type JSONWebKeySet, type JWK } from 'jose';

export interface SigningKey {
  kid: string;
  /** WebCrypto key (jose's QA mint signs with it). */
  privateKey: CryptoKey;
  /** The same key as a Node KeyObject: the per-request signer (src/tokens/jws.ts) signs with it. */
  privateKeyObject: KeyObject;
  publicKey: CryptoKey;
  publicJwk: JWK;
}

/** A key's public half as base64 DER (SubjectPublicKeyInfo): how Keycloak's realm and key resources show it. */
export function publicKeyBase64(key: KeyObject): string {
  const pub = key.type === 'public' ? key : createPublicKey(key);
  return pub.export({ type: 'spki', format: 'der' }).toString('base64');
}

/** Builds a signing key from a Node KeyObject; `kid` is the RFC 7638 thumbprint, stable for a fixed key. */
export async function toSigningKey(key: KeyObject): Promise<SigningKey> {
  const privateJwk = key.export({ format: 'jwk' }) as JWK;
  const pub = createPublicKey(key).export({ format: 'jwk' }) as JWK;
  const kid = await calculateJwkThumbprint(pub, 'sha256');
  const privateKey = (await importJWK({ ...privateJwk, alg: 'RS256' }, 'RS256')) as CryptoKey;
  const publicKey = (await importJWK({ ...pub, alg: 'RS256' }, 'RS256')) as CryptoKey;
  return {
    kid,
    privateKey,
    privateKeyObject: key,
    publicKey,
    publicJwk: { kty: 'RSA', kid, use: 'sig', alg: 'RS256', n: pub.n as string, e: pub.e as string },
  };
}

/** A fresh RSA-2048 key, generated on the thread pool (the one the CLI started ahead, if any). */
export async function generateSigningKey(): Promise<SigningKey> {
  return toSigningKey(await takeEphemeralKey());
}

export class KeyStore {
  #keys: SigningKey[];
  #jwks: JSONWebKeySet;
  /** Makes the realm's EC P-256 key (ES256) on first use: its libraries load only then. */
  readonly #makeEc: (() => Promise<EcSigningKey>) | undefined;
  #ec: Promise<EcSigningKey> | undefined;
  #ecMade: EcSigningKey | undefined;
  #publishEc = false;

  constructor(keys: SigningKey[], makeEc?: () => Promise<EcSigningKey>) {
    if (keys.length === 0) throw new Error('a key store needs at least one key');
    this.#makeEc = makeEc;
    // The same key listed twice would be published twice under one kid.
    this.#keys = keys.filter((k, i) => keys.findIndex((other) => other.kid === k.kid) === i);
    this.#jwks = this.#buildJwks();
  }

  /** The key that signs new tokens. */
  get active(): SigningKey {
    return this.#keys[0] as SigningKey;
  }

  get all(): readonly SigningKey[] {
    return this.#keys;
  }

  find(kid: string | undefined): SigningKey | undefined {
    return kid === undefined ? undefined : this.#keys.find((k) => k.kid === kid);
  }

  /** Public keys as served at `/certs` (built once per change, not per request). */
  jwks(): JSONWebKeySet {
    return this.#jwks;
  }

  /** Makes `key` the signing key; the previous ones stay published. */
  add(key: SigningKey): void {
    this.#keys = [key, ...this.#keys.filter((k) => k.kid !== key.kid)];
    this.#jwks = this.#buildJwks();
  }

  /** Replaces every key (the first signs): a replica taking over the realm's shared key list. */
  replaceAll(keys: SigningKey[]): void {
    if (keys.length === 0) return;
    this.#keys = keys;
    this.#jwks = this.#buildJwks();
  }

  /** Removes a key from the JWKS; the last key cannot be removed. */
  remove(kid: string): boolean {
    if (this.#keys.length <= 1 || !this.#keys.some((k) => k.kid === kid)) return false;
    this.#keys = this.#keys.filter((k) => k.kid !== kid);
    this.#jwks = this.#buildJwks();
    return true;
  }

  /** The realm's EC P-256 key (ES256), made on the first call; undefined when the store has none. */
  ecKey(): Promise<EcSigningKey> | undefined {
    if (this.#makeEc === undefined) return undefined;
    this.#ec ??= this.#makeEc().then((key) => (this.#ecMade = key));
    return this.#ec;
  }

  /** The EC key once made (ecKey), else undefined. */
  get ec(): EcSigningKey | undefined {
    return this.#ecMade;
  }

  /** Whether `/certs` lists the EC key after the RSA keys (off: the JWKS holds the RSA keys alone). */
  async publishEc(on: boolean): Promise<void> {
    if (on) await this.ecKey();
    this.#publishEc = on && this.#ecMade !== undefined;
    this.#jwks = this.#buildJwks();
  }

  get ecPublished(): boolean {
    return this.#publishEc;
  }

  #buildJwks(): JSONWebKeySet {
    const keys = this.#keys.map((k) => k.publicJwk);
    if (this.#publishEc && this.#ecMade !== undefined) keys.push(this.#ecMade.publicJwk);
    return { keys };
  }
}
