// The browser half of a session: Keycloak's session cookies, and the session iframe's comparison.
import { hash } from 'node:crypto';
import { parse as parseCookies } from 'cookie';
import { jwtVerify } from 'jose';
import { isDisabled } from '../fixtures/realm.js';
import type { RealmContext } from '../realm/context.js';
import { hmacKey, signHs256 } from '../tokens/sign.js';
import type { Session } from '../store/state-store.js';

/** HttpOnly: names the session (a JWT signed with the realm secret, as Keycloak's). */
const IDENTITY_COOKIE = 'KEYCLOAK_IDENTITY';
/** Readable by the session iframe: the browser state, SHA-256 of the session id (as Keycloak 26.1+). */
const SESSION_COOKIE = 'KEYCLOAK_SESSION';

const IDENTITY_TYP = 'Serialized-ID';

/** The OP browser state of OIDC Session Management: base64url(SHA-256(session id)), the KEYCLOAK_SESSION value. */
function browserState(sessionId: string): string {
  return hash('sha256', sessionId, 'base64url');
}

/**
 * Whether what a relying party holds still describes the browser's session: its `session_state`, which is
 * the session id (`sid`) as Keycloak writes it, and what keycloak-js sends. No session: only an empty value
 * is unchanged.
 */
export function sessionUnchanged(held: string, sessionId: string | undefined): boolean {
  return held === (sessionId ?? '');
}

/**
 * The active browser session named by the request's cookies, or undefined: no cookie, a tampered or
 * foreign one, a session that ended or idled out, fixtures replaced since, or sessions turned off.
 */
export async function browserSession(
  p: RealmContext,
  cookieHeader: string | undefined,
): Promise<Session | undefined> {
  if (!p.realm.sso || cookieHeader === undefined) return undefined;
  const identity = parseCookies(cookieHeader)[IDENTITY_COOKIE];
  if (identity === undefined || identity === '') return undefined;
  let payload;
  try {
    ({ payload } = await jwtVerify(identity, await hmacKey(p.secret), { algorithms: ['HS256'] }));
  } catch {
    return undefined;
  }
  if (payload['typ'] !== IDENTITY_TYP || payload['gen'] !== p.generation) return undefined;
  const session = await p.store.activeSession(
    typeof payload['sid'] === 'string' ? payload['sid'] : undefined,
  );
  if (session === undefined || !session.browser || session.sub !== payload.sub) return undefined;
  const user = session.username !== undefined ? p.realm.users.get(session.username) : undefined;
  // A user removed or disabled since (as Keycloak): the browser signs in again.
  if (user === undefined || isDisabled(p.realm, user.username)) return undefined;
  return user.sub === session.sub ? session : undefined;
}

interface CookieScope {
  /** The realm base URL: its path scopes the cookies, its scheme decides SameSite and Secure. */
  issuer: string;
}

function attributes(scope: CookieScope): string {
  const url = new URL(scope.issuer);
  const path = url.pathname.endsWith('/') ? url.pathname : `${url.pathname}/`;
  return url.protocol === 'https:' ? `Path=${path}; SameSite=None; Secure` : `Path=${path}; SameSite=Lax`;
}

/** Set-Cookie values that bind the browser to `session` (session cookies: gone when the browser closes). */
export async function sessionCookies(
  p: RealmContext,
  session: Session,
  scope: CookieScope,
): Promise<string[]> {
  const identity = await signHs256(p.secret, {
    typ: IDENTITY_TYP,
    sub: session.sub,
    sid: session.id,
    gen: p.generation,
    iat: session.authTime,
  });
  const attrs = attributes(scope);
  return [
    `${IDENTITY_COOKIE}=${identity}; ${attrs}; HttpOnly`,
    `${SESSION_COOKIE}=${browserState(session.id)}; ${attrs}`,
  ];
}

/** Set-Cookie values that remove the session cookies (logout). */
export function clearedCookies(scope: CookieScope): string[] {
  const attrs = `${attributes(scope)}; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT`;
  return [`${IDENTITY_COOKIE}=; ${attrs}; HttpOnly`, `${SESSION_COOKIE}=; ${attrs}`];
}
