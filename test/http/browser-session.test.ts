// Browser sessions over HTTP with cookies carried by hand: SSO, prompt, max_age, session_state, the
// session iframe's server side, logout (RP-initiated, front- and back-channel), and what ends a session.
import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { createLocalJWKSet, decodeJwt, jwtVerify, type JSONWebKeySet } from 'jose';
import { beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { FixturesInput } from '../../src/fixtures/schema.js';
import type { Logger } from '../../src/log.js';
import { authorizeUrl, exchangeCode, introspect, refresh, type AuthorizeParams } from '../helpers/flows.js';
import { s256 } from '../helpers/jwt.js';
import { FJORD_FIXTURES, useIdp, useLocalServer, Y2030, type TestIdp } from '../helpers/server.js';

const REDIRECT = 'http://app.fjord.test/cb';
const VERIFIER = 'session-verifier-0123456789-abcdefghijklmnopqrstuvwxyz';

/** A browser's cookie jar for one server: what Set-Cookie sets, sent back as a Cookie header. */
class Browser {
  readonly jar = new Map<string, string>();
  readonly raw: string[] = [];

  header(): string {
    return [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  take(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      this.raw.push(line);
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      if (/max-age=0/i.test(line)) this.jar.delete(name);
      else this.jar.set(name, pair.slice(eq + 1));
    }
  }

  async get(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.jar.size > 0) headers.set('cookie', this.header());
    const response = await fetch(url, { redirect: 'manual', ...init, headers });
    this.take(response);
    return response;
  }

  /** Authorize; the 302 target's parameters (query or fragment), or the status and body otherwise. */
  async authorize(
    idp: TestIdp,
    a: AuthorizeParams,
  ): Promise<{ status: number; params: URLSearchParams; body: string }> {
    const response = await this.get(authorizeUrl(idp, a));
    const body = await response.text();
    const location = response.headers.get('location');
    if (response.status !== 302 || location === null)
      return { status: response.status, params: new URLSearchParams(), body };
    const url = new URL(location);
    return {
      status: 302,
      params: url.hash.length > 1 ? new URLSearchParams(url.hash.slice(1)) : url.searchParams,
      body,
    };
  }
}

const sidOf = (code: string | null): string => (code ?? '').split('.')[1] ?? '';

function fjordObject(): FixturesInput {
  return parse(readFileSync(FJORD_FIXTURES, 'utf8')) as FixturesInput;
}

const idp = useIdp({ clock: Y2030, frozen: true });

describe('signing in sets the session cookies', () => {
  it('login_hint: KEYCLOAK_IDENTITY (HttpOnly) and KEYCLOAK_SESSION (hash of the sid), path /realms/fjord/, Lax over http', async () => {
    const browser = new Browser();
    const { status, params } = await browser.authorize(idp, { user: 'ingrid' });
    expect(status).toBe(302);
    const sid = sidOf(params.get('code'));
    const identity = browser.raw.find((c) => c.startsWith('KEYCLOAK_IDENTITY='));
    const session = browser.raw.find((c) => c.startsWith('KEYCLOAK_SESSION='));
    expect(identity).toMatch(/; Path=\/realms\/fjord\/; SameSite=Lax; HttpOnly$/);
    expect(session).toBe(`KEYCLOAK_SESSION=${s256(sid)}; Path=/realms/fjord/; SameSite=Lax`);
  });

  it('over https (X-Forwarded-Proto): SameSite=None; Secure', async () => {
    const response = await fetch(authorizeUrl(idp, { user: 'ingrid' }), {
      redirect: 'manual',
      headers: { 'x-forwarded-proto': 'https' },
    });
    const cookies = response.headers.getSetCookie();
    expect(cookies).toHaveLength(2);
    for (const c of cookies) expect(c).toContain('; SameSite=None; Secure');
  });
});

describe('single sign-on', () => {
  let browser: Browser;
  let sid: string;
  beforeEach(async () => {
    idp.clock.set({ now: Y2030, frozen: true });
    browser = new Browser();
    const first = await browser.authorize(idp, { user: 'ingrid', scope: 'openid' });
    sid = sidOf(first.params.get('code'));
    idp.clock.advance(120);
  });

  it('a later authorize signs in without the page; same sid, auth_time of the real login', async () => {
    const again = await browser.authorize(idp, { state: 'second', nonce: 'n2' });
    expect(again.status).toBe(302);
    expect(again.params.get('state')).toBe('second');
    const code = again.params.get('code');
    expect(sidOf(code)).toBe(sid);
    const tokens = await exchangeCode(idp, code as string);
    expect(tokens.status, tokens.text).toBe(200);
    const claims = decodeJwt(tokens.json.id_token as string);
    expect(claims).toMatchObject({ sid, auth_time: Y2030, nonce: 'n2', preferred_username: 'ingrid' });
    expect(claims.iat).toBe(Y2030 + 120);
  });

  it('signs in another client of the realm too (one session, both clients)', async () => {
    const other = await browser.authorize(idp, {
      client: 'kiosk-spa',
      redirectUri: 'http://kiosk.fjord.test/app',
      codeChallenge: s256(VERIFIER),
      codeChallengeMethod: 'S256',
    });
    expect(sidOf(other.params.get('code'))).toBe(sid);
    const listed = (await (await fetch(`${idp.issuer}/mock/sessions`)).json()) as {
      sessions: { id: string; clients: string[] }[];
    };
    expect(listed.sessions.find((s) => s.id === sid)?.clients).toEqual(['teller-web', 'kiosk-spa']);
  });

  it.each([
    ['query', undefined],
    ['fragment', 'fragment'],
  ])('prompt=none answers silently with a code (%s)', async (_mode, responseMode) => {
    const r = await browser.authorize(idp, {
      extra: { prompt: 'none' },
      ...(responseMode !== undefined ? { responseMode } : {}),
    });
    expect(r.status).toBe(302);
    expect(sidOf(r.params.get('code'))).toBe(sid);
  });

  it('prompt=login shows the login page though the session is there', async () => {
    const r = await browser.authorize(idp, { extra: { prompt: 'login' } });
    expect(r.status).toBe(200);
    expect(r.body).toContain('name="login_hint"');
  });

  it.each([
    ['max_age=60 after 120 s: the login page', '60', 200],
    ['max_age=120 after 120 s: signed in', '120', 302],
    ['max_age=0: the login page', '0', 200],
  ])('%s', async (_name, maxAge, status) => {
    const r = await browser.authorize(idp, { extra: { max_age: maxAge } });
    expect(r.status).toBe(status);
  });

  it('a new login (prompt=login + the user) keeps the session and moves auth_time on', async () => {
    const r = await browser.authorize(idp, { user: 'ingrid', extra: { prompt: 'login', max_age: '0' } });
    expect(sidOf(r.params.get('code'))).toBe(sid);
    const tokens = await exchangeCode(idp, r.params.get('code') as string);
    expect(decodeJwt(tokens.json.id_token as string).auth_time).toBe(Y2030 + 120);
  });

  it('login_hint naming another user signs that user in with a new session; the first stays active', async () => {
    const r = await browser.authorize(idp, { user: 'ola' });
    const olaSid = sidOf(r.params.get('code'));
    expect(olaSid).not.toBe(sid);
    const next = await browser.authorize(idp, { extra: { prompt: 'none' } });
    expect(sidOf(next.params.get('code'))).toBe(olaSid);
    const listed = (await (await fetch(`${idp.issuer}/mock/sessions`)).json()) as {
      sessions: { id: string }[];
    };
    expect(listed.sessions.map((s) => s.id)).toEqual(expect.arrayContaining([sid, olaSid]));
  });

  it('session_state is the session id, as Keycloak writes it: the same on every sign-in of the session', async () => {
    const answers = [
      await browser.authorize(idp, {}),
      await browser.authorize(idp, { extra: { prompt: 'none' } }),
      await browser.authorize(idp, {
        client: 'kiosk-spa',
        redirectUri: 'http://kiosk.fjord.test/app',
        codeChallenge: s256(VERIFIER),
        codeChallengeMethod: 'S256',
      }),
    ];
    expect(answers.map((r) => r.params.get('session_state'))).toEqual([sid, sid, sid]);
    const first = answers[0]?.params.get('code') as string;
    const tokens = await exchangeCode(idp, first);
    expect(tokens.json).toMatchObject({ session_state: sid, sid });
    expect(decodeJwt(tokens.json.access_token)).toMatchObject({ session_state: sid, sid });
    expect(decodeJwt(tokens.json.id_token as string)).toMatchObject({ session_state: sid, sid });
    const again = await refresh(idp, tokens.json.refresh_token);
    expect(again.status, again.text).toBe(200);
    expect(again.json.session_state).toBe(sid);
    expect(decodeJwt(again.json.access_token)).toMatchObject({ session_state: sid, sid });
  });

  it('a new session (another user) has a new session_state', async () => {
    const r = await browser.authorize(idp, { user: 'ola' });
    const olaSid = sidOf(r.params.get('code'));
    expect(olaSid).not.toBe(sid);
    expect(r.params.get('session_state')).toBe(olaSid);
  });
});

describe('no session: prompt=none answers login_required at the redirect URI, never HTML', () => {
  it.each([
    ['query', undefined],
    ['fragment', 'fragment'],
  ])('%s', async (_mode, responseMode) => {
    const r = await new Browser().authorize(idp, {
      state: 'silent',
      extra: { prompt: 'none' },
      ...(responseMode !== undefined ? { responseMode } : {}),
    });
    expect(r.status).toBe(302);
    expect(r.params.get('error')).toBe('login_required');
    expect(r.params.get('state')).toBe('silent');
  });

  it('form_post: an auto-submitting form to the redirect URI carrying the error', async () => {
    const response = await fetch(authorizeUrl(idp, { responseMode: 'form_post', extra: { prompt: 'none' } }));
    const html = await response.text();
    expect(html).toContain(`action="${REDIRECT}"`);
    expect(html).toContain('name="error" value="login_required"');
  });
});

describe('bad input', () => {
  it.each([
    ['an unknown prompt', { prompt: 'sometimes' }, 'invalid_request'],
    ['prompt=none with login', { prompt: 'none login' }, 'invalid_request'],
    ['a negative max_age', { max_age: '-1' }, 'invalid_request'],
    ['a max_age that is not a number', { max_age: 'soon' }, 'invalid_request'],
  ])('%s is %s at the redirect URI', async (_name, extra, error) => {
    const r = await new Browser().authorize(idp, { user: 'ingrid', extra });
    expect(r.status).toBe(302);
    expect(r.params.get('error')).toBe(error);
  });

  it.each([
    ['garbage', 'KEYCLOAK_IDENTITY=%%%garbage; KEYCLOAK_SESSION=x'],
    ['a JWT of another key', `KEYCLOAK_IDENTITY=eyJhbGciOiJIUzI1NiJ9.eyJzaWQiOiJ4In0.${'A'.repeat(43)}`],
    ['an empty value', 'KEYCLOAK_IDENTITY='],
    ['a malformed header', ';;=;KEYCLOAK_IDENTITY'],
  ])(
    'a tampered session cookie (%s) is no session: login page, prompt=none login_required',
    async (_n, cookie) => {
      const page = await fetch(authorizeUrl(idp, {}), { headers: { cookie } });
      expect(page.status).toBe(200);
      const silent = await fetch(authorizeUrl(idp, { extra: { prompt: 'none' } }), {
        redirect: 'manual',
        headers: { cookie },
      });
      expect(new URL(silent.headers.get('location') as string).searchParams.get('error')).toBe(
        'login_required',
      );
    },
  );
});

describe('login_hint forms and the login page buttons', () => {
  it.each([
    ['a username', 'ingrid', 'ingrid'],
    ['BID:{national id}', 'BID:17037912345', 'ingrid'],
    [':{national id}', ':17037912345', 'ingrid'],
  ])('%s', async (_name, hint, username) => {
    const r = await new Browser().authorize(idp, { user: hint, scope: 'openid profile' });
    const tokens = await exchangeCode(idp, r.params.get('code') as string);
    expect(decodeJwt(tokens.json.id_token as string).preferred_username).toBe(username);
  });

  it('an unknown national id shows the page with a notice that does not repeat the number', async () => {
    const r = await new Browser().authorize(idp, { user: 'BID:01010100000' });
    expect(r.status).toBe(200);
    expect(r.body).toContain('No user has the national id given in the request');
    expect(r.body).not.toContain('01010100000');
  });

  it('Cancel returns error=access_denied with the state to the redirect URI', async () => {
    const body = new URLSearchParams({
      response_type: 'code',
      client_id: 'teller-web',
      redirect_uri: REDIRECT,
      state: 'cancelled',
      cancel: 'true',
    });
    const response = await fetch(idp.endpoints.auth, { method: 'POST', body, redirect: 'manual' });
    const location = new URL(response.headers.get('location') as string);
    expect(location.origin + location.pathname).toBe(REDIRECT);
    expect(location.searchParams.get('error')).toBe('access_denied');
    expect(location.searchParams.get('state')).toBe('cancelled');
  });
});

describe('the session iframe, server side', () => {
  const iframe = (): string => `${idp.endpoints.checkSession}`;

  it.each([
    ['login-status-iframe.html', '/protocol/openid-connect/login-status-iframe.html'],
    ['3p-cookies/step1.html', '/protocol/openid-connect/3p-cookies/step1.html'],
    ['3p-cookies/step2.html', '/protocol/openid-connect/3p-cookies/step2.html'],
  ])('%s is a small page the web origins may frame', async (_name, path) => {
    const response = await fetch(idp.issuer + path);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.headers.get('x-frame-options')).toBeNull();
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/frame-ancestors 'self' .*http:\/\/app\.fjord\.test/);
    expect(csp).toContain("script-src 'sha256-");
    expect(await response.text()).toContain('postMessage');
  });

  it.each([
    ['a registered web origin', 'teller-web', 'http://app.fjord.test', 204],
    ['an origin of another client', 'teller-web', 'http://kiosk.fjord.test', 403],
    ['an unregistered origin', 'teller-web', 'http://evil.test', 403],
    ['an unknown client', 'nobody', 'http://app.fjord.test', 403],
  ])('/init: %s → %i', async (_name, client, origin, status) => {
    const response = await fetch(`${iframe()}/init?${new URLSearchParams({ client_id: client, origin })}`);
    expect(response.status).toBe(status);
  });

  it('/status: unchanged for the session_state (the sid), changed once the session ends elsewhere', async () => {
    const browser = new Browser();
    const r = await browser.authorize(idp, { user: 'ingrid' });
    const sid = sidOf(r.params.get('code'));
    const status = async (held: string, origin = 'http://app.fjord.test'): Promise<string> => {
      const q = new URLSearchParams({ client_id: 'teller-web', origin, session_state: held });
      return ((await (await browser.get(`${iframe()}/status?${q}`)).json()) as { status: string }).status;
    };
    expect(r.params.get('session_state')).toBe(sid);
    expect(await status(sid)).toBe('unchanged');
    expect(await status('another-sid')).toBe('changed');
    expect(await status(sid, 'http://evil.test')).toBe('error');
    expect((await fetch(`${idp.issuer}/mock/sessions/${sid}`, { method: 'DELETE' })).status).toBe(200);
    expect(await status(sid)).toBe('changed');
    expect(await status('')).toBe('unchanged');
  });
});

