// Shared harness of the browser tests: Chromium launch (a real part, see real-parts.ts), a static app server that
// serves keycloak-js from node_modules with a small app page driving it, and helpers to read mock-idp state.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import {
  chromium,
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  type Page,
} from 'playwright-core';
import { expect } from 'vitest';
import { skipWithout } from '../helpers/real-parts.js';
import { startLocalServer, useStarted, type LocalTls, type TestIdp } from '../helpers/server.js';

const CHROMIUM = process.env['MOCK_IDP_CHROMIUM'] ?? '/usr/bin/chromium';

/** For describe.skipIf: true when Chromium is missing outside CI. */
export const skipBrowser = skipWithout(
  'Chromium',
  existsSync(CHROMIUM) ? undefined : `no Chromium at ${CHROMIUM}`,
  'apt-get install -y chromium, or set MOCK_IDP_CHROMIUM',
);

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'];

/** Headless Chromium. */
async function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

/**
 * Headless Chromium with a regular profile in `dir`: unlike a new context (an incognito one, where Chromium
 * blocks third-party cookies by default) it sends a site's cookies in frames on another site, as a user's
 * browser does.
 */
export function launchChromiumProfile(
  dir: string,
  options: { ignoreHTTPSErrors?: boolean } = {},
): Promise<BrowserContext> {
  // A profile's own setting: allow third-party cookies (0), as Chromium's default outside incognito.
  mkdirSync(join(dir, 'Default'), { recursive: true });
  writeFileSync(
    join(dir, 'Default', 'Preferences'),
    JSON.stringify({ profile: { cookie_controls_mode: 0, block_third_party_cookies: false } }),
  );
  return chromium.launchPersistentContext(dir, { executablePath: CHROMIUM, args: CHROMIUM_ARGS, ...options });
}

/** Headless Chromium for the tests of the calling file or describe block. */
export function useChromium(): Browser {
  return useStarted('useChromium()', launchChromium, (browser) => browser.close());
}

/** Runs `use` on a page of a new browser context (cookies of its own), closed afterwards. */
export async function withPage<T>(
  browser: Browser,
  options: BrowserContextOptions,
  use: (page: Page) => Promise<T>,
): Promise<T> {
  const context = await browser.newContext(options);
  try {
    return await use(await context.newPage());
  } finally {
    await context.close();
  }
}

const KEYCLOAK_JS = createRequire(import.meta.url).resolve('keycloak-js');

/** keycloak-js's documented silent check page. */
const SILENT_CHECK_SSO = `<!doctype html>
<html><body><script>parent.postMessage(location.href, location.origin)</script></body></html>`;

/**
 * The app page. Its query string says how to build the adapter:
 *   mode=keycloak&url=ORIGIN&realm=REALM&clientId=ID   → new Keycloak({ url, realm, clientId })
 *   mode=oidc&oidcProvider=ISSUER&clientId=ID          → new Keycloak({ oidcProvider, clientId })
 * and how to init it: onLoad=login-required|check-sso, silent=1 (silentCheckSsoRedirectUri = this
 * origin's /silent-check-sso.html). With onLoad the page calls init at once; every other init option is
 * keycloak-js's default. The test reads window.kcResult / kcEvents / kcIframe and drives window.keycloak.
 */
const APP_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>keycloak-js test app</title></head>
<body><h1 id="status">loading</h1>
<script type="module">
import Keycloak from '/keycloak.js';
const q = new URLSearchParams(location.search);
const status = (text) => { document.getElementById('status').textContent = text; };
window.kcEvents = [];
window.kcIframe = [];
window.addEventListener('message', (event) => {
  if (event.data === 'unchanged' || event.data === 'changed' || event.data === 'error') window.kcIframe.push(event.data);
});
const config = q.get('mode') === 'oidc'
  ? { oidcProvider: q.get('oidcProvider'), clientId: q.get('clientId') }
  : { url: q.get('url'), realm: q.get('realm'), clientId: q.get('clientId') };
