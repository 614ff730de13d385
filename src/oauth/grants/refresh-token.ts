// grant_type=refresh_token: a whole new token set for the same session, scope equal or narrower.
import type { RealmContext } from '../../realm/context.js';
import { verifyToken } from '../../tokens/verify.js';
import { REQUESTED_AUDIENCE_CLAIM, type Grant } from '../../tokens/claims.js';
import { boundJkt, type DPoPProof } from '../dpop.js';
import { explained, invalidDPoPProof, invalidGrant, unauthorizedClient } from '../errors.js';
import { explainRefusal } from '../refusal.js';
import { sessionUser, type GrantDefinition, type GrantRequest } from './grant.js';
import { narrowScopes, parseScope } from '../scopes.js';
import { methodOfAcr, SERVED_VERSIONS, type ApiVersion, type Method } from '../../tokens/versions.js';

/**
 * The interface version a refresh token carries in `api_ver` (versions 2 on write it there; none: 1), the
 * method acr_values picked (its `acr`) and the audiences a token exchange narrowed to (`requested_audience`).
 */
export function carriedAuth(
  claims: Record<string, unknown>,
  brand: string,
): { apiVersion: ApiVersion; method?: Method; audience?: string[] } {
  const ver = claims['api_ver'];
  const apiVersion = SERVED_VERSIONS.find((v) => v === ver) ?? 1;
  const method = methodOfAcr(claims['acr'], brand);
  const narrowed = claims[REQUESTED_AUDIENCE_CLAIM];
  const audience = Array.isArray(narrowed) ? narrowed.filter((a) => typeof a === 'string') : undefined;
  return {
    apiVersion,
    ...(method !== undefined ? { method } : {}),
    ...(audience !== undefined ? { audience } : {}),
  };
}

/** Grants whose token sets may be refreshed by a client that lists one of them (not only refresh_token). */
const REFRESHABLE: readonly string[] = [
  'refresh_token',
  'client_credentials',
  'password',
  'urn:ietf:params:oauth:grant-type:token-exchange',
  'urn:ietf:params:oauth:grant-type:jwt-bearer',
  'urn:ietf:params:oauth:grant-type:device_code',
  'urn:openid:params:grant-type:ciba',
];

/** A DPoP-bound refresh token (a public client's) is refreshed only with a proof made with its key. */
function checkBinding(claims: Record<string, unknown>, dpop: DPoPProof | undefined): void {
  const jkt = boundJkt(claims);
  if (jkt === undefined) return;
  if (dpop === undefined)
    throw invalidDPoPProof(
      'The refresh token is DPoP-bound: send a DPoP proof made with the key it was issued to',
    );
  if (dpop.jkt !== jkt)
    throw invalidDPoPProof(
      'DPoP proof and token binding verification failed: the proof is made with another key than the one the refresh token is bound to',
    );
}

async function grantRefreshToken(p: RealmContext, { client, params, dpop }: GrantRequest): Promise<Grant> {
  if (!client.grants.some((g) => REFRESHABLE.includes(g))) {
    throw unauthorizedClient(`Client "${client.id}" is not allowed the refresh_token grant`);
  }
  const token = params.require('refresh_token');
  const verdict = await verifyToken(p, token);
  // Keycloak's words for a refresh token whose session was logged out or ended.
  if (!verdict.ok && verdict.refusal.reason === 'session-ended') throw invalidGrant('Session not active');
  const verified = verdict.ok ? verdict.token : undefined;
  if (verified === undefined || verified.kind !== 'refresh') {
    throw explained(
      invalidGrant(
        'Invalid refresh token: not a refresh token of this realm, expired, revoked, or its session has ended',
      ),
      { why: () => explainRefusal(p, token, 'refresh') },
    );
  }
  const { claims } = verified;
  if (claims['azp'] !== client.id)
    throw invalidGrant("Invalid refresh token. Token client and authorized client don't match");
  checkBinding(claims, dpop);
  const session = await p.store.activeSession(verified.sessionId);
  if (session === undefined) throw invalidGrant('Session not active');
  const original = parseScope(typeof claims['scope'] === 'string' ? claims['scope'] : '');
  const scopes = narrowScopes(original, parseScope(params.get('scope')));
  const nonce = typeof claims['nonce'] === 'string' ? claims['nonce'] : undefined;
  if (session.username === undefined) {
    return {
      client,
      subject: client.serviceAccount,
      serviceAccount: true,
      scopes,
      sessionId: session.id,
      authTime: session.authTime,
      ...carriedAuth(claims, p.realm.brand.word),
    };
  }
  const subject = sessionUser(p.realm, session.username);
  return {
    client,
    subject,
    serviceAccount: false,
    scopes,
    sessionId: session.id,
    authTime: session.authTime,
    ...(nonce !== undefined ? { nonce } : {}),
    ...carriedAuth(claims, p.realm.brand.word),
  };
}

export const refreshTokenGrant = {
  type: 'refresh_token',
  parameters: ['refresh_token', 'scope'],
  issuesIdToken: true,
  handle: grantRefreshToken,
} as const satisfies GrantDefinition;
