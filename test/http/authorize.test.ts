// The authorize endpoint over HTTP: login_hint redirects, response modes, the hybrid flow, errors, the picker page.
import { describe, expect, it } from 'vitest';
import { authorizeUrl, exchangeCode, type AuthorizeParams } from '../helpers/flows.js';
import { postForm } from '../helpers/http.js';
import { halfHash, s256, verifyToken } from '../helpers/jwt.js';
import { useIdp } from '../helpers/server.js';

const VERIFIER = 'M25iVXpKU3puUjFaYWg3T1NDTDQtcW1ROUY5YXlwalNoc0hhakxifmZHag';

const idp = useIdp();

async function authorize(a: AuthorizeParams, init: RequestInit = {}): Promise<Response> {
  return fetch(authorizeUrl(idp, a), { redirect: 'manual', ...init });
}

/** The Location of a 302, split into the URL without its parameters and the parameters from query or fragment. */
async function redirectOf(
  response: Response,
): Promise<{ base: string; query: URLSearchParams; fragment: URLSearchParams }> {
  expect(response.status, await response.clone().text()).toBe(302);
  const url = new URL(response.headers.get('location') as string);
  const fragment = new URLSearchParams(url.hash.slice(1));
  const query = url.searchParams;
  return { base: `${url.origin}${url.pathname}`, query, fragment };
}

/** The hidden inputs of a form_post page. */
function formFields(html: string): { action: string | undefined; fields: Record<string, string> } {
  const decodeHtml = (v: string): string =>
    v.replace(/&#(\d+);/g, (_m, n: string) => String.fromCharCode(Number(n)));
  const action = /<form method="post" action="([^"]*)"/.exec(html)?.[1];
  const fields: Record<string, string> = {};
  for (const m of html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g))
    fields[decodeHtml(m[1] as string)] = decodeHtml(m[2] as string);
  return { action: action !== undefined ? decodeHtml(action) : undefined, fields };
}

async function expectErrorPage(response: Response, text: RegExp): Promise<void> {
  expect(response.status).toBe(400);
  expect(response.headers.get('location')).toBeNull();
  expect(response.headers.get('content-type')).toMatch(/^text\/html/);
  const body = await response.text();
  expect(body).toMatch(text);
  expect(body).not.toMatch(/<form/);
}

describe('login_hint: an immediate redirect', () => {
  it('redirects (302) to the redirect_uri with code, state, session_state and iss', async () => {
    const response = await authorize({ user: 'ingrid', state: 'af0ifjsldkj', scope: 'openid profile' });
    expect(response.headers.get('cache-control')).toBe('no-store');
    const { base, query } = await redirectOf(response);
    expect(base).toBe('http://app.fjord.test/cb');
    expect([...query.keys()].sort()).toEqual(['code', 'iss', 'session_state', 'state']);
    expect(query.get('state')).toBe('af0ifjsldkj');
    expect(query.get('iss')).toBe(idp.issuer);
    const tokens = await exchangeCode(idp, query.get('code') as string);
    expect(tokens.status, tokens.text).toBe(200);
    expect(tokens.json.session_state).toBe(query.get('session_state'));
  });

  it('keeps the query of a registered (wildcard) redirect_uri', async () => {
    const response = await authorize({
      client: 'kiosk-spa',
      redirectUri: 'http://kiosk.fjord.test/app/return?tab=2',
      codeChallenge: s256(VERIFIER),
      codeChallengeMethod: 'S256',
      user: 'ola',
    });
    const { base, query } = await redirectOf(response);
    expect(base).toBe('http://kiosk.fjord.test/app/return');
    expect(query.get('tab')).toBe('2');
    expect(query.get('code')).toBeTruthy();
  });

  it('omits state when none was sent', async () => {
    const url = authorizeUrl(idp, { user: 'ingrid' }).replace(/&state=[^&]*/, '');
    const { query } = await redirectOf(await fetch(url, { redirect: 'manual' }));
    expect(query.has('state')).toBe(false);
    expect(query.get('code')).toBeTruthy();
  });

  it('accepts the authorize request as a POST form (as the picker sends it)', async () => {
    const params = new URL(authorizeUrl(idp, { user: 'ingrid', state: 'posted' })).searchParams;
    const answer = await postForm(idp.endpoints.auth, [...params.entries()]);
    expect(answer.status).toBe(302);
    const location = new URL(answer.headers.get('location') as string);
    expect(location.searchParams.get('state')).toBe('posted');
  });
});

