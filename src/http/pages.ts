// The few HTML pages: login page, error page, logged-out page, form_post auto-submit; the layout the start page shares.
import { createHash } from 'node:crypto';
import type { Response } from 'express';
import { nationalIdOfHint, type Subject } from '../fixtures/realm.js';
import { methodFor } from '../oauth/api-version.js';
import { LOGIN_PAGE_FIELDS } from '../oauth/par.js';
import { acrOf, acrValueOf, amrOf, type Method } from '../tokens/versions.js';

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const STYLE = `*{box-sizing:border-box}body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#1d2330;background:#f4f6f9;line-height:1.4}
h1{font-size:1.4rem;margin:.2rem 0 .3rem}.client{font-family:ui-monospace,monospace;background:#e3e8f0;padding:0 .3rem;border-radius:4px}
.muted{color:#5b6475;font-size:.9rem;margin:.2rem 0 1rem}.error{color:#a00}
ul.users{list-style:none;padding:0;margin:0;display:grid;gap:.6rem}
button{font:inherit;cursor:pointer}
button.user{display:block;width:100%;text-align:left;padding:.8rem 1rem;border:1px solid #c9d1de;border-radius:10px;background:#fff;box-shadow:0 1px 2px rgba(0,0,0,.05)}
button.user:hover,button.user:focus{border-color:#2f6fdf;outline:2px solid #cfe0ff}
.name{display:block;font-weight:600;font-size:1.05rem;margin-bottom:.3rem}
.facts{display:flex;flex-wrap:wrap;gap:.25rem .9rem;font-size:.85rem}.fact{white-space:nowrap}
.k{color:#5b6475}.v{font-family:ui-monospace,monospace}
button.cancel{padding:.5rem 1.2rem;border:1px solid #c9d1de;border-radius:8px;background:#eef1f5;color:#1d2330;flex:none}
.top{display:flex;align-items:flex-start;justify-content:space-between;gap:1rem}.top h1{overflow-wrap:anywhere}
.filter{margin:0 0 .8rem;display:flex;flex-wrap:wrap;align-items:center;gap:.3rem .8rem}
.filter input{font:inherit;flex:1 1 16rem;min-width:0;padding:.55rem .8rem;border:1px solid #c9d1de;border-radius:8px;background:#fff}
button.cancel:hover{background:#e1e6ee}
.required{color:#a00}.instruction{overflow-wrap:anywhere}form.password .buttons{display:flex;flex-wrap:wrap;gap:.6rem}form.password .lead,form.password p{margin:0}
form.password{display:grid;gap:.8rem;background:#fff;border:1px solid #c9d1de;border-radius:10px;padding:1rem 1.2rem;margin:0 0 1.2rem}
form.password .field{display:grid;gap:.25rem}form.password label{font-weight:600}
form.password input{font:inherit;min-width:0;padding:.55rem .8rem;border:1px solid #c9d1de;border-radius:8px;background:#fff}
form.password input[aria-invalid=true]{border-color:#a00}form.password input:focus{border-color:#2f6fdf;outline:2px solid #cfe0ff}form.password button.primary{justify-self:start}
.alert-warning{background:#fff7e0;border:1px solid #f0d58a;border-radius:8px;padding:.5rem .8rem;margin:0 0 1rem}form.password input.primary{justify-self:start;width:auto;cursor:pointer;padding:.6rem 1.4rem;border:1px solid #2f6fdf;background:#2f6fdf;color:#fff;font-weight:600}
.alert-error{color:#a00;background:#fdecec;border:1px solid #f3c2c2;border-radius:8px;padding:.5rem .8rem;margin:0 0 1rem}
h2.picker{font-size:1rem;margin:0 0 .6rem;color:#5b6475;font-weight:600}
h2{font-size:1.1rem;margin:1.4rem 0 .4rem}a{color:#1f5bc4}code{font-family:ui-monospace,monospace;font-size:.9em;overflow-wrap:anywhere}
dl.index{display:grid;grid-template-columns:max-content 1fr;gap:.3rem .8rem;margin:0 0 .6rem}dl.index dt{color:#5b6475}dl.index dd{margin:0;overflow-wrap:anywhere}
ul.links{padding-left:1.1rem;margin:.3rem 0}ul.links li{margin:.25rem 0;overflow-wrap:anywhere}.foot{margin-top:1.6rem}
.lead{background:#e8f0fe;border:1px solid #c6d7f7;border-radius:8px;padding:.5rem .8rem;margin:0 0 1rem}
form.code{display:flex;flex-wrap:wrap;gap:.6rem;margin:1rem 0}form.code label{flex:1 1 100%;font-weight:600}
form.code input{font:600 1.4rem/1.2 ui-monospace,monospace;letter-spacing:.12em;text-transform:uppercase;flex:1 1 12rem;min-width:0;padding:.6rem .8rem;border:1px solid #c9d1de;border-radius:8px;background:#fff}
button.primary{padding:.6rem 1.4rem;border:1px solid #2f6fdf;border-radius:8px;background:#2f6fdf;color:#fff;font-weight:600;flex:none}button.primary:hover{background:#245ac0}
.done{background:#fff;border:1px solid #c9d1de;border-radius:10px;padding:1rem 1.2rem}.done .mark{font-size:2rem;line-height:1;margin:0 0 .3rem;color:#0a7a32}#device-denied .mark{color:#a00}.done h1{margin-top:0}
@media (max-width:30rem){dl.index{grid-template-columns:1fr;gap:0}dl.index dd{margin-bottom:.4rem}}
@media (max-width:30rem){body{margin:1rem auto}.facts{flex-direction:column;gap:.1rem}}`;

