// The few HTML pages: user picker, error page, logged-out page, form_post auto-submit.
import { createHash } from 'node:crypto';
import type { Response } from 'express';

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · mock-idp</title>
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#222}
button{display:block;width:100%;text-align:left;margin:.4rem 0;padding:.7rem 1rem;font-size:1rem;border:1px solid #bbb;border-radius:6px;background:#f7f7f7;cursor:pointer}
button:hover{background:#eaeaea}.muted{color:#666;font-size:.9rem}.error{color:#a00}</style></head>
<body>${body}</body></html>`;
}

function send(
  res: Response,
  status: number,
  title: string,
  body: string,
  security: SecurityHeaderOptions = {},
): void {
  securityHeaders(res, security);
  res
    .status(status)
    .set({ 'Cache-Control': 'no-store', 'Content-Type': 'text/html; charset=utf-8' })
    .send(layout(title, body));
}

export function sendErrorPage(res: Response, status: number, message: string): void {
  send(
    res,
    status,
    'Error',
    `<h1>We are sorry...</h1><p class="error" id="error">${escapeHtml(message)}</p>`,
  );
}

export function sendLoggedOutPage(res: Response): void {
  send(res, 200, 'Logged out', '<h1>You are logged out</h1>');
}

export interface PickerUser {
  username: string;
  name?: string;
}

/** A list of fixture users; each button posts the authorize request again with login_hint. */
export function sendUserPicker(
  res: Response,
  action: string,
  params: [string, string][],
  users: PickerUser[],
  clientId: string,
  notice?: string,
): void {
  const hidden = params
    .filter(([k]) => k !== 'login_hint')
    .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`)
    .join('');
  const buttons = users
    .map(
      (u) =>
        `<button type="submit" name="login_hint" value="${escapeHtml(u.username)}">${escapeHtml(u.name ?? u.username)} <span class="muted">(${escapeHtml(u.username)})</span></button>`,
    )
    .join('\n');
  const body = `<h1>Sign in to ${escapeHtml(clientId)}</h1>${notice !== undefined ? `<p class="error">${escapeHtml(notice)}</p>` : ''}
<p class="muted">mock-idp: pick a fixture user.</p>
<form method="post" action="${escapeHtml(action)}">${hidden}
${buttons || '<p>No users in the fixtures.</p>'}
</form>`;
  send(res, 200, 'Sign in', body);
}

/** response_mode=form_post: an auto-submitting form to the client's redirect_uri. */
export function sendFormPost(res: Response, redirectUri: string, fields: Record<string, string>): void {
  const inputs = Object.entries(fields)
    .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`)
    .join('');
  const body = `<form method="post" action="${escapeHtml(redirectUri)}">${inputs}<noscript><button type="submit">Continue</button></noscript></form>
<script>${FORM_POST_SCRIPT}</script>`;
  send(res, 200, 'Submit', body, { scripts: [FORM_POST_SCRIPT] });
}

const FORM_POST_SCRIPT = 'document.forms[0].submit()';

export interface SecurityHeaderOptions {
  /**
   * Origins that may frame the page (the session iframe pages of PRODUCT.md §10: a client's web origins).
   * Default: none, and `X-Frame-Options: DENY`; given, CSP `frame-ancestors` lists them and
   * X-Frame-Options is left out (it cannot name origins).
   */
  frameAncestors?: readonly string[];
  /** The page's inline `<script>` sources, allowed by their SHA-256. Default: no script runs. */
  scripts?: readonly string[];
  /** Origins the page may load in iframes (front-channel logout URIs). Default: none. */
  frames?: readonly string[];
}

const scriptHashes = new Map<string, string>();
function scriptHash(source: string): string {
  let hash = scriptHashes.get(source);
  if (hash === undefined) {
    hash = `'sha256-${createHash('sha256').update(source).digest('base64')}'`;
    scriptHashes.set(source, hash);
  }
  return hash;
}

/**
 * The security headers of every HTML page (PRODUCT.md §11): a Content-Security-Policy that runs only the
 * page's own inline scripts and loads nothing else, X-Frame-Options DENY (unless `frameAncestors` lets
 * some origins frame it), `X-Content-Type-Options: nosniff` and `Referrer-Policy: no-referrer`.
 */
export function securityHeaders(res: Response, options: SecurityHeaderOptions = {}): void {
  const { frameAncestors = [], scripts = [], frames = [] } = options;
  const csp = [
    "default-src 'none'",
    "style-src 'unsafe-inline'",
    "img-src 'self' data:",
    `script-src ${scripts.length > 0 ? scripts.map(scriptHash).join(' ') : "'none'"}`,
    ...(frames.length > 0 ? [`frame-src ${frames.join(' ')}`] : []),
    "base-uri 'none'",
    `frame-ancestors ${frameAncestors.length > 0 ? frameAncestors.join(' ') : "'none'"}`,
  ].join('; ');
  res.setHeader('Content-Security-Policy', csp);
  if (frameAncestors.length === 0) res.setHeader('X-Frame-Options', 'DENY');
  else res.removeHeader('X-Frame-Options');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
}