describe('response modes', () => {
  it('fragment puts the parameters after #', async () => {
    const { query, fragment } = await redirectOf(
      await authorize({ user: 'ingrid', responseMode: 'fragment', state: 's-frag' }),
    );
    expect([...query.keys()]).toEqual([]);
    expect(fragment.get('state')).toBe('s-frag');
    expect(fragment.get('iss')).toBe(idp.issuer);
    expect((await exchangeCode(idp, fragment.get('code') as string)).status).toBe(200);
  });

  it('form_post answers an auto-submitting HTML form to the redirect_uri', async () => {
    const response = await authorize({ user: 'ingrid', responseMode: 'form_post', state: 's-"form"<post>' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const { action, fields } = formFields(await response.text());
    expect(action).toBe('http://app.fjord.test/cb');
    expect(Object.keys(fields).sort()).toEqual(['code', 'iss', 'session_state', 'state']);
    expect(fields['state']).toBe('s-"form"<post>');
    expect((await exchangeCode(idp, fields['code'] as string)).status).toBe(200);
  });
});

describe('response_type code id_token (hybrid)', () => {
  it.each(['fragment', 'form_post'])('returns a signed ID token with c_hash and nonce (%s)', async (mode) => {
    const response = await authorize({
      user: 'ingrid',
      responseType: 'code id_token',
      responseMode: mode,
      nonce: 'n-hybrid',
      scope: 'openid profile',
    });
    let fields: Record<string, string>;
    if (mode === 'fragment') fields = Object.fromEntries((await redirectOf(response)).fragment);
    else fields = formFields(await response.text()).fields;
    const code = fields['code'] as string;
    const { claims } = await verifyToken(idp, fields['id_token'] as string, 'teller-web');
    expect(claims).toMatchObject({
      typ: 'ID',
      aud: 'teller-web',
      azp: 'teller-web',
      nonce: 'n-hybrid',
      c_hash: halfHash(code),
      session_state: fields['session_state'],
      name: 'Ingrid Fjeld',
    });
    expect(claims).not.toHaveProperty('at_hash');
    const tokens = await exchangeCode(idp, code);
    expect(tokens.status, tokens.text).toBe(200);
    expect((await verifyToken(idp, tokens.json.id_token as string)).claims.sub).toBe(claims.sub);
  });

  it('a code whose session ended (logout with the hybrid ID token) no longer exchanges', async () => {
    const { fragment } = await redirectOf(
      await authorize({ user: 'ingrid', responseType: 'code id_token', nonce: 'n' }),
    );
    const logout = await fetch(`${idp.endpoints.logout}?id_token_hint=${fragment.get('id_token')}`);
    expect(logout.status).toBe(200);
    const answer = await exchangeCode(idp, fragment.get('code') as string);
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ error: 'invalid_grant' });
  });

  it('defaults to fragment', async () => {
    const { fragment } = await redirectOf(
      await authorize({ user: 'ingrid', responseType: 'code id_token', nonce: 'n' }),
    );
    expect(fragment.get('id_token')).toBeTruthy();
  });

  it.each<[string, AuthorizeParams, string]>([
    ['without nonce', { responseType: 'code id_token' }, 'invalid_request'],
    [
      'with response_mode=query',
      { responseType: 'code id_token', nonce: 'n', responseMode: 'query' },
      'invalid_request',
    ],
    [
      'without the openid scope',
      { responseType: 'code id_token', nonce: 'n', scope: 'ledger.read' },
      'invalid_request',
    ],
  ])('is refused %s', async (_name, a, error) => {
    const response = await authorize({ user: 'ingrid', ...a });
    const { query, fragment } = await redirectOf(response);
    const params = fragment.has('error') ? fragment : query;
    expect(params.get('error')).toBe(error);
  });
});