/** A page's HTML; `title` is the whole <title> when `exactTitle`, else it is followed by "· mock-idp". */
function layout(title: string, body: string, exactTitle = false): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}${exactTitle ? '' : ' · mock-idp'}</title>
<style>${STYLE}</style></head>
<body>${body}</body></html>`;
}

/** A page in the shared layout and security headers (the start page's way in). */
export function sendPage(res: Response, status: number, title: string, body: string): void {
  send(res, status, title, body);
}

function send(
  res: Response,
  status: number,
  title: string,
  body: string,
  security: SecurityHeaderOptions = {},
  exactTitle = false,
): void {
  securityHeaders(res, security);
  res
    .status(status)
    .set({ 'Cache-Control': 'no-store', 'Content-Type': 'text/html; charset=utf-8' })
    .send(layout(title, body, exactTitle));
}

export function sendErrorPage(res: Response, status: number, message: string): void {
  send(
    res,
    status,
    'Error',
    `<h1>We are sorry...</h1><p class="error" id="error">${escapeHtml(message)}</p>`,
  );
}

interface LoggedOutPage {
  /** Front-channel logout URIs, each loaded in a hidden iframe. */
  frames: string[];
  /** Where to go once the frames have loaded (post_logout_redirect_uri with state). */
  next?: string;
}

/** Waits for every front-channel iframe (at most 3 s), then follows data-next when there is one. */
const LOGGED_OUT_SCRIPT = `(() => {
  const frames = [...document.querySelectorAll('iframe.frontchannel')];
  const next = document.body.dataset.next;
  let pending = frames.length;
  const done = () => { if (next) location.replace(next); };
  const one = () => { if (--pending === 0) done(); };
  frames.forEach((f) => f.addEventListener('load', one, { once: true }));
  if (pending === 0) done(); else setTimeout(done, 3000);
})();`;

export function sendLoggedOutPage(res: Response, page: LoggedOutPage = { frames: [] }): void {
  if (page.frames.length === 0 && page.next === undefined) {
    send(res, 200, 'Logged out', '<h1>You are logged out</h1>');
    return;
  }
  securityHeaders(res, {
    scripts: [LOGGED_OUT_SCRIPT],
    frames: [...new Set(page.frames.map((f) => new URL(f).origin))],
  });
  const frames = page.frames
    .map(
      (f) =>
        `<iframe class="frontchannel" src="${escapeHtml(f)}" title="front-channel logout" hidden></iframe>`,
    )
    .join('');
  const body = `<h1>You are logged out</h1>${frames}<script>${LOGGED_OUT_SCRIPT}</script>`;
  const html = layout('Logged out', body).replace(
    '<body>',
    page.next !== undefined ? `<body data-next="${escapeHtml(page.next)}">` : '<body>',
  );
  res.status(200).set({ 'Cache-Control': 'no-store', 'Content-Type': 'text/html; charset=utf-8' }).send(html);
}

/** A national id as the login page shows it: the birth date part, the personal number masked (DDMMYY*****). */
function maskNationalId(nnin: string): string {
  return /^\d{11}$/.test(nnin) ? `${nnin.slice(0, 6)}*****` : nnin;
}

interface LoginPage {
  /** The authorize endpoint the form posts back to. */
  action: string;
  /** The authorize request's parameters, repeated as hidden fields. */
  params: [string, string][];
  users: Subject[];
  clientId: string;
  /** The client's name from the fixtures: the header shows it, with the id beside it. */
  clientName?: string;
  notice?: string;
  /** The methods acr_values asks for: each user's button shows the one that user signs in with. */
  acrValues?: Method[];
  /** The brand's alternative-subject claim the buttons show; default `idp_altsub`. */
  altsub?: string;
  /** The brand word of the acr values shown; default `idp`. */
  brand?: string;
  /** A line under the header saying what the sign-in is for (a device's user code). */
  lead?: string;
  /** A Keycloak realm's username and password form, above the buttons. */
  passwordForm?: PasswordForm;
}

/** The login form of a Keycloak realm, with the ids and names of Keycloak's own (keycloak.v2 theme). */
export interface PasswordForm {
  /** The realm's display name, else its name: the page's title is "Sign in to" it, as Keycloak's is. */
  realm: string;
  /** The label says "Username or email" (the realm's loginWithEmailAllowed), else "Username". */
  email: boolean;
  /** What the person typed, filled in again after a refusal (never the password). */
  username?: string;
  /**
   * Keycloak's words for a refusal: wrong credentials beside the fields (`#input-error`), anything else
   * above the form (its alert, `.kc-feedback-text`).
   */
  error?: { message: string; beside: boolean };
}

