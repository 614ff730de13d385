// GET|POST /protocol/openid-connect/logout: ends the session named by id_token_hint or refresh_token.
import type { RequestHandler } from 'express';
import { decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { sessionIdOf, type Provider } from '../../provider.js';
import { authenticateClient } from '../../oauth/client-auth.js';
import { invalidGrant, invalidRequest } from '../../oauth/errors.js';
import { isRegisteredRedirect } from '../../oauth/redirect-uri.js';
import { issuerOf, noteForLog, paramsOf } from '../context.js';
import { sendErrorPage, sendLoggedOutPage } from '../pages.js';
import { PATHS } from '../paths.js';

/** An ID token of ours, checked for signature only: an expired id_token_hint still names its session. */
async function verifyIdTokenHint(
  p: Provider,
  token: string,
): Promise<{ sid?: string; aud?: string } | undefined> {
  try {
    const key = p.keys.find(decodeProtectedHeader(token).kid);
    if (key === undefined) return undefined;
    const iat = decodeJwt(token).iat ?? 0;
    const { payload } = await jwtVerify(token, key.publicKey, {
      algorithms: ['RS256'],
      currentDate: new Date(iat * 1000),
    });
    const sid = sessionIdOf(payload);
    const aud = Array.isArray(payload.aud) ? payload.aud[0] : payload.aud;
    return { ...(sid !== undefined ? { sid } : {}), ...(aud !== undefined ? { aud } : {}) };
  } catch {
    return undefined;
  }
}

export function logoutHandler(p: Provider): RequestHandler {
  return async (req, res) => {
    const params = paramsOf(req);
    const issuer = issuerOf(res);
    const refreshToken = params.get('refresh_token');
    if (req.method === 'POST' && refreshToken !== undefined) {
      // Back-channel logout by a confidential client, as Keycloak's adapters do it.
      const { client } = await authenticateClient(p, {
        authorization: req.headers.authorization,
        params,
        audiences: [issuer, issuer + PATHS.token, issuer + PATHS.logout],
      });
      noteForLog(res, { client: client.id });
      const verified = await p.verifyOwnToken(refreshToken);
      if (verified?.kind !== 'refresh') throw invalidGrant('Invalid refresh token');
      if (verified.claims['azp'] !== client.id)
        throw invalidGrant("Invalid refresh token. Token client and authorized client don't match");
      if (verified.sessionId !== undefined) p.store.endSession(verified.sessionId);
      res.status(204).end();
      return;
    }
    const hintToken = params.get('id_token_hint');
    const hint = hintToken !== undefined ? await verifyIdTokenHint(p, hintToken) : undefined;
    if (hintToken !== undefined && hint === undefined)
      return sendErrorPage(res, 400, 'Invalid parameter: id_token_hint');
    const clientId = params.get('client_id') ?? hint?.aud;
    const redirect = params.get('post_logout_redirect_uri');
    const client = clientId !== undefined ? p.realm.clients.get(clientId) : undefined;
    // Only a fixture client id reaches the log line: request text could forge log lines.
    if (client !== undefined) noteForLog(res, { client: client.id });
    if (redirect !== undefined && (client === undefined || !isRegisteredRedirect(client, redirect))) {
      return sendErrorPage(
        res,
        400,
        'Invalid redirect uri: post_logout_redirect_uri needs client_id or id_token_hint and a registered URI',
      );
    }
    if (hint?.sid !== undefined) p.store.endSession(hint.sid);
    if (redirect !== undefined) {
      const state = params.get('state');
      const target =
        state !== undefined
          ? `${redirect}${redirect.includes('?') ? '&' : '?'}${new URLSearchParams({ state })}`
          : redirect;
      res.redirect(302, target);
      return;
    }
    if (hintToken === undefined && req.method === 'POST' && params.get('client_id') === undefined)
      throw invalidRequest('Nothing to log out: send id_token_hint or refresh_token');
    sendLoggedOutPage(res);
  };
}
