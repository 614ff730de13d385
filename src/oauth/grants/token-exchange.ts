// grant_type=urn:ietf:params:oauth:grant-type:token-exchange (RFC 8693) as Keycloak's standard token exchange:
// an active access token of this realm becomes a token of the calling client for the same user and session.
// Like Keycloak's, it writes no `act` claim: the new token's `azp` is the caller, its `aud` the `audience`.
import { isDisabled } from '../../fixtures/realm.js';
import type { RealmContext } from '../../realm/context.js';
import { grantAudiences, type Grant } from '../../tokens/claims.js';
import { verifyToken } from '../../tokens/verify.js';
import { boundJkt, type DPoPProof } from '../dpop.js';
import { explained, inKeycloakWords, invalidRequest, OAuthError, unauthorizedClient } from '../errors.js';
import { checkProofScope } from '../version-rules.js';
import type { Params } from '../params.js';
import { describeRefusal } from '../refusal.js';
import { clientCredentialsScopes, parseScope } from '../scopes.js';
import type { GrantDefinition, GrantRequest, TokenResponseShape } from './grant.js';
import { carriedAuth } from './refresh-token.js';

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
const REFRESH_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:refresh_token';
/** Parameters of Keycloak's other exchanges (impersonation, external issuers), which the standard one refuses. */
const NOT_STANDARD = ['requested_subject', 'requested_issuer', 'subject_issuer'];

/** The `requested_token_type`: an access token unless a refresh token is asked for (400 for anything else). */
function requestedType(params: Params): string {
  const requested = params.get('requested_token_type') ?? ACCESS_TOKEN_TYPE;
  if (requested !== ACCESS_TOKEN_TYPE && requested !== REFRESH_TOKEN_TYPE)
    throw invalidRequest(
      `requested_token_type unsupported: "${requested}" (supported: ${ACCESS_TOKEN_TYPE}, ${REFRESH_TOKEN_TYPE})`,
    );
  return requested;
}

const audiencesOf = (aud: unknown): unknown[] => (Array.isArray(aud) ? aud : [aud]);

/**
 * A sender-constrained subject token (DPoP-bound, `cnf.jkt`), as Keycloak takes it: only from the client it
 * was issued to, with a proof of its key in this request (400 invalid_request otherwise).
 */
function checkBinding(
  claims: Record<string, unknown>,
  client: Grant['client'],
  dpop: DPoPProof | undefined,
): void {
  const jkt = boundJkt(claims);
  if (jkt === undefined) return;
  if (claims['azp'] !== client.id)
    throw invalidRequest(
      `Sender-constrained token exchange rejected as the token was not issued for the requesting client (the subject_token is DPoP-bound and was issued to "${String(claims['azp'])}")`,
    );
  if (dpop === undefined)
    throw invalidRequest('DPoP proof is missing: the subject_token is DPoP-bound, send a proof of its key');
  if (dpop.jkt !== jkt)
    throw invalidRequest(
      `DPoP proof and token binding verification failed: the proof's key thumbprint ${dpop.jkt} is not the subject_token's cnf.jkt ${jkt}`,
    );
}