describe('what ends the browser session', () => {
  let browser: Browser;
  let sid: string;
  beforeEach(async () => {
    idp.clock.set({ now: Y2030, frozen: true });
    browser = new Browser();
    sid = sidOf((await browser.authorize(idp, { user: 'ingrid' })).params.get('code'));
  });
  const silent = async (): Promise<string | null> =>
    (await browser.authorize(idp, { extra: { prompt: 'none' } })).params.get('error');

  it('DELETE /mock/sessions/{id}', async () => {
    await fetch(`${idp.issuer}/mock/sessions/${sid}`, { method: 'DELETE' });
    expect(await silent()).toBe('login_required');
  });

  it('idle expiry on the mock clock', async () => {
    idp.clock.advance(3601);
    expect(await silent()).toBe('login_required');
  });

  it('replacing the fixtures (the tokens of the session stay active)', async () => {
    const code = (await browser.authorize(idp, {})).params.get('code') as string;
    const tokens = await exchangeCode(idp, code);
    const put = await fetch(`${idp.issuer}/mock/fixtures`, {
      method: 'PUT',
      body: readFileSync(FJORD_FIXTURES, 'utf8'),
    });
    expect(put.status).toBe(200);
    expect(await silent()).toBe('login_required');
    expect((await introspect(idp, tokens.json.access_token)).json).toMatchObject({ active: true, sid });
  });

  it('RP-initiated logout: cookies cleared, session ended, state echoed to a bare origin registered as {origin}/*', async () => {
    const kiosk = new Browser();
    const r = await kiosk.authorize(idp, {
      user: 'ola',
      client: 'kiosk-spa',
      redirectUri: 'http://kiosk.fjord.test/app',
      codeChallenge: s256(VERIFIER),
      codeChallengeMethod: 'S256',
    });
    const kioskSid = sidOf(r.params.get('code'));
    const logout = await kiosk.get(
      `${idp.endpoints.logout}?${new URLSearchParams({
        client_id: 'kiosk-spa',
        post_logout_redirect_uri: 'http://kiosk.fjord.test',
        state: 'bye',
      })}`,
    );
    expect(logout.status).toBe(302);
    expect(logout.headers.get('location')).toBe('http://kiosk.fjord.test?state=bye');
    expect(logout.headers.getSetCookie().every((c) => /Max-Age=0/.test(c))).toBe(true);
    expect(kiosk.jar.size).toBe(0);
    const listed = (await (await fetch(`${idp.issuer}/mock/sessions`)).json()) as {
      sessions: { id: string }[];
    };
    expect(listed.sessions.map((s) => s.id)).not.toContain(kioskSid);
  });

  it('an unregistered post_logout_redirect_uri is an error page and ends nothing', async () => {
    const logout = await browser.get(
      `${idp.endpoints.logout}?${new URLSearchParams({ client_id: 'teller-web', post_logout_redirect_uri: 'http://evil.test/' })}`,
    );
    expect(logout.status).toBe(400);
    expect(await silent()).toBeNull();
  });
});

