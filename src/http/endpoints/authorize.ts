// GET|POST /protocol/openid-connect/auth: issues codes; login_hint picks the user, else an HTML picker.
import type { RequestHandler, Response } from 'express';
import type { Provider } from '../../provider.js';
import { checkAuthorizeRequest, issueCode, type ResponseMode } from '../../oauth/authorize.js';
import { OAuthError } from '../../oauth/errors.js';
import { isRegisteredRedirect } from '../../oauth/redirect-uri.js';
import { issuerOf, noteForLog, paramsOf } from '../context.js';
import { sendErrorPage, sendFormPost, sendUserPicker } from '../pages.js';
import { PATHS } from '../paths.js';

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
  // A bare 302: express's res.redirect negotiates and renders a body nobody reads (hot path).
  res
    .writeHead(302, { Location: new URL(target).href, 'Cache-Control': 'no-store', 'Content-Length': '0' })
    .end();
}

export function authorizeHandler(p: Provider): RequestHandler {
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
    const client = clientId !== undefined ? p.realm.clients.get(clientId) : undefined;
    if (clientId === undefined) return sendErrorPage(res, 400, 'Missing parameter: client_id');
    if (client === undefined) return sendErrorPage(res, 400, `Client not found: "${clientId}"`);
    // Only a fixture client id reaches the log line: request text could forge log lines.
    noteForLog(res, { client: client.id });
    const redirectUri = params.get('redirect_uri');
    if (redirectUri === undefined) return sendErrorPage(res, 400, 'Missing parameter: redirect_uri');
    if (!isRegisteredRedirect(client, redirectUri))
      return sendErrorPage(
        res,
        400,
        `Invalid parameter: redirect_uri "${redirectUri}" is not registered for client "${client.id}"`,
      );

    const state = params.get('state');
    const fallbackMode: ResponseMode = params.get('response_type')?.includes('id_token')
      ? 'fragment'
      : 'query';
    const requestedMode = params.get('response_mode');
    const errorMode: ResponseMode =
      requestedMode === 'fragment' || requestedMode === 'form_post' || requestedMode === 'query'
        ? requestedMode
        : fallbackMode;
    const fail = (error: string, description: string): void =>
      respond(res, redirectUri, errorMode, {
        error,
        error_description: description,
        ...(state !== undefined ? { state } : {}),
        iss: issuer,
      });
    let request;
    try {
      request = checkAuthorizeRequest(p, client, redirectUri, params);
    } catch (err) {
      if (err instanceof OAuthError) return fail(err.error, err.message);
      throw err;
    }
    const hint = params.get('login_hint');
    const user = hint !== undefined ? p.realm.users.get(hint) : undefined;
    if (user === undefined || hint === undefined) {
      if (params.get('prompt') === 'none')
        return fail('login_required', 'No user: prompt=none needs login_hint naming a fixture user');
      const users = [...p.realm.users.values()].map((u) => {
        const name = u.claims['name'];
        return { username: u.username, ...(typeof name === 'string' ? { name } : {}) };
      });
      const notice = hint !== undefined ? `Unknown user "${hint}"` : undefined;
      return sendUserPicker(res, issuer + PATHS.auth, params.entries(), users, client.id, notice);
    }
    respond(res, redirectUri, request.responseMode, await issueCode(p, request, hint, user, issuer));
  };
}
