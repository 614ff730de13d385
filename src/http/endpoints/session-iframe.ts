// The pages keycloak-js frames: the session iframe (check_session_iframe, OIDC Session Management 1.0)
// with its /init origin check, and the two-step third-party-cookie check.
import type { RequestHandler, Response } from 'express';
import type { RealmContext } from '../../realm/context.js';
import { browserSession, sessionUnchanged } from '../../oauth/browser-session.js';
import { sendJson } from '../context.js';
import { securityHeaders } from '../pages.js';

/**
 * The session iframe. A relying party posts `"{client_id} {session_state}"` (the session id, which is also
 * the tokens' `sid`: keycloak-js posts that); the page answers `unchanged`, `changed` or `error`. The origin check runs
 * once per client and origin (`/init`); the state is then compared by the server (`/status`), which
 * sees the HttpOnly session cookie, so a session ended elsewhere (logout, QA API, idle expiry) reads as
 * `changed` even while the browser still holds its cookies.
 */
const CHECK_SESSION_SCRIPT = `(() => {
  const base = location.origin + location.pathname;
  const verified = new Set();
  async function check(clientId, origin, held) {
    const query = new URLSearchParams({ client_id: clientId, origin });
    const key = query.toString();
    if (!verified.has(key)) {
      const init = await fetch(base + '/init?' + key, { credentials: 'same-origin', cache: 'no-store' });
      if (init.status !== 204) return 'error';
      verified.add(key);
    }
    query.set('session_state', held);
    const answer = await fetch(base + '/status?' + query, { credentials: 'same-origin', cache: 'no-store' });
    if (!answer.ok) return 'error';
    const { status } = await answer.json();
    return status === 'unchanged' || status === 'changed' ? status : 'error';
  }
  window.addEventListener('message', async (event) => {
    if (typeof event.data !== 'string' || event.source === null) return;
    const parts = event.data.split(' ');
    if (parts.length !== 2) return;
    let status;
    try {
      status = await check(parts[0], event.origin, parts[1]);
    } catch {
      status = 'error';
    }
    event.source.postMessage(status, event.origin);
  });
})();`;

/** Step 1: storage access granted already, or set a test cookie and look for it in step 2. */
const STEP1_SCRIPT = `(async () => {
  if ('hasStorageAccess' in document) {
    try {
      if (await document.hasStorageAccess()) return window.parent.postMessage('supported', '*');
    } catch {}
  }
  document.cookie = 'KEYCLOAK_3P_COOKIE_SAMESITE=supported; Max-Age=60; SameSite=None; Secure';
  document.cookie = 'KEYCLOAK_3P_COOKIE=supported; Max-Age=60';
  location.replace('step2.html');
})();`;

const STEP2_SCRIPT = `(() => {
  const supported = /(^|;\\s*)KEYCLOAK_3P_COOKIE(_SAMESITE)?=supported/.test(document.cookie);
  document.cookie = 'KEYCLOAK_3P_COOKIE_SAMESITE=; Max-Age=0; SameSite=None; Secure';
  document.cookie = 'KEYCLOAK_3P_COOKIE=; Max-Age=0';
  window.parent.postMessage(supported ? 'supported' : 'unsupported', '*');
})();`;

function page(script: string): { html: string; script: string } {
  return {
    html: `<!doctype html><html><head><meta charset="utf-8"><title>mock-idp</title></head><body><script>${script}</script></body></html>`,
    script,
  };
}

const CHECK_SESSION_PAGE = page(CHECK_SESSION_SCRIPT);
const STEP1_PAGE = page(STEP1_SCRIPT);
const STEP2_PAGE = page(STEP2_SCRIPT);

/** A small static page that the realm's clients' web origins may frame (and nobody else). */
function sendFramable(p: RealmContext, res: Response, content: { html: string; script: string }): void {
  securityHeaders(res, {
    frameAncestors: ["'self'", ...p.realm.webOrigins],
    scripts: [content.script],
    connect: ["'self'"],
  });
  res
    .status(200)
    .set({ 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-cache' })
    .send(content.html);
}

export function checkSessionPageHandler(p: RealmContext): RequestHandler {
  return (_req, res) => sendFramable(p, res, CHECK_SESSION_PAGE);
}

export function thirdPartyCookiesHandler(p: RealmContext, step: 1 | 2): RequestHandler {
  return (_req, res) => sendFramable(p, res, step === 1 ? STEP1_PAGE : STEP2_PAGE);
}

/** Whether `origin` is a registered web origin of the client named by `clientId`. */
function registeredOrigin(p: RealmContext, clientId: unknown, origin: unknown): boolean {
  if (typeof clientId !== 'string' || typeof origin !== 'string') return false;
  return p.realm.clients.get(clientId)?.webOrigins.includes(origin) ?? false;
}

/** `/init?client_id&origin`: 204 for a registered web origin of that client, else 403 (as Keycloak). */
export function checkSessionInitHandler(p: RealmContext): RequestHandler {
  return (req, res) => {
    const ok = registeredOrigin(p, req.query['client_id'], req.query['origin']);
    res
      .status(ok ? 204 : 403)
      .set('Cache-Control', 'no-store')
      .end();
  };
}

/** `/status?client_id&origin&session_state`: `{status}` for the browser's session cookie. */
export function checkSessionStatusHandler(p: RealmContext): RequestHandler {
  return async (req, res) => {
    const { client_id: clientId, origin, session_state: held } = req.query;
    let status = 'error';
    if (registeredOrigin(p, clientId, origin) && typeof held === 'string') {
      const session = await browserSession(p, req.headers.cookie);
      status = sessionUnchanged(held, session?.id) ? 'unchanged' : 'changed';
    }
    sendJson(res, 200, { status }, { 'Cache-Control': 'no-store' });
  };
}