/** A field of Keycloak's "Update Account Information" page (UPDATE_PROFILE), by Keycloak's name. */
export type ProfileField = 'username' | 'email' | 'firstName' | 'lastName';

/**
 * A required action's page after the right password, with the code that carries the sign-in on to the next:
 * what the page shows, and any refusal of what was posted.
 */
export type ActionStage = { code: string } & (
  | { action: 'UPDATE_PASSWORD'; error?: { field: 'password' | 'password-confirm'; message: string } }
  | {
      action: 'UPDATE_PROFILE';
      /** The fields shown (the username only where the realm lets users change it), filled in. */
      values: Partial<Record<ProfileField, string>>;
      errors: Partial<Record<ProfileField, string>>;
    }
  | { action: 'VERIFY_EMAIL'; email: string }
  | { action: 'TERMS_AND_CONDITIONS' }
);

/** A text or password field of an action's form: Keycloak's ids, its refusal in `#input-error-{name}` under it. */
function inputField(f: {
  name: string;
  label: string;
  type: 'text' | 'email' | 'password';
  autocomplete: string;
  value?: string;
  autofocus: boolean;
  required?: boolean;
  error?: { id: string; message: string } | undefined;
}): string {
  const value = f.value !== undefined ? ` value="${escapeHtml(f.value)}"` : '';
  const star = f.required === true ? ' <span class="required" aria-hidden="true">*</span>' : '';
  const error =
    f.error !== undefined
      ? `<span id="${f.error.id}" class="error" aria-live="polite">${escapeHtml(f.error.message)}</span>`
      : '';
  return `<div class="field"><label for="${f.name}">${f.label}${star}</label>
<input type="${f.type}" id="${f.name}" name="${f.name}"${value} autocomplete="${f.autocomplete}"${f.autofocus ? ' autofocus' : ''}${f.error !== undefined ? ' aria-invalid="true"' : ''}>${error}</div>`;
}