const keycloak = new Keycloak(config);
window.keycloak = keycloak;
for (const name of ['onReady', 'onAuthSuccess', 'onAuthError', 'onAuthRefreshSuccess', 'onAuthRefreshError', 'onAuthLogout']) {
  keycloak[name] = () => window.kcEvents.push(name);
}
const describe = (e) => e instanceof Error ? e.message : JSON.stringify(e ?? null);
window.kcInit = async (extra = {}) => {
  const options = { ...extra };
  if (q.has('onLoad')) options.onLoad = q.get('onLoad');
  if (q.get('silent') === '1') options.silentCheckSsoRedirectUri = location.origin + '/silent-check-sso.html';
  try {
    const authenticated = await keycloak.init(options);
    window.kcResult = { authenticated };
    status(authenticated ? 'authenticated' : 'anonymous');
  } catch (e) {
    window.kcResult = { error: describe(e) };
    status('error: ' + window.kcResult.error);
  }
  return window.kcResult;
};
window.kcDescribe = describe;
status('ready');
if (q.has('onLoad')) window.kcInit();
</script></body></html>`;

/** A request that reached `/hook/...` (front- and back-channel logout receivers). */
export interface Hook {
  method: string;
  path: string;
  query: Record<string, string>;
  /** The request body (a back-channel logout POST's form). */
  body: URLSearchParams;
}

interface AppServer {
  /** `http://127.0.0.1:PORT` (https with a certificate) */
  origin: string;
  /** Every `/hook/...` request so far, oldest first. */
  hooks: Hook[];
  close(): Promise<void>;
}

function send(res: ServerResponse, type: string, body: string): void {
  res.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' }).end(body);
}

/** HTML-escapes text for the test pages. */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => resolve(body));
  });
}

/** `/cb`: a landing page for redirects; a form_post body is shown in `<pre id="posted">`. */
async function landing(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = await readBody(req);
  const posted = req.method === 'POST' ? `<pre id="posted">${escapeHtml(body)}</pre>` : '';
  send(
    res,
    'text/html; charset=utf-8',
    `<!doctype html><title>landed</title><h1 id="landed">landed</h1>${posted}`,
  );
}

/**
 * `/hook/...`: records the request. `/hook/hang` never answers, `/hook/fail` answers 500, every other
 * hook 200 with an empty page (a front-channel logout iframe may load it).
 */
async function hook(req: IncomingMessage, res: ServerResponse, url: URL, hooks: Hook[]): Promise<void> {
  const body = new URLSearchParams(await readBody(req));
  hooks.push({
    method: req.method ?? '',
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    body,
  });
  if (url.pathname === '/hook/hang') return;
  if (url.pathname === '/hook/fail') res.writeHead(500, { 'content-type': 'text/plain' }).end('failed');
  else send(res, 'text/html; charset=utf-8', '<!doctype html><title>hook</title>');
}

/**
 * The static app: `/` and `/app.html` (the page above), `/keycloak.js`, `/silent-check-sso.html`, and
 * `/cb` (a landing page for redirect URIs, GET or form_post), and `/hook/...` (recorded, see hook()).
 */
async function startAppServer(tls?: LocalTls): Promise<AppServer> {
  const keycloakJs = readFileSync(KEYCLOAK_JS, 'utf8');
  const hooks: Hook[] = [];
  const server = await startLocalServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const path = url.pathname;
    if (path === '/cb') void landing(req, res);
    else if (path.startsWith('/hook/')) void hook(req, res, url, hooks);
    else if (req.method !== 'GET' && req.method !== 'HEAD') res.writeHead(405).end();
    else if (path === '/' || path === '/app.html') send(res, 'text/html; charset=utf-8', APP_PAGE);
    else if (path === '/keycloak.js') send(res, 'text/javascript; charset=utf-8', keycloakJs);
    else if (path === '/silent-check-sso.html') send(res, 'text/html; charset=utf-8', SILENT_CHECK_SSO);
    else res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  }, tls);
  return { origin: server.url, hooks, close: () => server.close() };
}

/**
 * The static app (see startAppServer) for the tests of the calling file or describe block; over https with
 * `tls` (a function: certificates are made in beforeAll).
 */
export function useAppServer(tls?: () => Promise<LocalTls>): AppServer {
  return useStarted(
    'useAppServer()',
    async () => startAppServer(tls === undefined ? undefined : await tls()),
    (app) => app.close(),
  );
}

export type KeycloakMode = 'keycloak' | 'oidc';

export interface AppPageOptions {
  mode: KeycloakMode;
  clientId: string;
  onLoad?: 'login-required' | 'check-sso';
  silent?: boolean;
}

