// POST /protocol/openid-connect/token: client authentication, then the grant registry's handler, then the
// token set response.
import type { RequestHandler } from 'express';
import type { RealmContext } from '../../realm/context.js';
import { invalidDPoPProof, invalidRequest, OAuthError } from '../../oauth/errors.js';
import { TOKEN_GRANTS } from '../../oauth/grants/registry.js';
import { issueTokenSet, tokenResponseJson } from '../../oauth/token-set.js';
import { authenticateAt, issuerOf, noteForLog, paramsOf, sendNoStore } from '../context.js';
import { tokenRequestProofOf } from '../dpop.js';
import { PATHS } from '../../realm/paths.js';
import { decodeJwt } from 'jose';
import type { EventNote } from '../../oauth/errors.js';
import type { IssuedTokenResponse } from '../../oauth/token-set.js';
import type { AuthMethod } from '../../fixtures/schema.js';
import type { Grant } from '../../tokens/claims.js';
import { eventsOn, noteEvent } from '../events.js';
import { refuseBearerOnly } from '../../oauth/client-auth.js';

const SUPPORTED = [...TOKEN_GRANTS.keys()].join(', ');

export function tokenHandler(p: RealmContext): RequestHandler {
  return async (req, res) => {
    // RFC 8693 §2.1: a token exchange may name several audiences.
    const params = paramsOf(req, ['audience']);
    const grantType = params.get('grant_type');
    if (grantType === undefined) throw invalidRequest('Missing form parameter: grant_type');
    const definition = TOKEN_GRANTS.get(grantType);
    if (definition === undefined) {
      throw new OAuthError(
        'unsupported_grant_type',
        `Unsupported grant_type "${grantType}" (supported: ${SUPPORTED})`,
      );
    }
    // Only a known value reaches the log line: request text could forge log lines.
    noteForLog(res, { grant: definition.type });
    const issuer = issuerOf(res);
    const { client, method, audiences } = await authenticateAt(p, req, res, params, PATHS.token);
    refuseBearerOnly(p, client);
    const dpop = await tokenRequestProofOf(p, req, res, PATHS.token);
    if (dpop === undefined && client.dpop === 'required')
      throw invalidDPoPProof(`Client "${client.id}" requires a DPoP proof: send a DPoP header`);
    const grant = await definition.handle(p, {
      client,
      method,
      params,
      issuer,
      audiences,
      ...(dpop !== undefined ? { dpop } : {}),
    });
    if (!grant.serviceAccount) noteForLog(res, { user: grant.subject.username });
    const shape = definition.shape?.(params, client, p.realm);
    const idToken =
      (shape?.idToken ?? definition.issuesIdToken) &&
      !grant.serviceAccount &&
      grant.scopes.includes('openid');
    const issued = await issueTokenSet(p, grant, {
      issuer,
      idToken,
      // RFC 9449 §5: a public client's refresh token is bound to the key too; a confidential client's is
      // bound to its client authentication.
      ...(dpop !== undefined ? { dpop: { jkt: dpop.jkt, bindsRefresh: method === 'none' } } : {}),
      ...(shape !== undefined
        ? {
            refreshToken: shape.refreshToken,
            ...(shape.issuedTokenType !== undefined ? { issuedTokenType: shape.issuedTokenType } : {}),
          }
        : {}),
    });
    if (eventsOn(p))
      noteEvent(res, tokenEvent(grant, definition.type, method, issued, params.get('refresh_token')));
    sendNoStore(res, tokenResponseJson(issued, p.realm.brand.proof));
  };
}

/** Keycloak's name of a client authentication method (its client authenticator's id). */
const AUTHENTICATORS: Partial<Record<AuthMethod, string>> = {
  private_key_jwt: 'client-jwt',
  client_secret_jwt: 'client-secret-jwt',
};

/** What a token response's event says, as Keycloak's (the token ids, never the tokens). */
function tokenEvent(
  grant: Grant,
  grantType: string,
  method: AuthMethod,
  issued: IssuedTokenResponse,
  /** The refresh token a refresh grant used (verified by the grant). */
  used: string | undefined,
): EventNote {
  const user = grant.serviceAccount || grantType === 'password' ? { username: grant.subject.username } : {};
  const refresh = issued.refresh_token !== undefined ? decodeJwt(issued.refresh_token).jti : undefined;
  // As Keycloak: a refresh names the refresh token it used, and the one it gave as the updated one.
  const refreshIds =
    grantType === 'refresh_token' && used !== undefined
      ? {
          refresh_token_id: decodeJwt(used).jti ?? '',
          ...(refresh !== undefined ? { updated_refresh_token_id: refresh } : {}),
        }
      : refresh !== undefined
        ? { refresh_token_id: refresh }
        : {};
  return {
    userId: grant.subject.sub,
    sessionId: grant.sessionId,
    details: {
      ...(grantType === 'password' ? { auth_method: 'openid-connect' } : {}),
      grant_type: grantType,
      token_id: decodeJwt(issued.access_token).jti ?? '',
      ...refreshIds,
      ...(refresh !== undefined ? { refresh_token_type: 'Refresh' } : {}),
      scope: issued.scope,
      ...(grantType === 'authorization_code' ? { code_id: grant.sessionId } : {}),
      client_auth_method: AUTHENTICATORS[method] ?? 'client-secret',
      ...user,
    },
  };
}
