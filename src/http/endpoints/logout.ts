// GET|POST /protocol/openid-connect/logout: ends the session named by id_token_hint or refresh_token, and the browser's.
import type { RequestHandler, Response } from 'express';
import { decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import type { RealmContext } from '../../realm/context.js';
import { sessionIdOf, verifyOwnToken } from '../../tokens/verify.js';
import { invalidGrant, invalidRequest } from '../../oauth/errors.js';
import { browserSession, clearedCookies } from '../../oauth/browser-session.js';
import { postLogoutRedirectProblem } from '../../oauth/redirect-uri.js';
import type { Session } from '../../store/state-store.js';
import { authenticateAt, issuerOf, noteForLog, paramsOf } from '../context.js';
import { eventsOn, noteEvent } from '../events.js';
import { sendErrorPage, sendLoggedOutPage } from '../pages.js';
import { PATHS } from '../../realm/paths.js';

/** An ID token of ours, checked for signature only: an expired id_token_hint still names its session. */
async function verifyIdTokenHint(
  p: RealmContext,
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

export function logoutHandler(p: RealmContext): RequestHandler {
  return async (req, res) => {
    const params = paramsOf(req);
    const issuer = issuerOf(res);
    const refreshToken = params.get('refresh_token');
    if (req.method === 'POST' && refreshToken !== undefined) {
      // Back-channel logout by a confidential client, as Keycloak's adapters do it.
      const { client } = await authenticateAt(p, req, res, params, PATHS.logout);
      const verified = await verifyOwnToken(p, refreshToken);
      if (verified?.kind !== 'refresh') throw invalidGrant('Invalid refresh token');
      if (verified.claims['azp'] !== client.id)
        throw invalidGrant("Invalid refresh token. Token client and authorized client don't match");
      if (verified.sessionId !== undefined) {
        // The session's user, for the event (read only when the realm saves events).
        const session = eventsOn(p) ? await p.store.activeSession(verified.sessionId) : undefined;
        await p.store.endSession(verified.sessionId, 'logout');
        if (session !== undefined) noteLogout(p, res, session);
      }
      res.status(204).end();
      return;
    }
    // RP-initiated logout (OIDC RP-Initiated Logout 1.0) from the browser.
    const hintToken = params.get('id_token_hint');
    const hint = hintToken !== undefined ? await verifyIdTokenHint(p, hintToken) : undefined;
    if (hintToken !== undefined && hint === undefined)
      return sendErrorPage(res, 400, 'Invalid parameter: id_token_hint');
    const clientId = params.get('client_id') ?? hint?.aud;
    const redirect = params.get('post_logout_redirect_uri');
    const client = clientId !== undefined ? p.realm.clients.get(clientId) : undefined;
    // Only a fixture client id reaches the log line: request text could forge log lines.
    if (client !== undefined) noteForLog(res, { client: client.id });
    if (redirect !== undefined) {
      const problem = postLogoutRedirectProblem(redirect, {
        id: clientId,
        from: params.get('client_id') !== undefined ? 'client_id' : 'id_token_hint',
        client,
        keycloakRealm: p.realm.keycloak !== undefined,
      });
      if (problem !== undefined) return sendErrorPage(res, 400, problem);
    }
    const browser = await browserSession(p, req.headers.cookie);
    if (
      hintToken === undefined &&
      browser === undefined &&
      req.method === 'POST' &&
      params.get('client_id') === undefined
    )
      throw invalidRequest('Nothing to log out: send id_token_hint or refresh_token');

    // The sessions this logout ends: the one the ID token names, and the browser's own.
    const ended = new Map<string, Session>();
    for (const id of [hint?.sid, browser?.id]) {
      const session = await p.store.activeSession(id);
      if (session !== undefined) ended.set(session.id, session);
    }
    const frames = [...ended.values()].flatMap((session) => frontchannelUris(p, session));
    for (const id of ended.keys()) await p.store.endSession(id, 'logout');
    const first = ended.values().next().value;
    if (first !== undefined) noteLogout(p, res, first, redirect);
    if (p.realm.sso) res.setHeader('Set-Cookie', clearedCookies({ issuer }));

    const state = params.get('state');
    const target =
      redirect === undefined
        ? undefined
        : state !== undefined
          ? `${redirect}${redirect.includes('?') ? '&' : '?'}${new URLSearchParams({ state })}`
          : redirect;
    if (frames.length > 0)
      return sendLoggedOutPage(res, { frames, ...(target !== undefined ? { next: target } : {}) });
    if (target !== undefined) {
      res.redirect(302, target);
      return;
    }
    sendLoggedOutPage(res, { frames: [] });
  };
}

/** OIDC Front-Channel Logout 1.0: each client of the session with a frontchannelLogoutUri, with `iss` and `sid`. */
function frontchannelUris(p: RealmContext, session: Session): string[] {
  return session.clients.flatMap((clientId) => {
    const uri = p.realm.clients.get(clientId)?.frontchannelLogoutUri;
    if (uri === undefined) return [];
    const url = new URL(uri);
    url.searchParams.set('iss', session.issuer);
    url.searchParams.set('sid', session.id);
    return [url.href];
  });
}

/** The LOGOUT event of an ended session, as Keycloak's: its user, and where the browser goes next. */
function noteLogout(p: RealmContext, res: Response, session: Session, redirect?: string): void {
  const user = session.username !== undefined ? p.realm.users.get(session.username) : undefined;
  noteEvent(res, {
    clientId: session.clientId,
    sessionId: session.id,
    ...(user !== undefined ? { userId: user.sub } : {}),
    ...(redirect !== undefined ? { details: { redirect_uri: redirect } } : {}),
  });
}
