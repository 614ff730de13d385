// POST /protocol/openid-connect/revoke (RFC 7009): a refresh token ends its session, an access token is revoked.
import type { RequestHandler } from 'express';
import type { RealmContext } from '../../realm/context.js';
import { verifyOwnToken } from '../../tokens/verify.js';
import { refuseBearerOnly } from '../../oauth/client-auth.js';
import { OAuthError } from '../../oauth/errors.js';
import { authenticateAt, paramsOf } from '../context.js';
import { PATHS } from '../../realm/paths.js';

export function revokeHandler(p: RealmContext): RequestHandler {
  return async (req, res) => {
    const params = paramsOf(req);
    const { client } = await authenticateAt(p, req, res, params, PATHS.revoke);
    refuseBearerOnly(p, client);
    const token = params.require('token');
    const verified = await verifyOwnToken(p, token);
    // RFC 7009 §2.2: an invalid or unknown token is not an error.
    if (verified !== undefined) {
      const { claims } = verified;
      if (claims['azp'] !== client.id)
        throw new OAuthError('unauthorized_client', 'Token was issued to another client');
      if (verified.kind === 'refresh') {
        if (verified.sessionId !== undefined) await p.store.endSession(verified.sessionId, 'revoked');
      } else if (typeof claims.jti === 'string') await p.store.revoke(claims.jti, Number(claims.exp ?? 0));
    }
    res.status(200).set({ 'Cache-Control': 'no-store', Pragma: 'no-cache' }).end();
  };
}
