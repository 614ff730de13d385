// Signing a minted token as asked: valid, with broken signature bytes, as alg none, or by a key in no JWKS.
import { createPublicKey } from 'node:crypto';
import {
  base64url,
  calculateJwkThumbprint,
  SignJWT,
  UnsecuredJWT,
  type JWK,
  type JWTHeaderParameters,
} from 'jose';
import type { EcSigningKey } from '../keys/ec-key.js';
import { generateSigningKey, type SigningKey } from '../keys/key-store.js';
import { invalidRequest } from '../oauth/errors.js';
import type { Provider } from '../realm/provider.js';
import type { Claims } from '../tokens/claims.js';
import { hmacKey, realmSecret, type RealmSecret } from '../tokens/sign.js';
import { signsEs256, type ApiVersion } from '../tokens/versions.js';
import type { MintSignature } from './mint-request.js';

type Members = Record<string, unknown>;

/** Applies overrides over `base`: `null` removes a member, anything else sets it. */
export function applyOverrides(base: Members, overrides: Members | undefined): Members {
  const out = { ...base };
  for (const [k, v] of Object.entries(overrides ?? {})) {
    if (v === null) delete out[k];
    else out[k] = v;
  }
  return out;
}

/** The same token with other signature bytes of the same length. */
function breakSignature(token: string): string {
  const [header, payload, signature] = token.split('.') as [string, string, string];
  const bytes = base64url.decode(signature);
  bytes.set([(bytes[bytes.length - 1] ?? 0) ^ 0xff], bytes.length - 1);
  return `${header}.${payload}.${base64url.encode(bytes)}`;
}

/** `alg: none`, empty signature; the header keeps its other parameters, as a tampered token would. */
function unsecured(claims: Claims, header: Members): string {
  const payload = new UnsecuredJWT(claims).encode().split('.')[1] ?? '';
  return `${base64url.encode(JSON.stringify({ ...header, alg: 'none' }))}.${payload}.`;
}

export class MintSigner {
  readonly #p: Provider;
  #unknownKey: Promise<SigningKey> | undefined;
  #unknownSecret: RealmSecret | undefined;
  #unknownEcKey: Promise<Pick<EcSigningKey, 'kid' | 'scalar'>> | undefined;

  constructor(p: Provider) {
    this.#p = p;
  }

  /**
   * Signs `claims` as the realm would (RS256 with the active key, ES256 with the EC key from version 3;
   * HS256 with the realm secret for refresh tokens), with header overrides, then applies `signature`.
   */
  async sign(
    refresh: boolean,
    claims: Claims,
    overrides: Members | undefined,
    signature: MintSignature,
    version?: ApiVersion,
  ): Promise<string> {
    if (overrides !== undefined && 'alg' in overrides)
      throw invalidRequest(
        'header.alg cannot be set: choose it with signature (valid, invalid, none, unknown-key)',
      );
    const unknown = signature === 'unknown-key';
    if (!refresh && signsEs256(version)) return this.#signEs256(claims, overrides, signature);
    const key: SigningKey | RealmSecret = refresh
      ? unknown
        ? this.#otherSecret()
        : this.#p.secret
      : unknown
        ? await this.#otherKey()
        : this.#p.keys.active;
    const header = applyOverrides({ alg: refresh ? 'HS256' : 'RS256', typ: 'JWT', kid: key.kid }, overrides);
    if (signature === 'none') return unsecured(claims, header);
    let token: string;
    try {
      token = await new SignJWT(claims)
        .setProtectedHeader(header as JWTHeaderParameters)
        .sign('privateKey' in key ? key.privateKey : await hmacKey(key));
    } catch (err) {
      throw invalidRequest(`Cannot sign this token: ${(err as Error).message}`);
    }
    return signature === 'invalid' ? breakSignature(token) : token;
  }

  /** ES256 as the realm signs from version 3 (deterministic, as its tokens are), then `signature` applied. */
  async #signEs256(
    claims: Claims,
    overrides: Members | undefined,
    signature: MintSignature,
  ): Promise<string> {
    const made = signature === 'unknown-key' ? this.#otherEcKey() : this.#p.keys.ecKey();
    if (made === undefined) throw new Error('this realm has no EC key to sign ES256 with');
    const [key, { signEs256As }] = await Promise.all([made, import('../tokens/sign-es256.js')]);
    const header = applyOverrides({ alg: 'ES256', typ: 'JWT', kid: key.kid }, overrides);
    if (signature === 'none') return unsecured(claims, header);
    const token = signEs256As(key, header, claims);
    return signature === 'invalid' ? breakSignature(token) : token;
  }

  /** A P-256 key that is in no JWKS, from the realm's ids (from the seed when there is one). */
  #otherEcKey(): Promise<Pick<EcSigningKey, 'kid' | 'scalar'>> {
    this.#unknownEcKey ??= import('../keys/ec-key.js').then(async ({ ecKeyFromScalar, scalarFromSeed }) => {
      const scalar = scalarFromSeed(this.#p.ids.bytes('mint-unknown-ec-key', 48));
      const pub = createPublicKey(ecKeyFromScalar(scalar)).export({ format: 'jwk' }) as JWK;
      return { scalar, kid: await calculateJwkThumbprint(pub, 'sha256') };
    });
    return this.#unknownEcKey;
  }

  /** An RSA key that is in no JWKS: generated once, on the thread pool, when first asked for. */
  #otherKey(): Promise<SigningKey> {
    this.#unknownKey ??= generateSigningKey();
    return this.#unknownKey;
  }

  /** An HS256 secret other than the realm secret (from the seed when there is one). */
  #otherSecret(): RealmSecret {
    this.#unknownSecret ??= realmSecret(this.#p.ids.secret('mint-unknown-key'));
    return this.#unknownSecret;
  }
}