async function grantTokenExchange(
  p: RealmContext,
  { client, method, params, dpop }: GrantRequest,
): Promise<Grant> {
  if (!client.grants.includes(TOKEN_EXCHANGE))
    throw unauthorizedClient(`Client "${client.id}" is not allowed the token exchange grant`);
  // Keycloak's answer, 400 and not 401: the client did authenticate, as a public one.
  if (method === 'none')
    throw new OAuthError('invalid_client', 'Public client is not allowed to exchange token');
  for (const name of NOT_STANDARD)
    if (params.get(name) !== undefined)
      throw invalidRequest(`Parameter '${name}' is not supported for standard token exchange`);
  const subjectToken = params.get('subject_token');
  if (subjectToken === undefined)
    throw invalidRequest("Parameter 'subject_token' required for standard token exchange");
  const subjectTokenType = params.get('subject_token_type');
  if (subjectTokenType === undefined)
    throw invalidRequest("Parameter 'subject_token_type' required for standard token exchange");
  if (subjectTokenType !== ACCESS_TOKEN_TYPE)
    throw invalidRequest(`Parameter 'subject_token' supports access tokens only (${ACCESS_TOKEN_TYPE})`);
  const requested = requestedType(params);

  const verdict = await verifyToken(p, subjectToken, 'access');
  if (!verdict.ok)
    throw invalidRequest(
      `Invalid token: subject_token is not an active access token of this realm: ${describeRefusal(p, verdict.refusal)}`,
    );
  const { claims, sessionId } = verdict.token;
  checkBinding(claims, client, dpop);
  // Keycloak: only the client the token was issued to, or one of its audiences, may exchange it.
  if (claims['azp'] !== client.id && !audiencesOf(claims.aud).includes(client.id))
    throw new OAuthError('access_denied', 'Client is not within the token audience', 403);
  const session = await p.store.activeSession(sessionId);
  if (session === undefined)
    throw explained(invalidRequest('Invalid token: the session of the subject_token is not active'), {
      why: `session ${String(sessionId)} is not held here`,
    });

  const audiences = [...new Set(params.all('audience'))];
  const unknown = audiences.filter((a) => !p.realm.clients.has(a));
  if (unknown.length > 0)
    throw new OAuthError(
      'invalid_client',
      `Audience not found: ${unknown.map((a) => JSON.stringify(a)).join(', ')} ${unknown.length > 1 ? 'are' : 'is'} not a client of this realm`,
    );
  // As Keycloak's standard exchange takes `scope`: as for any request of the caller, whatever the subject
  // token has. Asked for: each one the caller may have. Not asked for: the caller's default scopes (those
  // client_credentials gives it).
  const scopes = clientCredentialsScopes(p.realm, client, parseScope(params.get('scope')));
  if (requested === REFRESH_TOKEN_TYPE && scopes.includes('offline_access'))
    throw invalidRequest('Scope offline_access not allowed for token exchange');

  const subject =
    session.username !== undefined
      ? p.realm.users.get(session.username)
      : p.realm.clients.get(String(claims['azp']))?.serviceAccount;
  if (subject === undefined)
    throw invalidRequest('Invalid token: the user of the subject_token no longer exists');
  if (session.username !== undefined && isDisabled(p.realm, session.username))
    throw invalidRequest('Invalid token: the user of the subject_token is disabled');
  // The new token continues the subject token's sign-in: its user, session, method and interface version
  // (not the calling client's apiVersion).
  const carried = carriedAuth(claims, p.realm.brand.word);
  checkProofScope(p.realm, carried.apiVersion, scopes);
  const grant: Grant = {
    client,
    subject,
    serviceAccount: session.username === undefined,
    scopes,
    sessionId: session.id,
    authTime: session.authTime,
    ...carried,
  };
  if (audiences.length === 0) return grant;
  // Keycloak: the new token's audiences are those its scopes and roles give, narrowed to the requested ones,
  // each of which must be among them.
  const available = grantAudiences(p.realm, grant);
  const missing = audiences.filter((a) => !available.includes(a));
  if (missing.length > 0)
    throw inKeycloakWords(p.realm.keycloak !== undefined, invalidRequest, {
      keycloak: `Requested audience not available: ${missing.join(', ')}`,
      mock: `Requested audience not available: ${missing.join(', ')} (the new token's scopes and roles give: ${available.join(', ') || 'no audience'})`,
    });
  return { ...grant, audience: audiences };
}

export const tokenExchangeGrant = {
  type: TOKEN_EXCHANGE,
  parameters: ['subject_token', 'subject_token_type', 'requested_token_type', 'audience', 'scope'],
  issuesIdToken: true,
  handle: grantTokenExchange,
  // As Keycloak: a refresh token only when asked for, an ID token only when `scope` asks for openid.
  shape: (params: Params): TokenResponseShape => {
    const issuedTokenType = params.get('requested_token_type') ?? ACCESS_TOKEN_TYPE;
    return {
      refreshToken: issuedTokenType === REFRESH_TOKEN_TYPE,
      idToken: parseScope(params.get('scope')).includes('openid'),
      issuedTokenType,
    };
  },
} as const satisfies GrantDefinition;