const PROFILE_FIELDS: { name: ProfileField; label: string; type: 'text' | 'email'; autocomplete: string }[] =
  [
    { name: 'username', label: 'Username', type: 'text', autocomplete: 'username' },
    { name: 'email', label: 'Email', type: 'email', autocomplete: 'email' },
    { name: 'firstName', label: 'First name', type: 'text', autocomplete: 'given-name' },
    { name: 'lastName', label: 'Last name', type: 'text', autocomplete: 'family-name' },
  ];

/** Each action's page: Keycloak's header, the line saying what the mock page is for, Keycloak's notice, the form. */
interface ActionParts {
  title: string;
  /** What the mock's page is for, on the line under the title. */
  hint: string;
  /** Keycloak's warning above the form (left out once a refusal is shown). */
  notice?: string;
  /** Text above the form. */
  intro?: string;
  formId: string;
  /** The form's fields and buttons. */
  form: string;
}

function actionParts(stage: ActionStage): ActionParts {
  switch (stage.action) {
    case 'UPDATE_PASSWORD': {
      const error = stage.error;
      const field = (name: 'password-new' | 'password-confirm', label: string, errorId: string) =>
        inputField({
          name,
          label,
          type: 'password',
          autocomplete: 'new-password',
          autofocus: name === 'password-new',
          error:
            error !== undefined && `password-${error.field === 'password' ? 'new' : 'confirm'}` === name
              ? { id: errorId, message: error.message }
              : undefined,
        });
      return {
        title: 'Update password',
        hint: 'choose the new password; the sign-in then goes on.',
        ...(error === undefined
          ? { notice: 'You need to change your password to activate your account.' }
          : {}),
        formId: 'kc-passwd-update-form',
        form: `${field('password-new', 'New Password', 'input-error-password')}
${field('password-confirm', 'Confirm password', 'input-error-password-confirm')}
<input type="submit" class="primary" value="Submit">`,
      };
    }
    case 'UPDATE_PROFILE': {
      const shown = PROFILE_FIELDS.filter((f) => stage.values[f.name] !== undefined);
      const firstRefused = shown.find((f) => stage.errors[f.name] !== undefined)?.name;
      const fields = shown.map((f) => {
        const message = stage.errors[f.name];
        return inputField({
          ...f,
          value: stage.values[f.name] ?? '',
          autofocus: f.name === (firstRefused ?? shown[0]?.name),
          required: true,
          error: message !== undefined ? { id: `input-error-${f.name}`, message } : undefined,
        });
      });
      return {
        title: 'Update Account Information',
        hint: 'check your details; the sign-in then goes on.',
        ...(firstRefused === undefined
          ? { notice: 'You need to update your user profile to activate your account.' }
          : {}),
        formId: 'kc-update-profile-form',
        form: `${fields.join('\n')}
<input type="submit" id="kc-submit" class="primary" value="Submit">`,
      };
    }
    case 'VERIFY_EMAIL':
      return {
        title: 'Email verification',
        hint: 'no email is sent; the button stands for the link in it.',
        notice: 'You need to verify your email address to activate your account.',
        intro: `<p class="instruction">An email with instructions to verify your email address has been sent to your address ${escapeHtml(stage.email)}.</p>`,
        formId: 'kc-verify-email-form',
        form: `<p class="lead">mock-idp sends no email. This button does what clicking the link in it does: the address is verified and the sign-in goes on.</p>
<button type="submit" id="mock-verify-email" name="verify-email" value="link" class="primary">Verify email (the link in the email)</button>`,
      };
    case 'TERMS_AND_CONDITIONS':
      return {
        title: 'Terms and Conditions',
        hint: 'Accept goes on; Decline ends the sign-in (the app hears access_denied).',
        formId: 'kc-terms-form',
        form: `<div id="kc-terms-text"><p>Terms and conditions to be defined</p></div>
<div class="buttons"><button type="submit" id="kc-accept" name="accept" class="primary">Accept</button>
<button type="submit" id="kc-decline" name="cancel" class="cancel">Decline</button></div>`,
      };
  }
}