describe('errors', () => {
  it.each<[string, AuthorizeParams | string, RegExp]>([
    ['an unknown client', { client: 'ghost-app' }, /Client not found/],
    ['an unregistered redirect_uri', { redirectUri: 'http://app.fjord.test/cb/other' }, /redirect_uri/],
    [
      'a redirect_uri that only starts like a registered one',
      { redirectUri: 'http://app.fjord.test/cbx' },
      /redirect_uri/,
    ],
    ['a redirect_uri of another client', { redirectUri: 'http://counter.fjord.test/return' }, /redirect_uri/],
    [
      'a wildcard redirect_uri stretched with user info to another host',
      { redirectUri: 'http://127.0.0.1:80@evil.test/cb' },
      /redirect_uri/,
    ],
    [
      'a redirect_uri with a fragment',
      { client: 'kiosk-spa', redirectUri: 'http://kiosk.fjord.test/app#frag' },
      /redirect_uri/,
    ],
    [
      'a client without redirect URIs',
      { client: 'ledger-sync', redirectUri: 'http://app.fjord.test/cb' },
      /redirect_uri/,
    ],
    ['a missing redirect_uri', 'response_type=code&client_id=teller-web&login_hint=ingrid', /redirect_uri/],
    ['a missing client_id', 'response_type=code&redirect_uri=http%3A%2F%2Fapp.fjord.test%2Fcb', /client_id/],
    [
      'a duplicated parameter',
      'client_id=teller-web&client_id=teller-web&redirect_uri=http%3A%2F%2Fapp.fjord.test%2Fcb',
      /Duplicated/,
    ],
  ])('%s: an HTML error page, never a redirect', async (_name, a, text) => {
    const response =
      typeof a === 'string'
        ? await fetch(`${idp.endpoints.auth}?${a}`, { redirect: 'manual' })
        : await authorize({ user: 'ingrid', ...a });
    await expectErrorPage(response, text);
  });

  it.each<[string, AuthorizeParams | string, string]>([
    [
      'an unregistered redirect_uri',
      { redirectUri: 'http://app.fjord.test/other' },
      'Invalid parameter: redirect_uri "http://app.fjord.test/other" is not registered for client "teller-web" (registered: http://app.fjord.test/cb, http://127.0.0.1:*)',
    ],
    [
      'a missing redirect_uri',
      'response_type=code&client_id=counter-app',
      'Missing parameter: redirect_uri (registered: http://counter.fjord.test/return)',
    ],
    [
      'a client without redirect URIs',
      { client: 'ledger-sync', redirectUri: 'http://app.fjord.test/cb' },
      'Invalid parameter: redirect_uri "http://app.fjord.test/cb" is not registered for client "ledger-sync" (client "ledger-sync" registers no redirect URIs)',
    ],
  ])('%s: the error page lists what the client registers', async (_name, a, message) => {
    const response =
      typeof a === 'string'
        ? await fetch(`${idp.endpoints.auth}?${a}`, { redirect: 'manual' })
        : await authorize({ user: 'ingrid', ...a });
    expect(response.status).toBe(400);
    const shown = /<p class="error" id="error">([^<]*)<\/p>/.exec(await response.text())?.[1];
    expect(shown?.replaceAll('&#34;', '"')).toBe(message);
  });

  it('escapes what it echoes on the error page', async () => {
    const response = await authorize({ client: '<img src=x onerror=alert(1)>' });
    const body = await response.text();
    expect(body).not.toContain('<img');
    expect(body).toContain('&#60;img');
  });

  it.each<[string, AuthorizeParams, string]>([
    ['an unknown scope', { scope: 'openid ledger.delete' }, 'invalid_scope'],
    [
      'a scope the client may not request',
      { client: 'counter-app', redirectUri: 'http://counter.fjord.test/return', scope: 'openid statements' },
      'invalid_scope',
    ],
    ['a scope in the wrong case', { scope: 'OpenID' }, 'invalid_scope'],
    ['an unsupported response_type', { responseType: 'code device' }, 'unsupported_response_type'],
    ['an unknown response_mode', { responseMode: 'web_message' }, 'invalid_request'],
    [
      'required PKCE without code_challenge',
      { client: 'kiosk-spa', redirectUri: 'http://kiosk.fjord.test/x' },
      'invalid_request',
    ],
    [
      'an unknown code_challenge_method',
      { codeChallenge: s256(VERIFIER), codeChallengeMethod: 'S512' },
      'invalid_request',
    ],
    ['a code_challenge_method without code_challenge', { codeChallengeMethod: 'S256' }, 'invalid_request'],
    [
      'a malformed code_challenge',
      { codeChallenge: 'short', codeChallengeMethod: 'S256' },
      'invalid_request',
    ],
    ['prompt=none without login_hint', { user: '', extra: { prompt: 'none' } }, 'login_required'],
  ])('%s: redirect with error, state and iss', async (_name, a, error) => {
    const url = authorizeUrl(idp, { user: 'ingrid', state: 'st-err', ...a });
    const { query } = await redirectOf(
      await fetch(url.replace(/&login_hint=(&|$)/, '$1'), { redirect: 'manual' }),
    );
    expect(query.get('error')).toBe(error);
    expect(query.get('error_description')).toBeTruthy();
    expect(query.get('state')).toBe('st-err');
    expect(query.get('iss')).toBe(idp.issuer);
    expect(query.has('code')).toBe(false);
  });

  it('a missing response_type: redirect with invalid_request', async () => {
    const url = `${idp.endpoints.auth}?client_id=teller-web&redirect_uri=${encodeURIComponent('http://app.fjord.test/cb')}&state=s&login_hint=ingrid`;
    const { query } = await redirectOf(await fetch(url, { redirect: 'manual' }));
    expect(query.get('error')).toBe('invalid_request');
  });
});

describe('the user picker (no login_hint)', () => {
  it('lists the fixture users as buttons that post the request back with login_hint', async () => {
    const response = await authorize({ state: 'st-<pick>', nonce: 'n-pick' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await response.text();
    const { action, fields } = formFields(html);
    expect(action).toBe(idp.endpoints.auth);
    expect(fields).toMatchObject({
      client_id: 'teller-web',
      state: 'st-<pick>',
      nonce: 'n-pick',
      redirect_uri: 'http://app.fjord.test/cb',
    });
    expect(fields).not.toHaveProperty('login_hint');
    const buttons = [
      ...html.matchAll(
        /<button type="submit" class="user" name="login_hint" value="([^"]+)"><span class="name">([^<]+)/g,
      ),
    ].map((m) => [m[1], m[2]?.trim()]);
    expect(buttons).toEqual([
      ['ingrid', 'Ingrid Fjeld'],
      ['ola', 'Ola Strand'],
    ]);
    expect(html).not.toContain('st-<pick>');
  });

  it('shows the picker with a notice for an unknown login_hint', async () => {
    const response = await authorize({ user: 'nobody' });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('Unknown user &#34;nobody&#34;');
  });
});
