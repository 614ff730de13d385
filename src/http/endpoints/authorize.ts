// GET|POST /protocol/openid-connect/auth: issues codes and front-channel tokens; the browser's session, login_hint or the login page picks the user.
import type { Request, RequestHandler, Response } from 'express';
import type { RealmContext } from '../../realm/context.js';
import { isDisabled, userByHint, type Client, type Subject } from '../../fixtures/realm.js';
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
import { isRegisteredRedirect, registeredRedirectUri } from '../../oauth/redirect-uri.js';
import { withRequestObject } from '../../oauth/request-object.js';
import { isPushedRequestUri, loginPageParams, takePushedRequest } from '../../oauth/par.js';
import { issuerOf, noteForLog, noteWhy, paramsOf } from '../context.js';
import { noteEvent } from '../events.js';
import { sendActionPage, sendErrorPage, sendFormPost, sendLoginPage, hintNotice } from '../pages.js';
import { passwordForm, postedLogin } from '../password-login.js';
import type { CompleteAction } from '../required-actions.js';
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

/** Whether a redirect URI is written as a URL writes it (no fragment). */
function normalized(uri: string): boolean {
  return !uri.includes('#') && URL.canParse(uri) && new URL(uri).href === uri;
}

/** Sends an error to the redirect URI; returns undefined, the answer of a step that has answered. */
type Fail = (error: string, description: string) => undefined;

/** Sends an error to a known-good redirect URI, in the response mode the request asked for. */
function redirectError(res: Response, redirectUri: string, params: Params, issuer: string): Fail {
  const state = params.get('state');
  const fallbackMode: ResponseMode = returnsToken(params.get('response_type')) ? 'fragment' : 'query';
  const requestedMode = params.get('response_mode');
  const errorMode: ResponseMode =
    requestedMode === 'fragment' || requestedMode === 'form_post' || requestedMode === 'query'
      ? requestedMode
      : fallbackMode;
  return (error, description) => {
    noteForLog(res, { error });
    noteWhy(res, oneLine(description));
    respond(res, redirectUri, errorMode, {
      error,
      error_description: description,
      ...(state !== undefined ? { state } : {}),
      iss: issuer,
    });
    return undefined;
  };
}

/** One authorize request as the steps see it. */
interface Exchange {
  p: RealmContext;
  req: Request;
  res: Response;
  issuer: string;
}

/** The error page: the answer while the redirect URI is not known to be the client's. */
function errorPage(res: Response, message: string, error = 'invalid_request'): undefined {
  // The log line says what a token error's says: error= always, and why at debug.
  if (res.locals['error'] === undefined) noteForLog(res, { error });
  noteWhy(res, oneLine(message));
  sendErrorPage(res, 400, message);
  return undefined;
}

/** Request text on one log line: a control character (a line break in a redirect_uri) shown escaped. */
function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f]/g, (c) => JSON.stringify(c).slice(1, -1));
}

// Each step below either returns what the next needs, or has answered the request itself (an error page,
// an error at the redirect URI, the login page) and returns undefined.

/** The parameters, or the error page for a duplicated or malformed one. */
function readParams({ req, res }: Exchange): Params | undefined {
  try {
    return paramsOf(req);
  } catch (err) {
    return errorPage(res, (err as Error).message);
  }
}

/** The client the request names, or the error page. */
async function checkClient({ p, res }: Exchange, params: Params): Promise<Client | undefined> {
  const clientId = params.get('client_id');
  if (clientId === undefined) return errorPage(res, 'Missing parameter: client_id');
  // One registered or deleted at another replica moments ago counts at once: the request caught up with
  // the store before this endpoint ran.
  const client = p.realm.clients.get(clientId);
  if (client === undefined) return errorPage(res, `Client not found: "${clientId}"`, 'invalid_client');
  // Only a fixture client id reaches the log line: request text could forge log lines.
  noteForLog(res, { client: client.id });
  return client;
}

/**
 * The parameters with a request object's applied, or those pushed under the request_uri; or the error (at
 * the query's redirect URI, else a page).
 */
