// openid-client v6 browser-less: the browser's part is fetch with its cookies carried by hand. Sign in,
// sign in again silently (prompt=none), RP-initiated logout through buildEndSessionUrl, then login_required.
import * as client from 'openid-client';
import { beforeAll, describe, expect, it } from 'vitest';
import { SECRETS } from '../helpers/flows.js';
import { codeFlow, type CodeFlowTokens } from '../helpers/openid-client.js';
import { useIdp } from '../helpers/server.js';

const REDIRECT = 'http://app.fjord.test/cb';
const insecure = { execute: [client.allowInsecureRequests] };

/** Cookies of one browser for the mock's origin. */
class CookieJar {
  readonly #cookies = new Map<string, string>();

  async fetch(url: URL): Promise<Response> {
    const cookie = [...this.#cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const response = await fetch(url, { redirect: 'manual', headers: cookie !== '' ? { cookie } : {} });
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      if (/max-age=0/i.test(line)) this.#cookies.delete(pair.slice(0, eq));
      else this.#cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    return response;
  }

  get names(): string[] {
    return [...this.#cookies.keys()].sort();
  }
}

const idp = useIdp();
let config: client.Configuration;
beforeAll(async () => {
  config = await client.discovery(
    new URL(idp.issuer),
    'teller-web',
    SECRETS['teller-web'],
    undefined,
    insecure,
  );
});

/** One code flow as openid-client drives it; `browser` follows the authorize URL with its cookies. */
const signIn = (browser: CookieJar, extra: Record<string, string>): Promise<CodeFlowTokens> =>
  codeFlow(
    config,
    { redirect_uri: REDIRECT, scope: 'openid profile', ...extra },
    { get: (url) => browser.fetch(url) },
  );

describe('openid-client, browser-less, with the browser session cookies carried by hand', () => {
  const browser = new CookieJar();
  let first: CodeFlowTokens;

  it('signs in with login_hint; the browser now holds the session cookies', async () => {
    first = await signIn(browser, { login_hint: 'ingrid' });
    expect(first.claims()?.preferred_username).toBe('ingrid');
    expect(browser.names).toEqual(['KEYCLOAK_IDENTITY', 'KEYCLOAK_SESSION']);
  });

  it('signs in again silently (prompt=none): same sid and auth_time', async () => {
    const again = await signIn(browser, { prompt: 'none' });
    expect(again.claims()?.sid).toBe(first.claims()?.sid);
    expect(again.claims()?.auth_time).toBe(first.claims()?.auth_time);
  });

  it('logs out through buildEndSessionUrl: back at the app with state, cookies gone', async () => {
    const url = client.buildEndSessionUrl(config, {
      id_token_hint: first.id_token as string,
      post_logout_redirect_uri: REDIRECT,
      state: 'after-logout',
    });
    const response = await browser.fetch(url);
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe(`${REDIRECT}?state=after-logout`);
    expect(browser.names).toEqual([]);
    const refreshed = await client
      .refreshTokenGrant(config, first.refresh_token as string)
      .catch((e: unknown) => e);
    expect((refreshed as client.ResponseBodyError).error).toBe('invalid_grant');
  });

  it('a silent sign-in afterwards answers login_required, which openid-client surfaces as an error', async () => {
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope: 'openid',
      prompt: 'none',
      state: 'silent',
    });
    const response = await browser.fetch(url);
    const error = await client
      .authorizationCodeGrant(config, new URL(response.headers.get('location') as string), {
        expectedState: 'silent',
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(client.AuthorizationResponseError);
    expect((error as client.AuthorizationResponseError).error).toBe('login_required');
  });
});