/** The app page URL for a mock-idp realm, in either keycloak-js configuration mode. */
export function appUrl(app: AppServer, idp: TestIdp, o: AppPageOptions): string {
  const issuer = new URL(idp.issuer);
  const realm = decodeURIComponent(issuer.pathname.replace(/^\/realms\//, ''));
  const q = new URLSearchParams({ mode: o.mode, clientId: o.clientId });
  if (o.mode === 'keycloak') {
    q.set('url', issuer.origin);
    q.set('realm', realm);
  } else q.set('oidcProvider', idp.issuer);
  if (o.onLoad !== undefined) q.set('onLoad', o.onLoad);
  if (o.silent === true) q.set('silent', '1');
  return `${app.origin}/app.html?${q}`;
}

/** What the page's init settled with. */
type InitResult = { authenticated: boolean } | { error: string };

/** The parts of the adapter's state a test asserts on. */
interface KeycloakState {
  authenticated: boolean | undefined;
  token: string | undefined;
  refreshToken: string | undefined;
  idToken: string | undefined;
  sessionId: string | undefined;
  tokenParsed: Record<string, unknown> | undefined;
  events: string[];
  iframe: string[];
}

/** The app page's globals, as page.evaluate sees them. */
interface AppWindow {
  kcResult?: InitResult;
  kcEvents: string[];
  kcIframe: string[];
  kcDescribe(e: unknown): string;
  keycloak: {
    authenticated?: boolean;
    token?: string;
    refreshToken?: string;
    idToken?: string;
    sessionId?: string;
    tokenParsed?: Record<string, unknown>;
    updateToken(minValidity: number): Promise<boolean>;
    loadUserInfo(): Promise<Record<string, unknown>>;
    logout(options?: { redirectUri?: string }): Promise<void>;
    login(options?: { prompt?: 'none' | 'login'; maxAge?: number }): Promise<void>;
  };
}

/**
 * Waits (up to the adapter's own 10 s message timeout and some) for the page's init to settle. Fails early,
 * naming the page, when the browser rests for 8 s on a page that is not the app (a login or error page; a
 * logged-out page legitimately waits up to 3 s for its front-channel iframes).
 */
export async function initResult(page: Page, timeout = 20_000): Promise<InitResult> {
  const deadline = Date.now() + timeout;
  let elsewhereSince: number | undefined;
  while (Date.now() < deadline) {
    const seen = await page
      .evaluate(() => {
        const w = globalThis as unknown as Partial<AppWindow>;
        return { app: w.keycloak !== undefined, result: w.kcResult };
      })
      .catch(() => ({ app: false, result: undefined }));
    if (seen.result !== undefined) return seen.result;
    if (seen.app) elsewhereSince = undefined;
    else if (elsewhereSince === undefined) elsewhereSince = Date.now();
    else if (Date.now() - elsewhereSince > 8_000) {
      const text = await page
        .locator('body')
        .innerText()
        .catch(() => '');
      throw new Error(`the browser rests on ${page.url()} instead of the app: ${text.slice(0, 300)}`);
    }
    await page.waitForTimeout(100);
  }
  throw new Error(`init did not settle within ${timeout} ms; the page is at ${page.url()}`);
}

export function keycloakState(page: Page): Promise<KeycloakState> {
  return page.evaluate(() => {
    const w = globalThis as unknown as AppWindow;
    const k = w.keycloak;
    return {
      authenticated: k.authenticated,
      token: k.token,
      refreshToken: k.refreshToken,
      idToken: k.idToken,
      sessionId: k.sessionId,
      tokenParsed: k.tokenParsed,
      events: [...w.kcEvents],
      iframe: [...w.kcIframe],
    };
  });
}

/** Runs an adapter method in the page; a rejection comes back as `{ error }` instead of throwing. */
export function updateToken(page: Page, minValidity: number): Promise<{ value?: boolean; error?: string }> {
  return page.evaluate(async (min) => {
    const w = globalThis as unknown as AppWindow;
    try {
      return { value: await w.keycloak.updateToken(min) };
    } catch (e) {
      return { error: w.kcDescribe(e) };
    }
  }, minValidity);
}

export function loadUserInfo(page: Page): Promise<{ value?: Record<string, unknown>; error?: string }> {
  return page.evaluate(async () => {
    const w = globalThis as unknown as AppWindow;
    try {
      return { value: await w.keycloak.loadUserInfo() };
    } catch (e) {
      return { error: w.kcDescribe(e) };
    }
  });
}

/** Starts keycloak.logout() (it navigates away, so the promise is not awaited in the page; the result is cleared). */
export async function startLogout(page: Page, redirectUri: string): Promise<void> {
  await page.evaluate((uri) => {
    const w = globalThis as unknown as AppWindow;
    delete w.kcResult;
    void w.keycloak.logout({ redirectUri: uri });
  }, redirectUri);
}

/** Starts keycloak.login(options) (it navigates away; the page's result is cleared so initResult waits for the next). */
export async function startLogin(
  page: Page,
  options: { prompt?: 'none' | 'login'; maxAge?: number },
): Promise<void> {
  await page.evaluate((o) => {
    const w = globalThis as unknown as AppWindow;
    delete w.kcResult;
    void w.keycloak.login(o);
  }, options);
}

/** The mock-idp login page: each fixture user is a `button[name="login_hint"]` whose value is the username. */
export function userButton(page: Page, username: string): ReturnType<Page['locator']> {
  return page.locator(`button[name="login_hint"][value="${username}"]`);
}

/** True when the page shows mock-idp's login page of this realm. */
export function onLoginPage(page: Page, idp: TestIdp): boolean {
  return page.url().startsWith(idp.endpoints.auth);
}

/**
 * Waits for the app page to reach mock-idp's login page; fails at once with the adapter's error when its
 * init settles on the app page instead (e.g. a timed-out iframe check).
 */
export async function reachLoginPage(page: Page, idp: TestIdp, timeout = 20_000): Promise<void> {
  const deadline = Date.now() + timeout;
  while (Date.now() < deadline) {
    if (onLoginPage(page, idp) && (await page.locator('button[name="login_hint"]').count()) > 0) return;
    const settled = await page
      .evaluate(() => (globalThis as unknown as Partial<AppWindow>).kcResult)
      .catch(() => undefined);
    if (settled !== undefined)
      throw new Error(`init settled on ${page.url()} instead of the login page: ${JSON.stringify(settled)}`);
    await page.waitForTimeout(100);
  }
  throw new Error(`no login page within ${timeout} ms; the page is at ${page.url()}`);
}

/** Waits for the login page of `idp`, then picks `username` there. */
export async function signInAs(page: Page, idp: TestIdp, username: string): Promise<void> {
  await reachLoginPage(page, idp);
  await userButton(page, username).click();
}

interface IdpSession {
  id: string;
  clientId: string;
  clients: string[];
  browser: boolean;
  username?: string;
  sub: string;
  authTime: number;
}

/** GET {issuer}/mock/sessions. */
export async function listSessions(idp: TestIdp): Promise<IdpSession[]> {
  const response = await fetch(`${idp.issuer}/mock/sessions`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { sessions: IdpSession[] }).sessions;
}

/** DELETE {issuer}/mock/sessions/{id}: ends one session "elsewhere" (not from the browser). */
export async function endSession(idp: TestIdp, id: string): Promise<void> {
  const response = await fetch(`${idp.issuer}/mock/sessions/${encodeURIComponent(id)}`, {
    method: 'DELETE',
  });
  expect(response.status, await response.text()).toBe(200);
}

/** Users of the browser tests' realms (name, national id and idp_altsub shown on the login page). */
export const BROWSER_USERS = {
  astrid: {
    acr: 'urn:idp:bid;LOA=4',
    amr: 'BID',
    claims: {
      name: 'Astrid Berg',
      given_name: 'Astrid',
      family_name: 'Berg',
      idp_altsub: '9578-6000-4-135790',
      nnin_altsub: '24068812345',
    },
  },
  jonas: {
    acr: 'urn:idp:minid;LOA=3',
    amr: 'MinID',
    claims: {
      name: 'Jonas Lie',
      given_name: 'Jonas',
      family_name: 'Lie',
      idp_altsub: '9578-6000-4-975310',
      nnin_altsub: '05119054321',
    },
  },
};

/** Every URL the page's main frame commits to (a 302 hop commits nothing; a shown page does). */
export function trackNavigations(page: Page): string[] {
  const committed: string[] = [];
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame()) committed.push(frame.url());
  });
  return committed;
}