async function checkRequestObject(
  x: Exchange,
  query: Params,
  client: Client,
  pushed: boolean,
): Promise<Params | undefined> {
  const { p, req, res, issuer } = x;
  try {
    if (pushed) return await takePushedRequest(p, query, client, req.method === 'POST');
    return await withRequestObject(query, {
      client,
      issuer,
      clock: p.clock,
      encryptionKey: p.encryptionKey,
    });
  } catch (err) {
    if (!(err instanceof OAuthError)) throw err;
    // The object is not to be trusted: the query's redirect_uri gets the error when it is registered.
    const queryRedirect = query.get('redirect_uri');
    if (queryRedirect !== undefined && isRegisteredRedirect(client, queryRedirect))
      return redirectError(res, queryRedirect, query, issuer)(err.error, err.message);
    noteForLog(res, { error: err.error });
    return errorPage(res, err.message);
  }
}

/** The redirect URI, registered for the client, or the error page: errors go there only from here on. */
function checkRedirectUri({ res }: Exchange, params: Params, client: Client): string | undefined {
  const redirect = registeredRedirectUri(client, params.get('redirect_uri'));
  if (!('problem' in redirect)) return redirect.uri;
  // The page is for the developer who typed the URI: what the client has registered is the fix.
  const registered =
    client.redirectUris.length > 0
      ? `registered: ${client.redirectUris.join(', ')}`
      : `client "${client.id}" registers no redirect URIs`;
  return errorPage(res, `${redirect.problem} (${registered})`);
}

/** The checked request (response type, mode, scopes, nonce, PKCE, prompt, max_age), or its error. */
function checkRequest(
  { p }: Exchange,
  client: Client,
  redirectUri: string,
  params: Params,
  pushed: boolean,
  fail: Fail,
): AuthorizeRequest | undefined {
  try {
    return checkAuthorizeRequest(p, client, redirectUri, params, { pushed });
  } catch (err) {
    if (err instanceof OAuthError) return fail(err.error, err.message);
    throw err;
  }
}

/** A client with requirePar takes only pushed requests. */
function checkPushed(client: Client, pushed: boolean, fail: Fail): boolean {
  if (pushed || client.requirePar !== true) return true;
  fail('invalid_request', `Client "${client.id}" requires a pushed authorization request (PAR)`);
  return false;
}

/**
 * The login page's Cancel button: the user declined, as the real provider reports it. (A required action's
 * page, which posts its `session_code`, has its own: Terms and Conditions' Decline.)
 */
function checkCancelled({ req }: Exchange, params: Params, fail: Fail): boolean {
  if (req.method !== 'POST' || params.get('cancel') === undefined || params.has('session_code')) return false;
  fail('access_denied', 'The user cancelled the sign-in');
  return true;
}

/**
 * Who signs in, and in which session: the user a Keycloak realm's login form or login_hint names, else the
 * browser's session (single sign-on). Else login_required for prompt=none, or the login page.
 */
