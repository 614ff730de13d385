// Verifying a token this realm issued: signature (realm key or realm secret), time by the mock clock,
// issuer of this realm, kind by `typ`, not revoked, and its session not ended here.
import { decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import type { RealmContext } from '../realm/context.js';
import { realmBasePath } from '../realm/paths.js';
import { hmacKey } from './sign.js';

export type OwnTokenKind = 'access' | 'id' | 'refresh' | 'proof';

export interface VerifiedToken {
  kind: OwnTokenKind;
  claims: JWTPayload & Record<string, unknown>;
  /** The session the token belongs to (`sid`, else `session_state`), when it names one. */
  sessionId?: string;
}

/** The session id a token names: `sid`, else `session_state` (Keycloak puts both). */
export function sessionIdOf(claims: Record<string, unknown>): string | undefined {
  const sid = claims['sid'] ?? claims['session_state'];
  return typeof sid === 'string' ? sid : undefined;
}

/** The `typ` values of each kind (a Map: a claim value must not reach Object.prototype). */
export const TYPS_OF_KIND: ReadonlyMap<OwnTokenKind, readonly string[]> = new Map([
  ['access', ['Bearer']],
  ['id', ['ID']],
  ['refresh', ['Refresh', 'Offline']],
  ['proof', ['Proof']],
]);

const KIND_BY_TYP = new Map<unknown, OwnTokenKind>(
  [...TYPS_OF_KIND].flatMap(([kind, typs]) => typs.map((typ) => [typ, kind] as const)),
);

export function kindOfTyp(typ: unknown): OwnTokenKind | undefined {
  return KIND_BY_TYP.get(typ);
}

/** The issuer this realm's tokens must name, or undefined when any origin + the realm path will do. */
export function fixedIssuerOf(ctx: Pick<RealmContext, 'fixedIssuer' | 'realm'>): string | undefined {
  return ctx.fixedIssuer ?? ctx.realm.issuer;
}

/** Same realm: the fixed issuer exactly, or any origin with this realm's path (Docker port mapping). */
export function isOurIssuer(ctx: Pick<RealmContext, 'fixedIssuer' | 'realm'>, iss: unknown): boolean {
  if (typeof iss !== 'string') return false;
  const fixed = fixedIssuerOf(ctx);
  if (fixed !== undefined) return iss === fixed;
  return URL.canParse(iss) && new URL(iss).pathname === realmBasePath(ctx.realm.name);
}

/** The verified token, or undefined for anything that is not an active token of this realm. */
export async function verifyOwnToken(ctx: RealmContext, token: string): Promise<VerifiedToken | undefined> {
  let alg: string | undefined;
  let kid: string | undefined;
  try {
    ({ alg, kid } = decodeProtectedHeader(token));
  } catch {
    return undefined;
  }
  const options = { algorithms: [alg ?? 'none'], currentDate: ctx.clock.now() };
  let claims: JWTPayload;
  try {
    if (alg === 'RS256') {
      const key = ctx.keys.find(kid);
      if (key === undefined) return undefined;
      ({ payload: claims } = await jwtVerify(token, key.publicKey, options));
    } else if (alg === 'HS256' && kid === ctx.secret.kid) {
      ({ payload: claims } = await jwtVerify(token, await hmacKey(ctx.secret), options));
    } else {
      return undefined;
    }
  } catch {
    return undefined;
  }
  const kind = kindOfTyp(claims['typ']);
  if (kind === undefined || !isOurIssuer(ctx, claims.iss)) return undefined;
  if ((kind === 'refresh') !== (alg === 'HS256')) return undefined;
  if (await ctx.store.isRevoked(claims.jti)) return undefined;
  const sessionId = sessionIdOf(claims);
  // A session this server never held (a token minted offline with the realm key) does not make
  // the token inactive; one that ended here does.
  if (sessionId !== undefined && (await ctx.store.sessionStatus(sessionId)) === 'ended') return undefined;
  return {
    kind,
    claims: claims as VerifiedToken['claims'],
    ...(sessionId !== undefined ? { sessionId } : {}),
  };
}
