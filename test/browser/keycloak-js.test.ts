// keycloak-js 26 with its default init options, in headless Chromium against mock-idp, in both of its
// configuration modes: sign-in, single sign-on, silent check, refresh, userinfo, logout and the session iframe.
import type { BrowserContext, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { verifyToken } from '../helpers/jwt.js';
import { useIdp } from '../helpers/server.js';
import {
  appUrl,
  BROWSER_USERS,
  endSession,
  initResult,
  keycloakState,
  listSessions,
  loadUserInfo,
  onLoginPage,
  reachLoginPage,
  signInAs,
  skipBrowser,
  startLogout,
  trackNavigations,
  updateToken,
  useAppServer,
  useChromium,
  userButton,
  type AppPageOptions,
  type KeycloakMode,
} from './harness.js';

const REALM = 'harbor';
const CLIENT = 'spa';
const MODES: KeycloakMode[] = ['keycloak', 'oidc'];

describe.skipIf(skipBrowser).each(MODES)('keycloak-js 26.2.4, %s mode, default init options', (mode) => {
  const browser = useChromium();
  const app = useAppServer();
  // Written after the app listens, so the redirect URI names its real port. Real clock: keycloak-js
  // compares token times with the browser's clock.
  const idp = useIdp(() => ({
    fixtures: {
      realm: REALM,
      clients: {
        [CLIENT]: {
          authMethods: ['none'],
          redirectUris: [`${app.origin}/*`],
          grants: ['authorization_code', 'refresh_token'],
        },
      },
      users: BROWSER_USERS,
    },
  }));

  const url = (o: Omit<AppPageOptions, 'mode' | 'clientId'>): string =>
    appUrl(app, idp, { mode, clientId: CLIENT, ...o });

  /** A fresh browser profile: no cookies, no local storage. */
  const freshContext = (): Promise<BrowserContext> => browser.newContext();

  /** Opens the login-required app in `context`, picks `username` on the login page, expects authenticated. */
  async function signIn(context: BrowserContext, username = 'astrid'): Promise<Page> {
    const page = await context.newPage();
    await page.goto(url({ onLoad: 'login-required' }));
    await signInAs(page, idp, username);
    expect(await initResult(page)).toEqual({ authenticated: true });
    return page;
  }

  it('login-required: the first load shows the login page; picking a user lands back authenticated', async () => {
    const context = await freshContext();
    try {
      const page = await context.newPage();
      await page.goto(url({ onLoad: 'login-required' }));
      await reachLoginPage(page, idp);
      expect(onLoginPage(page, idp)).toBe(true);
      await userButton(page, 'astrid').click();
      expect(await initResult(page)).toEqual({ authenticated: true });
      expect(new URL(page.url()).origin).toBe(app.origin);

      const kc = await keycloakState(page);
      expect(kc.authenticated).toBe(true);
      expect(kc.tokenParsed).toMatchObject({ preferred_username: 'astrid', azp: CLIENT });
      expect(kc.sessionId).toEqual(expect.any(String));
      expect(kc.sessionId).toBe(kc.tokenParsed?.['sid']);
      expect(kc.events).toEqual(expect.arrayContaining(['onAuthSuccess', 'onReady']));
      expect(kc.events).not.toContain('onAuthError');

      const access = await verifyToken(idp, kc.token as string);
      expect(access.claims).toMatchObject({
        preferred_username: 'astrid',
        sid: kc.sessionId,
        session_state: kc.sessionId,
      });
      const id = await verifyToken(idp, kc.idToken as string, CLIENT);
      expect(id.claims).toMatchObject({
        sid: kc.sessionId,
        session_state: kc.sessionId,
        nonce: expect.any(String),
      });

      const sessions = await listSessions(idp);
      expect(sessions.find((s) => s.id === kc.sessionId)).toMatchObject({
        username: 'astrid',
        browser: true,
      });

      const cookies = await context.cookies(`${idp.issuer}/`);
      const identity = cookies.find((c) => c.name === 'KEYCLOAK_IDENTITY');
      const session = cookies.find((c) => c.name === 'KEYCLOAK_SESSION');
      expect(identity).toMatchObject({ path: `/realms/${REALM}/`, httpOnly: true, sameSite: 'Lax' });
      expect(session).toMatchObject({ path: `/realms/${REALM}/`, httpOnly: false, sameSite: 'Lax' });
    } finally {
      await context.close();
    }
  });

  it('a second login-required load in the same browser signs in without the login page (SSO)', async () => {
    const context = await freshContext();
    try {
      const first = await signIn(context);
      const { sessionId: firstSid, tokenParsed: firstToken } = await keycloakState(first);
      // Let a second pass so a re-login would show in auth_time (whole seconds).
      await first.waitForTimeout(1_100);
      await first.close();

      const page = await context.newPage();
      const committed = trackNavigations(page);
      await page.goto(url({ onLoad: 'login-required' }));
      expect(await initResult(page)).toEqual({ authenticated: true });
      expect(committed.filter((u) => u.startsWith(idp.issuer))).toEqual([]);
      const kc = await keycloakState(page);
      expect(kc.tokenParsed).toMatchObject({ preferred_username: 'astrid' });
      expect(kc.sessionId).toBe(firstSid);
      // auth_time stays the time of the real login.
      expect(kc.tokenParsed?.['auth_time']).toBe(firstToken?.['auth_time']);
    } finally {
      await context.close();
    }
  });

  it.each([
    { silent: true, how: 'silentCheckSsoRedirectUri (hidden iframe)' },
    { silent: false, how: 'no silentCheckSsoRedirectUri (top-level prompt=none)' },
  ])(
    'check-sso with $how: anonymous in a fresh browser, authenticated after a sign-in, no page shown',
    async ({ silent }) => {
      const context = await freshContext();
      try {
        const anonymous = await context.newPage();
        const seen = trackNavigations(anonymous);
        await anonymous.goto(url({ onLoad: 'check-sso', silent }));
        expect(await initResult(anonymous)).toEqual({ authenticated: false });
        expect(seen.filter((u) => u.startsWith(idp.issuer))).toEqual([]);
        expect((await keycloakState(anonymous)).events).not.toContain('onAuthError');
        await anonymous.close();

        const signedIn = await signIn(context, 'jonas');
        const sid = (await keycloakState(signedIn)).sessionId;
        await signedIn.close();

        const page = await context.newPage();
        const committed = trackNavigations(page);
        await page.goto(url({ onLoad: 'check-sso', silent }));
        expect(await initResult(page)).toEqual({ authenticated: true });
        expect(committed.filter((u) => u.startsWith(idp.issuer))).toEqual([]);
        const kc = await keycloakState(page);
        expect(kc.tokenParsed).toMatchObject({ preferred_username: 'jonas' });
        expect(kc.sessionId).toBe(sid);
      } finally {
        await context.close();
      }
    },
  );

  it('updateToken(-1) refreshes to a new token in the same session; loadUserInfo returns the user', async () => {
    const context = await freshContext();
    try {
      const page = await signIn(context);
      const before = await keycloakState(page);

      await expect(updateToken(page, -1)).resolves.toEqual({ value: true });
      const after = await keycloakState(page);
      expect(after.token).not.toBe(before.token);
      expect(after.refreshToken).toEqual(expect.any(String));
      expect(after.events).toContain('onAuthRefreshSuccess');
      expect(after.events).not.toContain('onAuthRefreshError');
      expect(after.sessionId).toBe(before.sessionId);
      const access = await verifyToken(idp, after.token as string);
      expect(access.claims).toMatchObject({ preferred_username: 'astrid', sid: before.sessionId });

      const info = await loadUserInfo(page);
      expect(info.error).toBeUndefined();
      expect(info.value).toMatchObject({
        sub: before.tokenParsed?.['sub'],
        preferred_username: 'astrid',
        idp_altsub: BROWSER_USERS.astrid.claims.idp_altsub,
      });
    } finally {
      await context.close();
    }
  });

  it('logout() ends the session at mock-idp, returns to the app, and a later check-sso is anonymous', async () => {
    const context = await freshContext();
    try {
      const page = await signIn(context);
      const sid = (await keycloakState(page)).sessionId;
      expect((await listSessions(idp)).map((s) => s.id)).toContain(sid);

      const back = url({ onLoad: 'check-sso', silent: true });
      await startLogout(page, back);
      await page.waitForURL(back);
      expect(await initResult(page)).toEqual({ authenticated: false });

      expect((await listSessions(idp)).map((s) => s.id)).not.toContain(sid);
      const names = (await context.cookies(`${idp.issuer}/`)).map((c) => c.name);
      expect(names).not.toContain('KEYCLOAK_IDENTITY');

      const again = await context.newPage();
      const committed = trackNavigations(again);
      await again.goto(url({ onLoad: 'check-sso', silent: true }));
      expect(await initResult(again)).toEqual({ authenticated: false });
      expect(committed.filter((u) => u.startsWith(idp.issuer))).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('session iframe: a session ended elsewhere (DELETE /mock/sessions/{id}) reports changed and fires onAuthLogout', async () => {
    const context = await freshContext();
    try {
      (await signIn(context)).close();
      const page = await context.newPage();
      await page.goto(url({ onLoad: 'check-sso', silent: true }));
      expect(await initResult(page)).toEqual({ authenticated: true });
      const { sessionId } = await keycloakState(page);

      // With the session alive, the periodic check (every 5 s by default) answers unchanged.
      await page.waitForFunction(
        () => (globalThis as unknown as { kcIframe: string[] }).kcIframe.at(-1) === 'unchanged',
        undefined,
        { timeout: 12_000 },
      );
      expect((await keycloakState(page)).events).not.toContain('onAuthLogout');

      await endSession(idp, sessionId as string);
      await page.waitForFunction(
        () => (globalThis as unknown as { kcEvents: string[] }).kcEvents.includes('onAuthLogout'),
        undefined,
        { timeout: 12_000 },
      );
      const kc = await keycloakState(page);
      expect(kc.iframe.at(-1)).toBe('changed');
      expect(kc.authenticated).toBe(false);
      expect(kc.token).toBeUndefined();
    } finally {
      await context.close();
    }
  }, 60_000);

  it('init settles without a timeout: the 3p-cookie pages and the session iframe answer', async () => {
    const context = await freshContext();
    try {
      const answers = new Map<string, number>();
      context.on('response', (r) => {
        const path = new URL(r.url()).pathname;
        if (r.url().startsWith(idp.issuer)) answers.set(path.slice(`/realms/${REALM}`.length), r.status());
      });
      const page = await context.newPage();
      await page.goto(url({ onLoad: 'check-sso' }));
      // keycloak-js gives each iframe 10 s (messageReceiveTimeout) before init rejects.
      expect(await initResult(page)).toEqual({ authenticated: false });
      const kc = await keycloakState(page);
      expect(kc.iframe).toEqual(['unchanged']);

      const oidc = '/protocol/openid-connect';
      expect(answers.get(`${oidc}/login-status-iframe.html`)).toBe(200);
      if (mode === 'keycloak') {
        // Only the url+realm mode runs the third-party cookie check; the generic OIDC mode has no such page.
        // step1 may answer on its own when the Storage Access API says access is granted; step2, when
        // step1 sends the browser on to it, must answer too.
        expect(answers.get(`${oidc}/3p-cookies/step1.html`)).toBe(200);
        expect(answers.get(`${oidc}/3p-cookies/step2.html`) ?? 200).toBe(200);
      } else {
        expect(answers.get('/.well-known/openid-configuration')).toBe(200);
      }
    } finally {
      await context.close();
    }
  });
});

describe('login-status-iframe.html/init: the origin check', () => {
  const app = useAppServer();
  const idp = useIdp(() => ({
    fixtures: {
      realm: REALM,
      clients: { [CLIENT]: { authMethods: ['none'], redirectUris: [`${app.origin}/*`] } },
      users: BROWSER_USERS,
    },
  }));

  it.each([
    { name: "the client's web origin", origin: () => app.origin, client: CLIENT, status: 204 },
    { name: 'another port', origin: () => 'http://127.0.0.1:1', client: CLIENT, status: 403 },
    { name: 'another host', origin: () => 'http://evil.test', client: CLIENT, status: 403 },
    { name: 'an unknown client', origin: () => app.origin, client: 'nobody', status: 403 },
  ])('$name → $status', async ({ origin, client, status }) => {
    const q = new URLSearchParams({ client_id: client, origin: origin() });
    const response = await fetch(`${idp.endpoints.checkSessionInit}?${q}`, {
      redirect: 'manual',
    });
    expect(response.status).toBe(status);
  });
});
