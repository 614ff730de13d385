// GET|POST /protocol/openid-connect/auth: issues codes and front-channel tokens; the browser's session, login_hint or the login page picks the user.
import type { RequestHandler, Response } from 'express';
import type { RealmContext } from '../../realm/context.js';
import { BoundedMemo } from '../../memo.js';
import type { Subject } from '../../fixtures/realm.js';
import { userByHint } from '../../fixtures/realm.js';
import {
  checkAuthorizeRequest,
  issueAuthorizeResponse,
  returnsToken,
  sessionSatisfies,
  type AuthorizeRequest,
  type ResponseMode,
} from '../../oauth/authorize.js';
import { browserSession, sessionCookies } from '../../oauth/browser-session.js';
import type { Session } from '../../store/state-store.js';
import { OAuthError } from '../../oauth/errors.js';
import type { Params } from '../../oauth/params.js';
import { isRegisteredRedirect } from '../../oauth/redirect-uri.js';
import { withRequestObject } from '../../oauth/request-object.js';
import { issuerOf, noteForLog, paramsOf } from '../context.js';
import { sendErrorPage, sendFormPost, sendLoginPage } from '../pages.js';
import { PATHS } from '../../realm/paths.js';

function respond(
  res: Response,
  redirectUri: string,
  mode: ResponseMode,
  fields: Record<string, string>,
): void {
  if (mode === 'form_post') {
    sendFormPost(res, redirectUri, fields);
    return;
  }
  const encoded = new URLSearchParams(fields).toString();
  const target =
    mode === 'fragment'
      ? `${redirectUri.split('#')[0]}#${encoded}`
      : `${redirectUri}${redirectUri.includes('?') ? '&' : '?'}${encoded}`;
  // The Location is the target as a URL writes it. Form encoding leaves nothing a URL parser would change in a
  // query or fragment, so a redirect URI that is already written so needs no second parse.
  const location = normalized(redirectUri) ? target : new URL(target).href;
  // A bare 302: express's res.redirect negotiates and renders a body nobody reads (hot path).
  res.writeHead(302, { Location: location, 'Cache-Control': 'no-store', 'Content-Length': '0' }).end();
}

/** Whether redirect URIs are written as a URL writes them (no fragment), by URI: a client uses the same few. */
const normalizedUris = new BoundedMemo<boolean>(256);

function normalized(uri: string): boolean {
  return normalizedUris.remember(
    uri,
    () => !uri.includes('#') && URL.canParse(uri) && new URL(uri).href === uri,
  );
}

/** Sends an error to a known-good redirect URI, in the response mode the request asked for. */
function redirectError(
  res: Response,
  redirectUri: string,
  params: Params,
  issuer: string,
): (error: string, description: string) => void {
  const state = params.get('state');
  const fallbackMode: ResponseMode = returnsToken(params.get('response_type')) ? 'fragment' : 'query';
  const requestedMode = params.get('response_mode');
  const errorMode: ResponseMode =
    requestedMode === 'fragment' || requestedMode === 'form_post' || requestedMode === 'query'
      ? requestedMode
      : fallbackMode;
  return (error, description) => {
    noteForLog(res, { error });
    respond(res, redirectUri, errorMode, {
      error,
      error_description: description,
      ...(state !== undefined ? { state } : {}),
      iss: issuer,
    });
  };
}

