// express-openid-connect 3.4.0 in front of mock-idp, driven by headless Chromium: login on the login page,
// req.oidc.user, refresh, and the default /logout with RP-initiated logout back to the bare baseURL.
import express, { type ErrorRequestHandler } from 'express';
import { auth } from 'express-openid-connect';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { verifyToken } from '../helpers/jwt.js';
import { useIdp, useLocalServer } from '../helpers/server.js';
import {
  BROWSER_USERS,
  escapeHtml,
  listSessions,
  signInAs,
  skipBrowser,
  useChromium,
  withPage,
} from './harness.js';

const CLIENT = 'quay-web';
const SECRET = 'quay-web-secret';

/** What the app's pages show: a JSON document in `<pre id="state">` (or `<pre id="error">`). */
type Shown = Record<string, unknown>;

const show = (id: 'state' | 'error', value: unknown): string =>
  `<!doctype html><title>app</title><pre id="${id}">${escapeHtml(JSON.stringify(value))}</pre>`;

async function shown(page: Page): Promise<Shown> {
  const error = page.locator('#error');
  if ((await error.count()) > 0) throw new Error(`the app shows an error: ${await error.textContent()}`);
  return JSON.parse((await page.locator('#state').textContent()) ?? 'null') as Shown;
}

describe.skipIf(skipBrowser)('express-openid-connect 3.4.0 against mock-idp in Chromium', () => {
  const browser = useChromium();
  // The app's port must be known for its registration and its baseURL, so listen first, route later.
  let app: express.Express;
  const server = useLocalServer((req, res) => app(req, res));
  let baseURL: string;
  beforeAll(() => {
    baseURL = server.url;
  });
  const idp = useIdp(() => ({
    fixtures: {
      realm: 'quay',
      clients: {
        [CLIENT]: {
          secret: SECRET,
          redirectUris: [`${baseURL}/*`],
          grants: ['authorization_code', 'refresh_token'],
        },
      },
      users: BROWSER_USERS,
    },
  }));

  beforeAll(() => {
    app = express();
    app.use(
      auth({
        issuerBaseURL: idp.issuer,
        baseURL,
        clientID: CLIENT,
        clientSecret: SECRET,
        secret: 'a-long-enough-cookie-secret-for-express-openid-connect',
        authRequired: false,
        // RP-initiated logout at the provider; without it /logout only clears the app's own cookie.
        idpLogout: true,
        authorizationParams: { response_type: 'code', scope: 'openid profile offline_access' },
      }),
    );
    app.get('/', (req, res) => {
      res.type('html').send(
        show('state', {
          authenticated: req.oidc.isAuthenticated(),
          user: req.oidc.user ?? null,
          accessToken: req.oidc.accessToken?.access_token ?? null,
        }),
      );
    });
    app.get('/refresh', async (req, res, next) => {
      try {
        const before = req.oidc.accessToken;
        if (before === undefined) throw new Error('no access token in the session');
        const after = await before.refresh();
        res.type('html').send(show('state', { before: before.access_token, after: after.access_token }));
      } catch (e) {
        next(e);
      }
    });
    const onError: ErrorRequestHandler = (err: unknown, _req, res, _next) => {
      const e = err as { message?: string; error?: string; error_description?: string; status?: number };
      res
        .status(e.status ?? 500)
        .type('html')
        .send(show('error', { message: e.message, error: e.error, error_description: e.error_description }));
    };
    app.use(onError);
  });

  it('login, req.oidc.user, refresh, and the default /logout back to the bare baseURL', async () => {
    await withPage(browser, {}, async (page) => {
      // /login → mock-idp's login page → pick a user → /callback → back on the app.
      await page.goto(`${baseURL}/login`);
      await signInAs(page, idp, 'astrid');
      await page.waitForURL(`${baseURL}/`);
      const home = await shown(page);
      expect(home).toMatchObject({
        authenticated: true,
        user: {
          preferred_username: 'astrid',
          name: BROWSER_USERS.astrid.claims.name,
          idp_altsub: BROWSER_USERS.astrid.claims.idp_altsub,
        },
      });
      const user = home['user'] as Record<string, unknown>;
      const sid = user['sid'];
      expect(sid).toEqual(expect.any(String));
      expect((await listSessions(idp)).find((s) => s.id === sid)).toMatchObject({ username: 'astrid' });

      // req.oidc.accessToken.refresh(): a new access token of the same session.
      await page.goto(`${baseURL}/refresh`);
      const { before, after } = (await shown(page)) as { before: string; after: string };
      expect(after).not.toBe(before);
      const refreshed = await verifyToken(idp, after);
      expect(refreshed.claims).toMatchObject({ preferred_username: 'astrid', sid });

      // Default /logout: the provider's end_session_endpoint with post_logout_redirect_uri = baseURL, which
      // the registration http://127.0.0.1:PORT/* accepts as Keycloak does; the browser ends on the app.
      await page.goto(`${baseURL}/logout`);
      await page.waitForURL(`${baseURL}/`, { timeout: 10_000 }).catch(() => undefined);
      expect(page.url(), (await page.locator('body').innerText()).slice(0, 300)).toBe(`${baseURL}/`);
      expect(await shown(page)).toMatchObject({ authenticated: false, user: null });
      expect((await listSessions(idp)).map((s) => s.id)).not.toContain(sid);

      // The provider's browser session is gone too: /login shows the login page again.
      await page.goto(`${baseURL}/login`);
      await signInAs(page, idp, 'jonas');
      await page.waitForURL(`${baseURL}/`);
      expect(await shown(page)).toMatchObject({ user: { preferred_username: 'jonas' } });
    });
  });
});
