// What one grant module exports: its name, the form parameters it reads, whether its token response carries
// an ID token, and its token-endpoint handler. The registry (registry.ts) lists them all.
import { isDisabled, type Client, type Realm, type Subject } from '../../fixtures/realm.js';
import { invalidGrant } from '../errors.js';
import type { AuthMethod } from '../../fixtures/schema.js';
import type { RealmContext } from '../../realm/context.js';
import type { DPoPProof } from '../dpop.js';
import type { Grant } from '../../tokens/claims.js';
import type { Params } from '../params.js';
import type { ApiVersion } from '../../tokens/versions.js';

/** A token request after client authentication. */
export interface GrantRequest {
  client: Client;
  /** How the client authenticated (`none` for a public client). */
  method: AuthMethod;
  params: Params;
  /** The realm base URL the request came to. */
  issuer: string;
  /** Audiences a JWT made for this endpoint may name: the issuer, the token endpoint. */
  audiences: string[];
  /** The request's valid DPoP proof, when it sent one: the tokens are bound to its key. */
  dpop?: DPoPProof;
}

/** What a token response carries besides the access token, when a grant's request decides it. */
export interface TokenResponseShape {
  refreshToken: boolean;
  /** Whether an ID token is issued (when `openid` is granted to a user). */
  idToken: boolean;
  /** RFC 8693's `issued_token_type`. */
  issuedTokenType?: string;
}

export interface GrantDefinition<Type extends string = string> {
  /** The `grant_type` value, and the name a client lists in its fixtures `grants`. */
  readonly type: Type;
  /** The request parameters it reads, besides `grant_type` and client authentication. */
  readonly parameters: readonly string[];
  /** Whether its token response carries an ID token (when `openid` is granted to a user). */
  readonly issuesIdToken: boolean;
  /**
   * The token endpoint's handler: checks the request and returns what to issue tokens for. Undefined for a
   * grant that is used at the authorize endpoint only (implicit).
   */
  readonly handle?: (ctx: RealmContext, request: GrantRequest) => Grant | Promise<Grant>;
  /** The response's shape, for a grant whose request decides it (else a refresh token, and issuesIdToken). */
  readonly shape?: (params: Params, client: Client, realm: Realm) => TokenResponseShape;
}

/**
 * A grant whose request signs its subject in (a password, an assertion, the client's own credentials, an
 * approved device or CIBA request): a new session for the client, and what its tokens are made of. `user`
 * absent: the client's service account.
 */
export async function signedIn(
  p: RealmContext,
  { client, issuer }: { client: Client; issuer: string },
  granted: { user?: Subject; scopes: string[]; apiVersion: ApiVersion; authTime?: number },
): Promise<Grant> {
  const { user, scopes, apiVersion, authTime = p.clock.nowSeconds() } = granted;
  const subject = user ?? client.serviceAccount;
  const { id: sessionId } = await p.openSession({
    clientId: client.id,
    issuer,
    ...(user !== undefined ? { username: user.username } : {}),
    sub: subject.sub,
    authTime,
  });
  return { client, subject, serviceAccount: user === undefined, scopes, sessionId, authTime, apiVersion };
}

/**
 * The user of a session a code or refresh token continues, while they may use it: as Keycloak, refused once
 * removed from the realm, and with "User disabled" while disabled (enabled again, the session works again).
 */
export function sessionUser(realm: Realm, username: string): Subject {
  const user = realm.users.get(username);
  if (user === undefined) throw invalidGrant(`User "${username}" no longer exists`);
  if (isDisabled(realm, username)) throw invalidGrant('User disabled');
  return user;
}
