// Browser sessions beyond keycloak-js's defaults, in Chromium: prompt=none/login, max_age, sso: false, tampered
// cookies, RP-initiated logout redirects, and front- and back-channel logout to every client of the session.
import type { BrowserContext, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { authorizeUrl, exchangeCode } from '../helpers/flows.js';
import { basic } from '../helpers/http.js';
import { verifyToken } from '../helpers/jwt.js';
import { useIdp } from '../helpers/server.js';
import {
  appUrl,
  BROWSER_USERS,
  endSession,
  initResult,
  keycloakState,
  listSessions,
  reachLoginPage,
  signInAs,
  skipBrowser,
  startLogin,
  startLogout,
  trackNavigations,
  userButton,
  useAppServer,
  useChromium,
  type AppPageOptions,
  type Hook,
} from './harness.js';

const SPA = 'spa';
const BACKCHANNEL_EVENT = 'http://schemas.openid.net/event/backchannel-logout';
const SECRETS = { other: 'other-secret', broken: 'broken-secret' } as const;

describe.skipIf(skipBrowser)('browser sessions in Chromium', () => {
  const browser = useChromium();
  const app = useAppServer();
  /** The clients of both servers, once the app listens (their URIs name its port). */
  const clients = () => {
    const hook = (name: string): string => `${app.origin}/hook/${name}`;
    return {
      [SPA]: {
        authMethods: ['none' as const],
        redirectUris: [`${app.origin}/*`],
        grants: ['authorization_code' as const, 'refresh_token' as const],
        frontchannelLogoutUri: hook('fc-spa'),
        backchannelLogoutUri: hook('bc-spa'),
      },
      // A second app of the same browser session: its back-channel receiver never answers.
      other: {
        secret: SECRETS.other,
        redirectUris: [`${app.origin}/cb`],
        frontchannelLogoutUri: hook('fc-other'),
        backchannelLogoutUri: hook('hang'),
      },
      // A third one whose back-channel receiver answers 500.
      broken: {
        secret: SECRETS.broken,
        redirectUris: [`${app.origin}/cb`],
        backchannelLogoutUri: hook('fail'),
      },
    };
  };
  const idp = useIdp(() => ({ fixtures: { realm: 'dock', clients: clients(), users: BROWSER_USERS } }));
  const noSso = useIdp(() => ({
    fixtures: { realm: 'dock', sso: false, clients: clients(), users: BROWSER_USERS },
  }));

  const url = (o: Omit<AppPageOptions, 'mode' | 'clientId'>, server = idp): string =>
    appUrl(app, server, { mode: 'keycloak', clientId: SPA, ...o });

  async function withContext(run: (context: BrowserContext) => Promise<void>): Promise<void> {
    const context = await browser.newContext();
    try {
      await run(context);
    } finally {
      await context.close();
    }
  }

  async function signIn(context: BrowserContext, server = idp): Promise<Page> {
    const page = await context.newPage();
    await page.goto(url({ onLoad: 'login-required' }, server));
    await signInAs(page, server, 'astrid');
    expect(await initResult(page)).toEqual({ authenticated: true });
    return page;
  }

  /** The parameters a redirect brought to the app's /cb (query or fragment). */
  async function landedParams(page: Page): Promise<URLSearchParams> {
    await page.locator('#landed').waitFor();
    const landed = new URL(page.url());
    expect(`${landed.origin}${landed.pathname}`).toBe(`${app.origin}/cb`);
    return landed.hash.length > 1 ? new URLSearchParams(landed.hash.slice(1)) : landed.searchParams;
  }

  /** Waits (up to 5 s) for hooks matching `pick`; back-channel calls do not block the logout answer. */
  async function hooksOf(pick: (h: Hook) => boolean, count = 1): Promise<Hook[]> {
    const deadline = Date.now() + 5_000;
    while (app.hooks.filter(pick).length < count && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100));
    return app.hooks.filter(pick);
  }

  describe('prompt=none straight from the browser (response mode as requested, never a page)', () => {
    it.each([
      { prompt: 'none', responseMode: 'query', error: 'login_required' },
      { prompt: 'none', responseMode: 'fragment', error: 'login_required' },
      { prompt: 'bogus', responseMode: 'query', error: 'invalid_request' },
    ])(
      'no session, prompt=$prompt, $responseMode → error=$error with the state',
      async ({ prompt, responseMode, error }) =>
        withContext(async (context) => {
          const page = await context.newPage();
          const committed = trackNavigations(page);
          await page.goto(
            authorizeUrl(idp, {
              client: SPA,
              redirectUri: `${app.origin}/cb`,
              responseMode,
              state: `s-${prompt}`,
              extra: { prompt },
            }),
          );
          const params = await landedParams(page);
          expect(params.get('error')).toBe(error);
          expect(params.get('state')).toBe(`s-${prompt}`);
          expect(params.get('code')).toBeNull();
          expect(committed.filter((u) => u.startsWith(idp.issuer))).toEqual([]);
        }),
    );

    it('with a session: prompt=none answers a code at once, with the session id as session_state', async () =>
      withContext(async (context) => {
        const signedIn = await signIn(context);
        const { sessionId } = await keycloakState(signedIn);
        await signedIn.close();
        const page = await context.newPage();
        const committed = trackNavigations(page);
        await page.goto(
          authorizeUrl(idp, {
            client: SPA,
            redirectUri: `${app.origin}/cb`,
            state: 's-none',
            extra: { prompt: 'none' },
          }),
        );
        const params = await landedParams(page);
        expect(params.get('code')).toEqual(expect.any(String));
        expect(params.get('state')).toBe('s-none');
        expect(sessionId).toEqual(expect.any(String));
        expect(params.get('session_state')).toBe(sessionId);
        expect(committed.filter((u) => u.startsWith(idp.issuer))).toEqual([]);
      }));
  });

  it('prompt=login shows the login page despite the session; auth_time moves to the new login', async () =>
    withContext(async (context) => {
      const page = await signIn(context);
      const before = (await keycloakState(page)).tokenParsed?.['auth_time'] as number;
      await page.waitForTimeout(1_100);
      await startLogin(page, { prompt: 'login' });
      await reachLoginPage(page, idp);
      await userButton(page, 'astrid').click();
      expect(await initResult(page)).toEqual({ authenticated: true });
      const after = (await keycloakState(page)).tokenParsed?.['auth_time'] as number;
      expect(after).toBeGreaterThan(before);
    }));

  it('max_age: an older session shows the login page; a young enough one signs in silently', async () =>
    withContext(async (context) => {
      const page = await signIn(context);
      await page.waitForTimeout(2_100);
      await startLogin(page, { maxAge: 1 });
      await reachLoginPage(page, idp);
      await userButton(page, 'astrid').click();
      expect(await initResult(page)).toEqual({ authenticated: true });
      const relogin = (await keycloakState(page)).tokenParsed?.['auth_time'];

      const committed = trackNavigations(page);
      await startLogin(page, { maxAge: 3600 });
      expect(await initResult(page)).toEqual({ authenticated: true });
      expect(committed.filter((u) => u.startsWith(idp.issuer))).toEqual([]);
      expect((await keycloakState(page)).tokenParsed?.['auth_time']).toBe(relogin);
    }));

  it('sso: false: a second load shows the login page again; prompt=none answers login_required', async () =>
    withContext(async (context) => {
      (await signIn(context, noSso)).close();
      const page = await context.newPage();
      await page.goto(url({ onLoad: 'login-required' }, noSso));
      await reachLoginPage(page, noSso);

      await page.goto(
        authorizeUrl(noSso, {
          client: SPA,
          redirectUri: `${app.origin}/cb`,
          state: 's-nosso',
          extra: { prompt: 'none' },
        }),
      );
      expect((await landedParams(page)).get('error')).toBe('login_required');
    }));

  it('unknown or tampered session cookies count as no session (login page, not an error)', async () =>
    withContext(async (context) => {
      const cookie = { url: `${idp.issuer}/`, sameSite: 'Lax' as const };
      await context.addCookies([
        { ...cookie, name: 'KEYCLOAK_IDENTITY', value: 'eyJhbGciOiJIUzI1NiJ9.eyJzaWQiOiJ4In0.tampered' },
        { ...cookie, name: 'KEYCLOAK_SESSION', value: 'dock/nobody/no-such-session' },
      ]);
      const anonymous = await context.newPage();
      await anonymous.goto(url({ onLoad: 'check-sso', silent: true }));
      expect(await initResult(anonymous)).toEqual({ authenticated: false });

      const page = await context.newPage();
      await page.goto(url({ onLoad: 'login-required' }));
      await reachLoginPage(page, idp);
      await userButton(page, 'jonas').click();
      expect(await initResult(page)).toEqual({ authenticated: true });
      expect((await keycloakState(page)).tokenParsed).toMatchObject({ preferred_username: 'jonas' });
    }));

  describe('RP-initiated logout from the browser', () => {
    /** Signs in, then answers the logout URL for that session's ID token, and the session id. */
    async function logoutUrl(
      context: BrowserContext,
      params: Record<string, string>,
    ): Promise<{ href: string; sid: string }> {
      const page = await signIn(context);
      const { idToken, sessionId } = await keycloakState(page);
      await page.close();
      const query = new URLSearchParams({ id_token_hint: idToken as string, ...params });
      return { href: `${idp.endpoints.logout}?${query}`, sid: sessionId as string };
    }

    it('post_logout_redirect_uri under a registered /* with state: the state comes back', async () =>
      withContext(async (context) => {
        const page = await context.newPage();
        const { href, sid } = await logoutUrl(context, {
          post_logout_redirect_uri: `${app.origin}/cb`,
          state: 'bye-1',
        });
        await page.goto(href);
        const params = await landedParams(page);
        expect(params.get('state')).toBe('bye-1');
        expect((await listSessions(idp)).map((s) => s.id)).not.toContain(sid);
      }));

    it('the bare origin of a registered http://host:port/* is accepted', async () =>
      withContext(async (context) => {
        const page = await context.newPage();
        const { href, sid } = await logoutUrl(context, { post_logout_redirect_uri: app.origin });
        await page.goto(href);
        await page.waitForURL(`${app.origin}/`, { timeout: 10_000 }).catch(() => undefined);
        expect(page.url()).toBe(`${app.origin}/`);
        expect((await listSessions(idp)).map((s) => s.id)).not.toContain(sid);
      }));

    it('an unregistered post_logout_redirect_uri is not followed', async () =>
      withContext(async (context) => {
        const page = await context.newPage();
        const { href } = await logoutUrl(context, {
          post_logout_redirect_uri: 'http://127.0.0.1:1/elsewhere',
        });
        await page.goto(href);
        expect(page.url().startsWith(idp.issuer)).toBe(true);
      }));
  });

  it(
    'logout reaches every client of the session: front-channel iframes (iss, sid) and back-channel logout tokens; a hanging or failing receiver does not block it',
    async () =>
      withContext(async (context) => {
        const page = await signIn(context);
        const { sessionId: sid, tokenParsed } = await keycloakState(page);

        // The same browser session signs in to the two other apps without a page.
        const side = await context.newPage();
        for (const client of ['other', 'broken'] as const) {
          await side.goto(authorizeUrl(idp, { client, redirectUri: `${app.origin}/cb`, state: client }));
          const code = (await landedParams(side)).get('code');
          expect(code, `${client} got no code`).toEqual(expect.any(String));
          const tokens = await exchangeCode(idp, code as string, {
            redirectUri: `${app.origin}/cb`,
            authorization: basic(client, SECRETS[client]),
          });
          expect(tokens.status, tokens.text).toBe(200);
          expect((await verifyToken(idp, tokens.json.id_token as string, client)).claims['sid']).toBe(sid);
        }
        await side.close();
        expect((await listSessions(idp)).find((s) => s.id === sid)?.clients).toEqual(
          expect.arrayContaining([SPA, 'other', 'broken']),
        );

        app.hooks.length = 0;
        const back = url({ onLoad: 'check-sso', silent: true });
        await startLogout(page, back);
        await page.waitForURL(back);
        expect(await initResult(page)).toEqual({ authenticated: false });
        expect((await listSessions(idp)).map((s) => s.id)).not.toContain(sid);

        for (const path of ['/hook/fc-spa', '/hook/fc-other']) {
          const [call] = await hooksOf((h) => h.path === path);
          expect(call, `front-channel ${path}`).toMatchObject({
            method: 'GET',
            query: { iss: idp.issuer, sid },
          });
        }

        const [bc] = await hooksOf((h) => h.path === '/hook/bc-spa');
        expect(bc?.method).toBe('POST');
        const logoutToken = await verifyToken(idp, bc?.body.get('logout_token') ?? '', SPA);
        expect(logoutToken.claims).toMatchObject({
          iss: idp.issuer,
          sub: tokenParsed?.['sub'],
          sid,
          events: { [BACKCHANNEL_EVENT]: {} },
        });
        expect(logoutToken.claims['nonce']).toBeUndefined();
        expect(logoutToken.claims['jti']).toEqual(expect.any(String));
        expect((await hooksOf((h) => h.path === '/hook/hang')).length).toBeGreaterThanOrEqual(1);
        expect((await hooksOf((h) => h.path === '/hook/fail')).length).toBeGreaterThanOrEqual(1);
      }),
    60_000,
  );

  it('DELETE /mock/sessions/{id} sends the back-channel logout token too', async () =>
    withContext(async (context) => {
      const page = await signIn(context);
      const { sessionId: sid } = await keycloakState(page);
      app.hooks.length = 0;
      await endSession(idp, sid as string);
      const [bc] = await hooksOf((h) => h.path === '/hook/bc-spa');
      const logoutToken = await verifyToken(idp, bc?.body.get('logout_token') ?? '', SPA);
      expect(logoutToken.claims).toMatchObject({ sid, events: { [BACKCHANNEL_EVENT]: {} } });
    }));
});