async function authenticate(
  x: Exchange,
  request: AuthorizeRequest,
  params: Params,
  pushed: boolean,
  fail: Fail,
  completeAction?: CompleteAction,
): Promise<{ user: Subject; session: Session } | undefined> {
  const { p, req, res, issuer } = x;
  const now = p.clock.nowSeconds();
  const current = await browserSession(p, req.headers.cookie);
  const reusable = current !== undefined && sessionSatisfies(request, current, now) ? current : undefined;
  const posted = await postedLogin(p, req.method, params, completeAction);
  if (posted?.event !== undefined)
    noteEvent(res, { ...posted.event, details: loginDetails(request, posted.username.slice(0, 255)) });
  if (posted?.step !== undefined) {
    // A user with required actions pending: Keycloak's page of the next one, then the sign-in.
    sendActionPage(res, {
      action: issuer + PATHS.auth,
      params: pushed ? await loginPageParams(p, request.client, params) : params.entries(),
      realm: passwordForm(p.realm, posted)?.realm ?? p.realm.name,
      stage: posted.step,
    });
    return undefined;
  }
  // As Keycloak: Terms and Conditions declined ends the sign-in with access_denied.
  if (posted?.declined === true) return fail('access_denied', 'The user declined the terms and conditions');
  const hint = posted === undefined ? params.get('login_hint') : undefined;
  const named =
    posted !== undefined ? posted.user : hint !== undefined ? userByHint(p.realm, hint) : undefined;
  // A Keycloak realm's disabled user cannot sign in: the login page says so, as Keycloak's does.
  const disabled = hint !== undefined && named !== undefined && isDisabled(p.realm, named.username);
  const hinted = disabled ? undefined : named;
  if (hinted !== undefined && reusable?.username !== hinted.username) {
    // The form's password, or login_hint naming a user (it stands for that user's credentials): a real login.
    return { user: hinted, session: await signIn(p, request, hinted, current, issuer, now) };
  }
  if (reusable !== undefined && posted?.error === undefined) {
    // Single sign-on: the browser's session signs this client in too.
    await p.touchSession(reusable, request.client.id);
    return { user: p.realm.users.get(reusable.username ?? '') as Subject, session: reusable };
  }
  if (request.prompt.has('none'))
    return fail(
      'login_required',
      current !== undefined
        ? 'The session does not satisfy prompt or max_age; prompt=none cannot show the login page'
        : 'No browser session: sign in first, or name a user with login_hint',
    );
  const form = passwordForm(p.realm, posted);
  sendLoginPage(res, {
    action: issuer + PATHS.auth,
    params: pushed ? await loginPageParams(p, request.client, params) : params.entries(),
    users: [...p.realm.users.values()],
    clientId: request.client.id,
    ...(request.client.name !== undefined ? { clientName: request.client.name } : {}),
    acrValues: request.acrValues,
    altsub: p.realm.brand.altsub,
    brand: p.realm.brand.word,
    ...(hint !== undefined ? { notice: hintNotice(hint, disabled) } : {}),
    ...(form !== undefined ? { passwordForm: form } : {}),
  });
  return undefined;
}

/** The code and tokens the response type asks for, at the redirect URI (with the session cookies under SSO). */
async function issue(
  { p, res, issuer }: Exchange,
  request: AuthorizeRequest,
  { user, session }: { user: Subject; session: Session },
): Promise<void> {
  noteForLog(res, { user: user.username });
  noteEvent(res, {
    userId: user.sub,
    sessionId: session.id,
    details: { ...loginDetails(request, user.username), code_id: session.id },
  });
  const fields = await issueAuthorizeResponse(p, request, session, user, issuer);
  if (p.realm.sso) res.setHeader('Set-Cookie', await sessionCookies(p, session, { issuer }));
  respond(res, request.redirectUri, request.responseMode, fields);
}

/** What a sign-in's event says of the request, as Keycloak's LOGIN and LOGIN_ERROR events. */
function loginDetails(request: AuthorizeRequest, username: string): Record<string, string> {
  return {
    auth_method: 'openid-connect',
    auth_type: 'code',
    response_type: request.responseType,
    redirect_uri: request.redirectUri,
    consent: 'no_consent_required',
    username,
    response_mode: request.responseMode,
  };
}

export function authorizeHandler(p: RealmContext, completeAction?: CompleteAction): RequestHandler {
  return async (req, res) => {
    const x: Exchange = { p, req, res, issuer: issuerOf(res) };
    const query = readParams(x);
    if (query === undefined) return;
    const client = await checkClient(x, query);
    if (client === undefined) return;
    const pushed = isPushedRequestUri(query.get('request_uri'));
    const params = await checkRequestObject(x, query, client, pushed);
    if (params === undefined) return;
    const redirectUri = checkRedirectUri(x, params, client);
    if (redirectUri === undefined) return;
    const fail = redirectError(res, redirectUri, params, x.issuer);
    if (!checkPushed(client, pushed, fail)) return;
    const request = checkRequest(x, client, redirectUri, params, pushed, fail);
    if (request === undefined || checkCancelled(x, params, fail)) return;
    const signedIn = await authenticate(x, request, params, pushed, fail, completeAction);
    if (signedIn === undefined) return;
    await issue(x, request, signedIn);
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
