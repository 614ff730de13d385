// Logout over HTTP: the session ends (its access tokens introspect inactive, its refresh tokens fail), redirects.
import { describe, expect, it } from 'vitest';
import { expectOAuthError } from '../helpers/assert.js';
import {
  basicFor,
  credentialsFor,
  introspect,
  loginTokens,
  refresh,
  type TokenResponse,
} from '../helpers/flows.js';
import { get, postForm } from '../helpers/http.js';
import { startIdp, type TestIdp, useIdp } from '../helpers/server.js';

const idp = useIdp();

async function expectSessionEnded(target: TestIdp, t: TokenResponse): Promise<void> {
  expect((await introspect(target, t.access_token)).json).toEqual({ active: false });
  expectOAuthError(await refresh(target, t.refresh_token), 400, 'invalid_grant');
  expect((await get(target.endpoints.userinfo, { authorization: `Bearer ${t.access_token}` })).status).toBe(
    401,
  );
}

async function expectSessionActive(target: TestIdp, t: TokenResponse): Promise<void> {
  expect((await introspect(target, t.access_token)).json.active).toBe(true);
}

const logoutUrl = (params: Record<string, string>): string =>
  `${idp.endpoints.logout}?${new URLSearchParams(params)}`;

describe('RP-initiated logout (GET)', () => {
  it('with id_token_hint and a registered post_logout_redirect_uri: 302 with state, session ended', async () => {
    const t = await loginTokens(idp);
    const other = await loginTokens(idp);
    const answer = await get(
      logoutUrl({
        id_token_hint: t.id_token as string,
        post_logout_redirect_uri: 'http://app.fjord.test/cb',
        state: 'bye',
      }),
    );
    expect(answer.status).toBe(302);
    expect(answer.headers.get('location')).toBe('http://app.fjord.test/cb?state=bye');
    await expectSessionEnded(idp, t);
    await expectSessionActive(idp, other);
  });

  it('with id_token_hint only: the logged-out page, session ended', async () => {
    const t = await loginTokens(idp);
    const answer = await get(logoutUrl({ id_token_hint: t.id_token as string }));
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^text\/html/);
    expect(answer.text).toContain('logged out');
    await expectSessionEnded(idp, t);
  });

  it('with client_id and a registered post_logout_redirect_uri but no hint: redirects, ends nothing', async () => {
    const t = await loginTokens(idp);
    const answer = await get(
      logoutUrl({ client_id: 'teller-web', post_logout_redirect_uri: 'http://app.fjord.test/cb' }),
    );
    expect(answer.status).toBe(302);
    expect(answer.headers.get('location')).toBe('http://app.fjord.test/cb');
    await expectSessionActive(idp, t);
  });

  it.each<[string, (t: TokenResponse) => Record<string, string>]>([
    [
      'an unregistered post_logout_redirect_uri',
      (t) => ({ id_token_hint: t.id_token as string, post_logout_redirect_uri: 'http://evil.test/' }),
    ],
    [
      'a post_logout_redirect_uri without client',
      () => ({ post_logout_redirect_uri: 'http://app.fjord.test/cb' }),
    ],
    ['a garbage id_token_hint', () => ({ id_token_hint: 'garbage' })],
    [
      'an id_token_hint signed by someone else',
      (t) => ({ id_token_hint: `${(t.id_token as string).slice(0, -6)}AAAAAA` }),
    ],
  ])('%s: 400 HTML error page, no redirect, session kept', async (_name, params) => {
    const t = await loginTokens(idp);
    const answer = await get(logoutUrl(params(t)));
    expect(answer.status).toBe(400);
    expect(answer.headers.get('location')).toBeNull();
    expect(answer.headers.get('content-type')).toMatch(/^text\/html/);
    await expectSessionActive(idp, t);
  });

  it.each<[string, (t: TokenResponse) => Record<string, string>, string]>([
    [
      'id_token_hint names the client',
      (t) => ({ id_token_hint: t.id_token as string, post_logout_redirect_uri: 'http://evil.test/' }),
      'post_logout_redirect_uri "http://evil.test/" is not registered for client "teller-web" (the audience of id_token_hint): it accepts "http://app.fjord.test/cb", "http://127.0.0.1:*"; add it to clients.teller-web.redirectUris in the fixtures (a trailing * matches as a prefix)',
    ],
    [
      'client_id names the client',
      () => ({ client_id: 'counter-app', post_logout_redirect_uri: 'http://app.fjord.test/cb' }),
      'post_logout_redirect_uri "http://app.fjord.test/cb" is not registered for client "counter-app" (client_id): it accepts "http://counter.fjord.test/return"; add it to clients.counter-app.redirectUris in the fixtures (a trailing * matches as a prefix)',
    ],
    [
      'a client without redirect URIs',
      () => ({ client_id: 'ledger-sync', post_logout_redirect_uri: 'http://app.fjord.test/cb' }),
      'post_logout_redirect_uri "http://app.fjord.test/cb" is not registered for client "ledger-sync" (client_id): it has no redirect URIs registered; add it to clients.ledger-sync.redirectUris in the fixtures (a trailing * matches as a prefix)',
    ],
    [
      'a client the realm does not have',
      () => ({ client_id: 'nobody', post_logout_redirect_uri: 'http://app.fjord.test/cb' }),
      'post_logout_redirect_uri "http://app.fjord.test/cb" is for client "nobody" (client_id), which this realm does not have',
    ],
    [
      'no client named',
      () => ({ post_logout_redirect_uri: 'http://app.fjord.test/cb' }),
      'post_logout_redirect_uri "http://app.fjord.test/cb" needs client_id or id_token_hint to name its client',
    ],
  ])(
    'a refused post_logout_redirect_uri, %s: the page names the URI, the client and what it registers',
    async (_name, params, problem) => {
      const t = await loginTokens(idp);
      const answer = await get(logoutUrl(params(t)));
      expect(answer.status).toBe(400);
      const shown = /<p class="error" id="error">([^<]*)<\/p>/.exec(answer.text)?.[1];
      expect(shown?.replaceAll('&#34;', '"')).toBe(`Invalid redirect uri: ${problem}`);
    },
  );

  it('an expired id_token_hint still names its session', async () => {
    const frozen = await startIdp({ clock: '2030-01-01T00:00:00Z', frozen: true });
    try {
      const t = await loginTokens(frozen);
      frozen.clock.advance(900);
      const answer = await get(
        `${frozen.endpoints.logout}?${new URLSearchParams({ id_token_hint: t.id_token as string })}`,
      );
      expect(answer.status).toBe(200);
      expectOAuthError(await refresh(frozen, t.refresh_token), 400, 'invalid_grant');
    } finally {
      await frozen.close();
    }
  });
});

describe('back-channel logout with a refresh token (POST)', () => {
  it('ends the session: 204', async () => {
    const t = await loginTokens(idp);
    const answer = await postForm(
      idp.endpoints.logout,
      { refresh_token: t.refresh_token },
      { authorization: basicFor('teller-web') },
    );
    expect(answer.status).toBe(204);
    await expectSessionEnded(idp, t);
  });

  it("refuses another client's refresh token: 400 invalid_grant, session kept", async () => {
    const t = await loginTokens(idp);
    const { body } = credentialsFor('counter-app');
    const answer = await postForm(idp.endpoints.logout, { refresh_token: t.refresh_token, ...body });
    expectOAuthError(answer, 400, 'invalid_grant');
    await expectSessionActive(idp, t);
  });

  it('needs client authentication: 401', async () => {
    const t = await loginTokens(idp);
    expectOAuthError(
      await postForm(idp.endpoints.logout, { refresh_token: t.refresh_token }),
      401,
      'invalid_client',
    );
    await expectSessionActive(idp, t);
  });

  it('with nothing to log out: 400 invalid_request', async () => {
    expectOAuthError(await postForm(idp.endpoints.logout, {}), 400, 'invalid_request');
  });
});