/**
 * A required action's page, as Keycloak's (keycloak.v2 login-update-password, login-update-profile,
 * login-verify-email, terms): its form posts the code and the authorize request (hidden fields) back to `action`.
 */
export function sendActionPage(
  res: Response,
  page: { action: string; params: [string, string][]; realm: string; stage: ActionStage },
): void {
  const hidden = [
    ...page.params.filter(([k]) => !LOGIN_PAGE_FIELDS.includes(k)),
    ['session_code', page.stage.code],
  ]
    .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k ?? '')}" value="${escapeHtml(v ?? '')}">`)
    .join('');
  const { title, hint, notice, intro, formId, form } = actionParts(page.stage);
  const body = `<main class="login"><div class="top"><h1 id="kc-page-title">${title}</h1></div>
<p class="muted">mock-idp test login: ${hint}</p>${notice !== undefined ? `<div class="alert-warning" role="status"><span class="kc-feedback-text">${notice}</span></div>` : ''}
${intro ?? ''}<form id="${formId}" class="password" method="post" action="${escapeHtml(page.action)}" novalidate>${hidden}
${form}</form></main>`;
  send(res, 200, `Sign in to ${page.realm}`, body, {}, true);
}

function passwordFormHtml(form: PasswordForm, action: string, hidden: string): string {
  const invalid = form.error?.beside === true ? ' aria-invalid="true"' : '';
  const alert =
    form.error !== undefined && !form.error.beside
      ? `<div class="alert-error pf-m-danger" role="alert"><span class="kc-feedback-text">${escapeHtml(form.error.message)}</span></div>`
      : '';
  const beside =
    form.error?.beside === true
      ? `<div id="input-error-username" aria-live="polite"><span id="input-error" class="error">${escapeHtml(form.error.message)}</span></div>`
      : '';
  return `${alert}<form id="kc-form-login" class="password" method="post" action="${escapeHtml(action)}" novalidate>${hidden}
<div class="field"><label for="username">${form.email ? 'Username or email' : 'Username'}</label>
<input id="username" name="username" type="text" value="${escapeHtml(form.username ?? '')}" autocomplete="username" autofocus${invalid}></div>
<div class="field"><label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password"${invalid}></div>
${beside}<button type="submit" id="kc-login" name="login" class="primary">Sign In</button></form>`;
}

function userButton(u: Subject, asked: readonly Method[], altsub: string, brand: string): string {
  const text = (key: string): string | undefined => {
    const value = u.claims[key];
    return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
  };
  const name = text('name') ?? u.username;
  const nnin = text('nnin_altsub');
  const method = methodFor(asked, u);
  const facts: [string, string | undefined][] = [
    ['Username', u.username],
    [altsub, text(altsub)],
    ['National id', nnin !== undefined ? maskNationalId(nnin) : undefined],
    ['Method', method !== undefined ? amrOf(method) : undefined],
    ['acr', method !== undefined ? acrOf(method, brand) : (u.acr ?? '1')],
  ];
  const dl = facts
    .filter((f): f is [string, string] => f[1] !== undefined)
    .map(
      ([k, v]) =>
        `<span class="fact"><span class="k">${escapeHtml(k)}</span> <span class="v">${escapeHtml(v)}</span></span>`,
    )
    .join('');
  const search = [u.username, name, text(altsub), nnin !== undefined ? maskNationalId(nnin) : undefined]
    .filter((v) => v !== undefined)
    .join(' ')
    .toLowerCase();
  return `<li data-search="${escapeHtml(search)}"><button type="submit" class="user" name="login_hint" value="${escapeHtml(u.username)}"><span class="name">${escapeHtml(name)}</span><span class="facts">${dl}</span></button></li>`;
}