describe('sso: false', () => {
  const noSso = useIdp(() => ({ fixtures: { ...fjordObject(), sso: false } }));

  it('sets no cookies and shows the login page again', async () => {
    const browser = new Browser();
    const first = await browser.authorize(noSso, { user: 'ingrid' });
    expect(first.status).toBe(302);
    expect(browser.raw).toEqual([]);
    expect((await browser.authorize(noSso, {})).status).toBe(200);
    expect((await browser.authorize(noSso, { extra: { prompt: 'none' } })).params.get('error')).toBe(
      'login_required',
    );
  });
});

/** A relying party's logout endpoint: records what arrives, answers with `answer` (or never). */
function useReceiver(answer: (res: ServerResponse) => void): {
  url: string;
  received: { path: string; body: string }[];
} {
  const received: { path: string; body: string }[] = [];
  const server = useLocalServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push({ path: req.url ?? '', body });
      answer(res);
    });
  });
  return {
    get url() {
      return server.url;
    },
    received,
  };
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 25));
  if (!check()) throw new Error(`timed out waiting for ${what}`);
}

describe('front- and back-channel logout', () => {
  const rp = useReceiver((res) => res.writeHead(200).end());
  const failing = useReceiver((res) => res.writeHead(500).end());
  const hanging = useReceiver(() => undefined);
  const warnings: string[] = [];

  const channels = useIdp(() => {
    const f = fjordObject();
    const clients = f.clients as Record<string, Record<string, unknown>>;
    clients['teller-web'] = {
      ...clients['teller-web'],
      frontchannelLogoutUri: `${rp.url}/front`,
      backchannelLogoutUri: `${rp.url}/back`,
    };
    clients['counter-app'] = { ...clients['counter-app'], backchannelLogoutUri: `${failing.url}/back` };
    clients['kiosk-spa'] = { ...clients['kiosk-spa'], backchannelLogoutUri: `${hanging.url}/back` };
    const logger: Logger = {
      level: 'warn',
      debug: () => undefined,
      info: () => undefined,
      warn: (m) => warnings.push(m),
      error: (m) => warnings.push(m),
    };
    return { fixtures: f, logger };
  });
  beforeEach(() => {
    rp.received.length = 0;
  });

  async function verifyLogoutToken(body: string, sid: string): Promise<void> {
    const token = new URLSearchParams(body).get('logout_token') as string;
    const jwks = (await (await fetch(channels.endpoints.certs)).json()) as JSONWebKeySet;
    const { payload, protectedHeader } = await jwtVerify(token, createLocalJWKSet(jwks), {
      issuer: channels.issuer,
      audience: 'teller-web',
    });
    expect(protectedHeader).toMatchObject({ alg: 'RS256', typ: 'logout+jwt' });
    expect(payload).toMatchObject({
      sid,
      sub: '7f3e2a10-5b6c-4d7e-8f90-a1b2c3d4e5f6',
      events: { 'http://schemas.openid.net/event/backchannel-logout': {} },
    });
    expect(payload).not.toHaveProperty('nonce');
  }

  it('discovery advertises both', async () => {
    expect(await (await fetch(channels.endpoints.discovery)).json()).toMatchObject({
      frontchannel_logout_supported: true,
      frontchannel_logout_session_supported: true,
      backchannel_logout_supported: true,
      backchannel_logout_session_supported: true,
    });
  });

  it('RP-initiated logout: the page frames the front-channel URI (iss, sid), then goes on; a logout_token is POSTed', async () => {
    const browser = new Browser();
    const sid = sidOf((await browser.authorize(channels, { user: 'ingrid' })).params.get('code'));
    const logout = await browser.get(
      `${channels.endpoints.logout}?${new URLSearchParams({
        client_id: 'teller-web',
        post_logout_redirect_uri: 'http://app.fjord.test/cb',
        state: 's1',
      })}`,
    );
    expect(logout.status).toBe(200);
    const html = await logout.text();
    const front = new URL(`${rp.url}/front`);
    front.searchParams.set('iss', channels.issuer);
    front.searchParams.set('sid', sid);
    expect(html).toContain(`<iframe class="frontchannel" src="${front.href.replace(/&/g, '&#38;')}"`);
    expect(html).toContain('data-next="http://app.fjord.test/cb?state=s1"');
    expect(logout.headers.get('content-security-policy')).toContain(`frame-src ${rp.url}`);
    await until(() => rp.received.length === 1, 'the back-channel logout');
    expect(rp.received[0]?.path).toBe('/back');
    await verifyLogoutToken(rp.received[0]?.body ?? '', sid);
  });

  it.each([
    [
      'DELETE /mock/sessions/{id}',
      async (sid: string) => {
        await fetch(`${channels.issuer}/mock/sessions/${sid}`, { method: 'DELETE' });
      },
    ],
    [
      'idle expiry',
      async () => {
        channels.clock.advance(3601);
      },
    ],
  ])('%s POSTs a logout_token too', async (_name, end) => {
    const sid = sidOf((await new Browser().authorize(channels, { user: 'ingrid' })).params.get('code'));
    await end(sid);
    await until(() => rp.received.some((r) => r.body.includes('logout_token')), 'the back-channel logout');
    await verifyLogoutToken(rp.received[0]?.body ?? '', sid);
  });

  it('a client that answers 500 or hangs changes nothing for the user: logout answers at once, retries are bounded and logged', async () => {
    const browser = new Browser();
    await browser.authorize(channels, {
      user: 'ola',
      client: 'counter-app',
      redirectUri: 'http://counter.fjord.test/return',
    });
    await browser.authorize(channels, {
      client: 'kiosk-spa',
      redirectUri: 'http://kiosk.fjord.test/app',
      codeChallenge: s256(VERIFIER),
      codeChallengeMethod: 'S256',
    });
    const logout = await browser.get(`${channels.endpoints.logout}?client_id=counter-app`);
    expect(logout.status).toBe(200);
    // The hanging client holds its request unanswered while the logout has already answered.
    await until(() => hanging.received.length === 1, 'the hanging client to be called');
    await until(() => failing.received.length === 3, 'three attempts at the failing client');
    await until(
      () =>
        warnings.some(
          (w) => w.includes('counter-app') && w.includes('failed after 3 attempts (last: HTTP 500)'),
        ),
      'the failure to be logged',
    );
    expect(failing.received).toHaveLength(3);
  });
});
