// The few HTML pages: user picker, error page, logged-out page, form_post auto-submit.
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

function send(res: Response, status: number, title: string, body: string): void {
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
<script>document.forms[0].submit()</script>`;
  send(res, 200, 'Submit', body);
}