/**
 * What the login page says of a `login_hint` that signs no one in. A national id is never shown: a browser
 * page is what a pushed request or an encrypted request object keeps it from.
 */
export function hintNotice(hint: string, disabled: boolean): string {
  if (disabled) return 'Account is disabled, contact your admin.';
  return nationalIdOfHint(hint) !== undefined
    ? 'No user has the national id given in the request'
    : `Unknown user "${hint}"`;
}

/** Hides the buttons whose text does not hold what the filter box holds (the page works without it). */
const FILTER_SCRIPT = `(() => {
  const box = document.getElementById('filter');
  const items = [...document.querySelectorAll('ul.users > li')];
  const count = document.getElementById('shown');
  box.hidden = false;
  box.addEventListener('input', () => {
    const words = box.value.toLowerCase().split(/\\s+/).filter(Boolean);
    let shown = 0;
    for (const li of items) {
      const hit = words.every((w) => li.dataset.search.includes(w));
      li.hidden = !hit;
      if (hit) shown++;
    }
    count.textContent = words.length === 0 ? '' : shown + ' of ' + items.length + ' shown';
  });
})();`;

/** The login page: every fixture user as a button that posts the authorize request again with login_hint. */
export function sendLoginPage(res: Response, page: LoginPage): void {
  const hidden = page.params
    .filter(([k]) => !LOGIN_PAGE_FIELDS.includes(k))
    .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`)
    .join('');
  const form = page.passwordForm;
  const asked = page.acrValues ?? [];
  const brand = page.brand ?? 'idp';
  const users = page.users.map((u) => userButton(u, asked, page.altsub ?? 'idp_altsub', brand)).join('\n');
  const methodLine =
    asked.length > 0
      ? `<p class="muted method">Sign-in method asked for: ${asked.map((m) => escapeHtml(acrValueOf(m, brand))).join(', ')} (each person signs in with the first one they may use)</p>`
      : '';
  const title =
    page.clientName !== undefined
      ? `${escapeHtml(page.clientName)} <span class="client">${escapeHtml(page.clientId)}</span>`
      : `<span class="client">${escapeHtml(page.clientId)}</span>`;
  // A filter box once the list is long enough to scroll; hidden until its script runs.
  const filter =
    page.users.length > 5
      ? `<div class="filter"><input type="search" id="filter" hidden placeholder="Filter ${page.users.length} people by name, username or id" aria-label="Filter people" autocomplete="off"><span id="shown" class="muted" aria-live="polite"></span></div>`
      : '';
  const body = `<main class="login"><div class="top"><h1>Sign in to ${title}</h1>
<button type="submit" form="login" class="cancel" name="cancel" value="true">Cancel</button></div>
<p class="muted">mock-idp test login: ${form !== undefined ? 'sign in with a password, or choose a test person' : 'choose a test person'}.</p>${page.lead !== undefined ? `<p class="lead">${escapeHtml(page.lead)}</p>` : ''}${methodLine}${page.notice !== undefined ? `<p class="error" role="alert">${escapeHtml(page.notice)}</p>` : ''}
${form !== undefined ? `${passwordFormHtml(form, page.action, hidden)}\n<h2 class="picker">Or choose a test person</h2>\n` : ''}${filter}<form method="post" action="${escapeHtml(page.action)}" id="login">${hidden}
${users !== '' ? `<ul class="users">${users}</ul>` : '<p>No users in the fixtures.</p>'}
</form></main>${filter !== '' ? `<script>${FILTER_SCRIPT}</script>` : ''}`;
  send(
    res,
    200,
    form !== undefined ? `Sign in to ${form.realm}` : 'Sign in',
    body,
    filter !== '' ? { scripts: [FILTER_SCRIPT] } : {},
    form !== undefined,
  );
}

/** The device page's first step: a box for the user code a device shows (RFC 8628 §3.3). */
export function sendDeviceCodePage(
  res: Response,
  page: { action: string; userCode?: string; notice?: string; status?: number },
): void {
  const body = `<main class="device"><h1>Sign in on a device</h1>
<p class="muted">Enter the code your device (TV, console, command line) shows.</p>${page.notice !== undefined ? `<p class="error" role="alert" id="error">${escapeHtml(page.notice)}</p>` : ''}
<form method="post" action="${escapeHtml(page.action)}" class="code"><label for="user_code">Code</label>
<input id="user_code" name="user_code" value="${escapeHtml(page.userCode ?? '')}" placeholder="ABCD-EFGH" autocomplete="off" autocapitalize="characters" spellcheck="false" required autofocus>
<button type="submit" class="primary">Continue</button></form></main>`;
  send(res, page.status ?? 200, 'Device sign-in', body);
}

/** The device page's last step: what the person decided, and that the device carries on by itself. */
export function sendDeviceDonePage(
  res: Response,
  page: { approved: boolean; clientName: string; username?: string },
): void {
  const body = page.approved
    ? `<main class="device"><div class="done" id="device-done"><p class="mark" aria-hidden="true">✓</p><h1>Done — you may return to your device</h1>
<p>${escapeHtml(page.username ?? '')} is signed in to <strong>${escapeHtml(page.clientName)}</strong> on the device. You can close this page.</p></div></main>`
    : `<main class="device"><div class="done" id="device-denied"><p class="mark" aria-hidden="true">✕</p><h1>Sign-in denied</h1>
<p>The device will not be signed in to <strong>${escapeHtml(page.clientName)}</strong>. You can close this page.</p></div></main>`;
  send(res, 200, page.approved ? 'Device signed in' : 'Device sign-in denied', body);
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

interface SecurityHeaderOptions {
  /**
   * Origins that may frame the page (the session iframe pages: a client's web origins).
   * Default: none, and `X-Frame-Options: DENY`; given, CSP `frame-ancestors` lists them and
   * X-Frame-Options is left out (it cannot name origins).
   */
  frameAncestors?: readonly string[];
  /** The page's inline `<script>` sources, allowed by their SHA-256. Default: no script runs. */
  scripts?: readonly string[];
  /** Origins the page may load in iframes (front-channel logout URIs). Default: none. */
  frames?: readonly string[];
  /** Sources the page's scripts may fetch (`'self'` for the session iframe). Default: none. */
  connect?: readonly string[];
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
 * The security headers of every HTML page: a Content-Security-Policy that runs only the
 * page's own inline scripts and loads nothing else, X-Frame-Options DENY (unless `frameAncestors` lets
 * some origins frame it), `X-Content-Type-Options: nosniff` and `Referrer-Policy: no-referrer`.
 */
export function securityHeaders(res: Response, options: SecurityHeaderOptions = {}): void {
  const { frameAncestors = [], scripts = [], frames = [], connect = [] } = options;
  const csp = [
    "default-src 'none'",
    "style-src 'unsafe-inline'",
    "img-src 'self' data:",
    `script-src ${scripts.length > 0 ? scripts.map(scriptHash).join(' ') : "'none'"}`,
    ...(frames.length > 0 ? [`frame-src ${frames.join(' ')}`] : []),
    ...(connect.length > 0 ? [`connect-src ${connect.join(' ')}`] : []),
    "base-uri 'none'",
    `frame-ancestors ${frameAncestors.length > 0 ? frameAncestors.join(' ') : "'none'"}`,
  ].join('; ');
  res.setHeader('Content-Security-Policy', csp);
  if (frameAncestors.length === 0) res.setHeader('X-Frame-Options', 'DENY');
  else res.removeHeader('X-Frame-Options');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
}