export function authorizeHandler(p: RealmContext): RequestHandler {
  return async (req, res) => {
    let params;
    try {
      params = paramsOf(req);
    } catch (err) {
      sendErrorPage(res, 400, (err as Error).message);
      return;
    }
    const issuer = issuerOf(res);
    const clientId = params.get('client_id');
    if (clientId === undefined) return sendErrorPage(res, 400, 'Missing parameter: client_id');
    let client = p.realm.clients.get(clientId);
    if (client === undefined || client.registration !== undefined) {
      // One registered or deleted at another replica moments ago counts at once.
      await p.catchUp();
      client = p.realm.clients.get(clientId);
    }
    if (client === undefined) return sendErrorPage(res, 400, `Client not found: "${clientId}"`);
    // Only a fixture client id reaches the log line: request text could forge log lines.
    noteForLog(res, { client: client.id });
    const query = params;
    try {
      params = await withRequestObject(query, { client, issuer, clock: p.clock });
    } catch (err) {
      if (!(err instanceof OAuthError)) throw err;
      // The object is not to be trusted: the query's redirect_uri gets the error when it is registered.
      const queryRedirect = query.get('redirect_uri');
      if (queryRedirect !== undefined && isRegisteredRedirect(client, queryRedirect))
        return redirectError(res, queryRedirect, query, issuer)(err.error, err.message);
      noteForLog(res, { error: err.error });
      return sendErrorPage(res, 400, err.message);
    }
    const redirectUri = params.get('redirect_uri');
    if (redirectUri === undefined) return sendErrorPage(res, 400, 'Missing parameter: redirect_uri');
    if (!isRegisteredRedirect(client, redirectUri))
      return sendErrorPage(
        res,
        400,
        `Invalid parameter: redirect_uri "${redirectUri}" is not registered for client "${client.id}"`,
      );

    const fail = redirectError(res, redirectUri, params, issuer);
    let request;
    try {
      request = checkAuthorizeRequest(p, client, redirectUri, params);
    } catch (err) {
      if (err instanceof OAuthError) return fail(err.error, err.message);
      throw err;
    }
    // The login page's Cancel button: the user declined, as the real provider reports it.
    if (req.method === 'POST' && params.get('cancel') !== undefined)
      return fail('access_denied', 'The user cancelled the sign-in');

    const now = p.clock.nowSeconds();
    const current = await browserSession(p, req.headers.cookie);
    const reusable = current !== undefined && sessionSatisfies(request, current, now) ? current : undefined;
    const hint = params.get('login_hint');
    const hinted = hint !== undefined ? userByHint(p.realm, hint) : undefined;

    let session: Session;
    let user: Subject;
    if (hinted !== undefined && reusable?.username !== hinted.username) {
      // login_hint naming a user stands for that user's credentials: a real login.
      user = hinted;
      session = await signIn(p, request, hinted, current, issuer, now);
    } else if (reusable !== undefined) {
      // Single sign-on: the browser's session signs this client in too.
      user = p.realm.users.get(reusable.username ?? '') as Subject;
      session = reusable;
      await p.touchSession(session, client.id);
    } else if (request.prompt.has('none')) {
      return fail(
        'login_required',
        current !== undefined
          ? 'The session does not satisfy prompt or max_age; prompt=none cannot show the login page'
          : 'No browser session: sign in first, or name a user with login_hint',
      );
    } else {
      return sendLoginPage(res, {
        action: issuer + PATHS.auth,
        params: params.entries(),
        users: [...p.realm.users.values()],
        clientId: client.id,
        ...(hint !== undefined ? { notice: `Unknown user "${hint}"` } : {}),
      });
    }
    noteForLog(res, { user: user.username });
    const fields = await issueAuthorizeResponse(p, request, session, user, issuer);
    if (p.realm.sso) res.setHeader('Set-Cookie', await sessionCookies(p, session, { issuer }));
    respond(res, redirectUri, request.responseMode, fields);
  };
}

/**
 * A real login of `user`: the browser's session when it is the same user's (its auth_time moves on),
 * else a new session. Another user's session stays active; the browser's cookies move to the new one.
 */
async function signIn(
  p: RealmContext,
  request: AuthorizeRequest,
  user: Subject,
  current: Session | undefined,
  issuer: string,
  now: number,
): Promise<Session> {
  if (current !== undefined && current.username === user.username) {
    current.authTime = now;
    await p.touchSession(current, request.client.id);
    return current;
  }
  return p.openSession({
    clientId: request.client.id,
    issuer,
    username: user.username,
    sub: user.sub,
    authTime: now,
    browser: true,
  });
}
