// Verifying a token this realm issued, in one place: the verified token, or the one reason it is refused
// (malformed, signature, issuer, time by the mock clock, kind by `typ`, revoked, its session ended here).
import { createPublicKey, type KeyObject } from 'node:crypto';
import { compactVerify, decodeJwt, decodeProtectedHeader, type JWTPayload } from 'jose';
import type { EcSigningKey } from '../keys/ec-key.js';
import type { RealmContext } from '../realm/context.js';
import { realmBasePath } from '../realm/paths.js';
import { hmacKey } from './sign.js';

export type OwnTokenKind = 'access' | 'id' | 'refresh' | 'proof';

/** The algorithms this realm signs with: RS256 (versions 1–2), ES256 (versions 3 on), HS256 (refresh tokens). */
export type OwnAlg = 'RS256' | 'ES256' | 'HS256';

export interface VerifiedToken {
  kind: OwnTokenKind;
  claims: JWTPayload & Record<string, unknown>;
  /** The session the token belongs to (`sid`, else `session_state`), when it names one. */
  sessionId?: string;
}

/**
 * Why a token is refused, the first check it fails (in this order). Carries what a message may name: kids,
 * issuers, types and times, never the token or a secret.
 */
export type Refusal =
  | { reason: 'malformed' }
  | { reason: 'unknown-kid'; kid: unknown }
  | { reason: 'unknown-secret'; kid: unknown }
  | { reason: 'bad-signature'; alg: OwnAlg; kid: unknown }
  | { reason: 'alg-not-accepted'; alg: unknown }
  | { reason: 'foreign-issuer'; iss: string | undefined }
  | { reason: 'invalid-time-claim'; claim: 'iat' | 'nbf' | 'exp' }
  | { reason: 'expired'; exp: number; now: number }
  | { reason: 'not-yet-valid'; nbf: number; now: number }
  | { reason: 'wrong-type'; typ: string; expected: OwnTokenKind }
  | { reason: 'unknown-type'; typ: string }
  | { reason: 'alg-mismatch'; typ: string; alg: OwnAlg }
  | { reason: 'revoked' }
  | { reason: 'session-ended' };

/** The outcome of {@link verifyToken}, with the decoded header and claims (null when the text is not a JWT). */
type Verification =
  | { ok: true; token: VerifiedToken; header: Record<string, unknown>; claims: Record<string, unknown> }
  | {
      ok: false;
      refusal: Refusal;
      header: Record<string, unknown> | null;
      claims: Record<string, unknown> | null;
    };

/** The session id a token names: `sid`, else `session_state` (Keycloak puts both). */
export function sessionIdOf(claims: Record<string, unknown>): string | undefined {
  const sid = claims['sid'] ?? claims['session_state'];
  return typeof sid === 'string' ? sid : undefined;
}

/** The `typ` values of each kind (a Map: a claim value must not reach Object.prototype). */
const TYPS_OF_KIND: ReadonlyMap<OwnTokenKind, readonly string[]> = new Map([
  ['access', ['Bearer']],
  ['id', ['ID']],
  ['refresh', ['Refresh', 'Offline']],
  ['proof', ['Proof']],
]);

const KIND_BY_TYP = new Map<unknown, OwnTokenKind>(
  [...TYPS_OF_KIND].flatMap(([kind, typs]) => typs.map((typ) => [typ, kind] as const)),
);

function kindOfTyp(typ: unknown): OwnTokenKind | undefined {
  return KIND_BY_TYP.get(typ);
}

/** The issuer this realm's tokens must name, or undefined when any origin + the realm path will do. */
export function fixedIssuerOf(ctx: Pick<RealmContext, 'fixedIssuer' | 'realm'>): string | undefined {
  return ctx.fixedIssuer ?? ctx.realm.issuer;
}

/** Same realm: the fixed issuer exactly, or any origin with this realm's path (Docker port mapping). */
function isOurIssuer(
  ctx: Pick<RealmContext, 'fixedIssuer' | 'realm' | 'relativePath'>,
  iss: unknown,
): boolean {
  if (typeof iss !== 'string') return false;
  const fixed = fixedIssuerOf(ctx);
  if (fixed !== undefined) return iss === fixed;
  return URL.canParse(iss) && new URL(iss).pathname === realmBasePath(ctx.realm.name, ctx.relativePath);
}

async function verifies(token: string, key: Parameters<typeof compactVerify>[1]): Promise<boolean> {
  try {
    await compactVerify(token, key);
    return true;
  } catch {
    return false;
  }
}

const ecPublicKeys = new WeakMap<EcSigningKey, KeyObject>();

