// DPoP proofs (RFC 9449): one check of the `DPoP` header a token or userinfo request carries, the key
// thumbprint (`jkt`) a valid proof binds tokens to, and the single-use `jti` kept in the state store.
import { createHash } from 'node:crypto';
import {
  calculateJwkThumbprint,
  decodeProtectedHeader,
  EmbeddedJWK,
  errors as joseErrors,
  jwtVerify,
  type JWK,
  type JWTPayload,
} from 'jose';
import { Clock } from '../clock.js';
import type { RealmContext } from '../realm/context.js';

/** The asymmetric algorithms a proof may be signed with (discovery's `dpop_signing_alg_values_supported`). */
export const DPOP_ALGS = [
  'ES256',
  'ES384',
  'ES512',
  'PS256',
  'PS384',
  'PS512',
  'RS256',
  'RS384',
  'RS512',
  'EdDSA',
  // Ed25519's fully-specified name (RFC 9864): what openid-client 6 signs with an Ed25519 key.
  'Ed25519',
] as const;

/** How far a proof's `iat` may be from the mock clock's now or the real time, either way, in seconds. */
export const DPOP_IAT_WINDOW_S = 60;

/** JWK members of a private or symmetric key: a proof's `jwk` must have none. */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const;

/** A proof that passed every check. */
export interface DPoPProof {
  /** RFC 7638 SHA-256 thumbprint of the proof's key: `cnf.jkt` of the tokens it binds. */
  jkt: string;
}

/** What the request a proof came with must match. */
interface DPoPCheck {
  /** The request's HTTP method (`htm`). */
  method: string;
  /** The URLs the request may have been sent to, without query or fragment (`htu`). */
  urls: readonly string[];
  /** The access token a resource request presents: the proof must carry its hash in `ath`. */
  accessToken?: string;
}

/** Why a proof is refused, in words for an `error_description`. */
export class DPoPRefusal extends Error {
  override name = 'DPoPRefusal';
}

/** base64url SHA-256 of an access token: a resource request's proof carries it in `ath`. */
function accessTokenHash(token: string): string {
  return createHash('sha256').update(token, 'ascii').digest('base64url');
}

/**
 * A URL as RFC 9449 compares `htu`: scheme and host lower-case, the default port dropped, dot segments
 * resolved, percent-encoding as the WHATWG URL parser writes it; no query, no fragment. Undefined: not a URL.
 */
function htuForm(value: string): string | undefined {
  if (!URL.canParse(value)) return undefined;
  const url = new URL(value);
  return `${url.protocol}//${url.host}${url.pathname}`;
}

const refuse = (why: string): never => {
  throw new DPoPRefusal(why);
};

/** The header's checks that need no signature: typ, alg, a public jwk. Returns the jwk. */
function checkHeader(proof: string): JWK {
  let header: Record<string, unknown>;
  try {
    header = decodeProtectedHeader(proof) as Record<string, unknown>;
  } catch {
    return refuse('the DPoP header is not a JWT');
  }
  const alg = header['alg'];
  if (typeof alg !== 'string' || !(DPOP_ALGS as readonly string[]).includes(alg))
    refuse(
      `alg ${JSON.stringify(alg ?? null)} is not accepted: a proof is signed with an asymmetric key (${DPOP_ALGS.join(', ')})`,
    );
  if (header['typ'] !== 'dpop+jwt')
    refuse(`typ must be "dpop+jwt" (the proof has ${JSON.stringify(header['typ'] ?? null)})`);
  const jwk = header['jwk'];
  if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk))
    return refuse('the header has no jwk: a proof carries the public key it is signed with');
  const secret = PRIVATE_MEMBERS.filter((m) => m in jwk);
  if (secret.length > 0)
    refuse(`jwk must be a public key, but it has private members (${secret.join(', ')})`);
  return jwk as JWK;
}

function signatureFailure(err: unknown): string {
  if (err instanceof joseErrors.JWSSignatureVerificationFailed)
    return 'the signature does not verify with the key in its jwk';
  if (err instanceof joseErrors.JWTClaimValidationFailed)
    return `${err.claim} is ${err.reason === 'missing' ? 'missing' : 'not valid'}: ${err.message}`;
  if (err instanceof joseErrors.JOSEError) return `it cannot be verified: ${err.message}`;
  return 'it cannot be verified';
}

const realSeconds = (): number => Math.floor(Clock.realMs() / 1000);

