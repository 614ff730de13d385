// keycloak-js 26 with its default init options over https across two sites, in headless Chromium: the app on
// https://127.0.0.1:PORT, mock-idp (--tls) on https://localhost:PORT. The session reaches the app's hidden
// iframes (silent check-sso, the session iframe) only because the cookies are SameSite=None; Secure.
// Chromium is told to accept the servers' certificates with Playwright's ignoreHTTPSErrors (a context option,
// not a launch flag): its trust store is NSS's, and the test machine has no tool to add a CA to it. Node's
// own clients trust the mock CA properly in test/http/tls.test.ts. Each test runs a browser with a regular
// profile of its own: a new context is an incognito one, where Chromium blocks third-party cookies.
import type { BrowserContext, Page } from 'playwright-core';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/files.js';
import { tlsMaterial } from '../../src/keys/tls.js';
import { idpAt, useIdp } from '../helpers/server.js';
import {
  appUrl,
  BROWSER_USERS,
  initResult,
  keycloakState,
  signInAs,
  skipBrowser,
  trackNavigations,
  useAppServer,
  launchChromiumProfile,
} from './harness.js';

const REALM = 'harbor';
const CLIENT = 'spa';

describe.skipIf(skipBrowser)('keycloak-js over https, the app and mock-idp on two sites', () => {
  const profiles = tempDir();
  afterAll(profiles.remove);
  let profileCount = 0;
  // The app's own certificate (for 127.0.0.1), from a mock CA of its own.
  const app = useAppServer(async () => {
    const { cert, key } = await tlsMaterial(true, undefined);
    return { cert, key };
  });
  const idp = useIdp(() => ({
    tls: true,
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
  /** mock-idp as the browser reaches it: on localhost, another site than the app's 127.0.0.1. */
  const site = (): ReturnType<typeof idpAt> => idpAt(idp.issuer.replace('://127.0.0.1:', '://localhost:'));

  const url = (onLoad: 'login-required' | 'check-sso', silent = false): string =>
    appUrl(app, site(), { mode: 'keycloak', clientId: CLIENT, onLoad, silent });

  /** A new browser with a fresh regular profile: no cookies, third-party cookies allowed. */
  const freshContext = (): Promise<BrowserContext> =>
    launchChromiumProfile(join(profiles.dir, `profile-${++profileCount}`), { ignoreHTTPSErrors: true });

  async function signIn(context: BrowserContext): Promise<Page> {
    const page = await context.newPage();
    await page.goto(url('login-required'));
    await signInAs(page, site(), 'astrid');
    expect(await initResult(page)).toEqual({ authenticated: true });
    return page;
  }

  it('signs in; the session cookies are SameSite=None; Secure, the tokens name the https issuer', async () => {
    const context = await freshContext();
    try {
      expect(app.origin).toMatch(/^https:\/\/127\.0\.0\.1:/);
      const page = await signIn(context);
      const kc = await keycloakState(page);
      expect(kc.tokenParsed).toMatchObject({
        iss: site().issuer,
        preferred_username: 'astrid',
        azp: CLIENT,
      });
      expect(site().issuer).toMatch(/^https:\/\/localhost:\d+\/realms\/harbor$/);
      const cookies = await context.cookies(`${site().issuer}/`);
      const byName = Object.fromEntries(cookies.map((c) => [c.name, c]));
      expect(byName['KEYCLOAK_IDENTITY']).toMatchObject({
        path: `/realms/${REALM}/`,
        httpOnly: true,
        secure: true,
        sameSite: 'None',
      });
      expect(byName['KEYCLOAK_SESSION']).toMatchObject({
        path: `/realms/${REALM}/`,
        httpOnly: false,
        secure: true,
        sameSite: 'None',
      });
    } finally {
      await context.close();
    }
  });

  it('silent check-sso from the other site finds the session in its hidden iframe; the session iframe answers unchanged', async () => {
    const context = await freshContext();
    try {
      const sid = (await keycloakState(await signIn(context))).sessionId;
      const page = await context.newPage();
      const committed = trackNavigations(page);
      // The silent check's authorize request, made from the hidden iframe on the app's page.
      const silentAnswers: string[] = [];
      context.on('response', (r) => {
        const at = new URL(r.url());
        if (r.url().startsWith(site().endpoints.auth) && at.searchParams.get('prompt') === 'none')
          silentAnswers.push(`${at.searchParams.get('redirect_uri')} → ${r.headers()['location'] ?? ''}`);
      });
      await page.goto(url('check-sso', true));
      expect(await initResult(page)).toEqual({ authenticated: true });
      // No top-level trip to mock-idp.
      expect(committed.filter((u) => u.startsWith(site().issuer))).toEqual([]);
      const kc = await keycloakState(page);
      expect(kc.sessionId).toBe(sid);
      // It carried the session cookies across sites: a code came back, not login_required.
      expect(silentAnswers).toEqual([
        expect.stringMatching(
          /\/silent-check-sso\.html → https:\/\/127\.0\.0\.1:\d+\/silent-check-sso\.html#.*code=/,
        ),
      ]);
      await page.waitForFunction(
        () => (globalThis as unknown as { kcIframe: string[] }).kcIframe.at(-1) === 'unchanged',
        undefined,
        { timeout: 12_000 },
      );
    } finally {
      await context.close();
    }
  }, 60_000);
});