/** The EC key's public half, derived once per key. */
function ecPublicKey(key: EcSigningKey): KeyObject {
  let pub = ecPublicKeys.get(key);
  if (pub === undefined) {
    pub = createPublicKey(key.privateKey);
    ecPublicKeys.set(key, pub);
  }
  return pub;
}

/**
 * The signature check: RS256 with a published realm key, ES256 with the realm's EC key, or HS256 with the
 * realm secret.
 */
async function signatureRefusal(
  ctx: RealmContext,
  token: string,
  alg: unknown,
  kid: unknown,
): Promise<Refusal | undefined> {
  if (alg === 'RS256') {
    const key = ctx.keys.find(typeof kid === 'string' ? kid : undefined);
    if (key === undefined) return { reason: 'unknown-kid', kid };
    return (await verifies(token, key.publicKey)) ? undefined : { reason: 'bad-signature', alg, kid };
  }
  if (alg === 'ES256') {
    const ec = await ctx.keys.ecKey();
    if (ec === undefined || kid !== ec.kid) return { reason: 'unknown-kid', kid };
    return (await verifies(token, ecPublicKey(ec))) ? undefined : { reason: 'bad-signature', alg, kid };
  }
  if (alg === 'HS256') {
    if (kid !== ctx.secret.kid) return { reason: 'unknown-secret', kid };
    return (await verifies(token, await hmacKey(ctx.secret)))
      ? undefined
      : { reason: 'bad-signature', alg, kid };
  }
  return { reason: 'alg-not-accepted', alg };
}

/** The checks after the signature, on claims the realm signed: the first that fails, or the token's kind. */
async function claimsRefusal(
  ctx: RealmContext,
  claims: JWTPayload,
  alg: OwnAlg,
  expected: OwnTokenKind | undefined,
): Promise<Refusal | OwnTokenKind> {
  const iss = typeof claims.iss === 'string' ? claims.iss : undefined;
  if (!isOurIssuer(ctx, iss)) return { reason: 'foreign-issuer', iss };
  // As jose checks a JWT's NumericDate claims: numbers when present.
  for (const claim of ['iat', 'nbf', 'exp'] as const)
    if (claims[claim] !== undefined && typeof claims[claim] !== 'number')
      return { reason: 'invalid-time-claim', claim };
  const now = ctx.clock.nowSeconds();
  if (claims.exp !== undefined && claims.exp <= now) return { reason: 'expired', exp: claims.exp, now };
  if (claims.nbf !== undefined && claims.nbf > now) return { reason: 'not-yet-valid', nbf: claims.nbf, now };
  const typ = String(claims['typ']);
  if (expected !== undefined && !(TYPS_OF_KIND.get(expected) ?? []).includes(typ))
    return { reason: 'wrong-type', typ, expected };
  const kind = kindOfTyp(claims['typ']);
  if (kind === undefined) return { reason: 'unknown-type', typ };
  if ((kind === 'refresh') !== (alg === 'HS256')) return { reason: 'alg-mismatch', typ, alg };
  if (await ctx.store.isRevoked(claims.jti)) return { reason: 'revoked' };
  const sid = sessionIdOf(claims);
  // A session this server never held (a token minted offline with the realm key) does not make
  // the token inactive; one that ended here does.
  if (sid !== undefined && (await ctx.store.sessionStatus(sid)) === 'ended')
    return { reason: 'session-ended' };
  return kind;
}

/** Whether `token` is an active token of this realm (of the `expected` kind, when given), and if not why. */
export async function verifyToken(
  ctx: RealmContext,
  token: string,
  expected?: OwnTokenKind,
): Promise<Verification> {
  let header: Record<string, unknown>;
  let claims: JWTPayload & Record<string, unknown>;
  try {
    header = decodeProtectedHeader(token) as Record<string, unknown>;
    claims = decodeJwt(token) as JWTPayload & Record<string, unknown>;
  } catch {
    return { ok: false, refusal: { reason: 'malformed' }, header: null, claims: null };
  }
  const { alg, kid } = header;
  const refused = await signatureRefusal(ctx, token, alg, kid);
  if (refused !== undefined) return { ok: false, refusal: refused, header, claims };
  const outcome = await claimsRefusal(ctx, claims, alg as OwnAlg, expected);
  if (typeof outcome !== 'string') return { ok: false, refusal: outcome, header, claims };
  const sessionId = sessionIdOf(claims);
  const verified = { kind: outcome, claims, ...(sessionId !== undefined ? { sessionId } : {}) };
  return { ok: true, token: verified, header, claims };
}

/** The verified token, or undefined for anything that is not an active token of this realm. */
export async function verifyOwnToken(ctx: RealmContext, token: string): Promise<VerifiedToken | undefined> {
  const verdict = await verifyToken(ctx, token);
  return verdict.ok ? verdict.token : undefined;
}