/**
 * How long a spent proof id is kept, in real seconds: while the proof could pass again, by the clock whose
 * window holds it (a window ending at `until`), and for no longer than two windows (a frozen mock clock would
 * otherwise keep it forever: a proof replayed later is then accepted again, as it is still within its window).
 */
function keptSeconds(until: number, mockNow: number, realNow: number): number {
  const left = (now: number): number => {
    const l = until - now;
    return l >= 0 && l <= 2 * DPOP_IAT_WINDOW_S ? l : 0;
  };
  return Math.max(left(mockNow), left(realNow));
}

/** The claims' checks after the signature: htm, htu, iat on the mock or the real clock, ath. */
function checkClaims(p: RealmContext, payload: JWTPayload, check: DPoPCheck): void {
  const { htm, htu, iat, jti } = payload as Record<string, unknown>;
  if (typeof jti !== 'string' || jti === '') refuse('jti is missing: a proof needs a unique id');
  if (htm !== check.method)
    refuse(`htm must be the request's method ${check.method} (the proof has ${JSON.stringify(htm ?? null)})`);
  const sent = typeof htu === 'string' ? htuForm(htu) : undefined;
  if (sent === undefined)
    refuse(`htu must be the URL of the request (the proof has ${JSON.stringify(htu ?? null)})`);
  if (!check.urls.some((url) => htuForm(url) === sent))
    refuse(
      `htu must be the URL of the request, ${check.urls[0] ?? ''} (the proof has ${JSON.stringify(htu)})`,
    );
  if (typeof iat !== 'number' || !Number.isFinite(iat)) return refuse('iat is missing or not a number');
  const now = p.clock.nowSeconds();
  // The client signs with its own (real) clock while a test may have moved the mock one: either will do.
  const realNow = realSeconds();
  if (Math.abs(iat - now) > DPOP_IAT_WINDOW_S && Math.abs(iat - realNow) > DPOP_IAT_WINDOW_S)
    refuse(
      `iat ${iat} is ${iat < now ? `${now - iat} s in the past` : `${iat - now} s in the future`}: a proof must be made within ${DPOP_IAT_WINDOW_S} s of the server's time (${now})${p.clock.isReal ? '' : ` or of the real time (${realNow})`}`,
    );
  if (check.accessToken === undefined) return;
  const { ath } = payload;
  if (ath === undefined) refuse('ath is missing: a proof sent with an access token carries its hash');
  if (ath !== accessTokenHash(check.accessToken))
    refuse('ath is not the base64url SHA-256 hash of the access token sent with it');
}

/**
 * The proof of a request's DPoP headers (`values`, as received), or undefined without one. A proof that
 * fails a check throws a {@link DPoPRefusal}; a valid one spends its `jti`.
 */
export async function verifyDPoPProof(
  p: RealmContext,
  values: readonly string[] | undefined,
  check: DPoPCheck,
): Promise<DPoPProof | undefined> {
  if (values === undefined || values.length === 0) return undefined;
  // A JWT has no comma: one in a value is two headers joined into one line.
  const proofs = values.flatMap((v) => v.split(','));
  if (proofs.length > 1) refuse(`send exactly one DPoP header (the request has ${proofs.length})`);
  const proof = (proofs[0] ?? '').trim();
  if (proof === '') refuse('the DPoP header is empty');
  const jwk = checkHeader(proof);
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(proof, EmbeddedJWK, {
      typ: 'dpop+jwt',
      algorithms: [...DPOP_ALGS],
      currentDate: p.clock.now(),
    }));
  } catch (err) {
    return refuse(signatureFailure(err));
  }
  checkClaims(p, payload, check);
  const jkt = await calculateJwkThumbprint(jwk, 'sha256');
  // Spent only once every other check passed; kept while the real clock, or the mock one (for no longer than the
  // mock time left), is within its iat's window.
  const until = (payload.iat as number) + DPOP_IAT_WINDOW_S;
  if (
    !(await p.store.useAssertion(`DPoP proof\u0000${jkt}`, payload.jti as string, until, {
      realUntilMs: Clock.realMs() + keptSeconds(until, p.clock.nowSeconds(), realSeconds()) * 1000,
    }))
  )
    refuse('jti was already used: a proof is single-use, make a new one for each request');
  return { jkt };
}

/** `cnf.jkt` of a token's claims, when it is DPoP-bound. */
export function boundJkt(claims: Record<string, unknown>): string | undefined {
  const cnf = claims['cnf'];
  if (typeof cnf !== 'object' || cnf === null) return undefined;
  const jkt = (cnf as Record<string, unknown>)['jkt'];
  return typeof jkt === 'string' ? jkt : undefined;
}
