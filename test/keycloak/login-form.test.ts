// A Keycloak realm's login page over HTTP: the username and password form with Keycloak's ids and names, posted
// as a browser posts it (right password: a code; wrong, unknown, disabled: the page again with Keycloak's
// words), the email as username, the realm's display name in the title, what is echoed (escaped) and what is
// not, a pushed request through the form, and a fixtures (YAML) realm without the form.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { KeycloakRealmInput } from '../../src/fixtures/keycloak/schema.js';
import { exchangeCode } from '../helpers/flows.js';
import { basic, postForm } from '../helpers/http.js';
import { verifyToken } from '../helpers/jwt.js';
import { useIdp, type TestIdp } from '../helpers/server.js';

const CB = 'http://localhost:3000/cb';
const CLIENT = 'harbor-web';
const SECRET = 'harbor-secret';
const NORTHWIND = fileURLToPath(new URL('../fixtures-data/keycloak/northwind-export.json', import.meta.url));

const password = (value: string) => [{ type: 'password', value }];

/** A realm file's realm: Kari (with an email), a disabled user, and a confidential web client. */
function harbor(extra: Partial<KeycloakRealmInput> = {}): KeycloakRealmInput {
  return {
    realm: 'harbor',
    displayName: 'Harbor <Ops>',
    users: [
      { username: 'Kari', email: 'Kari@Harbor.test', enabled: true, credentials: password('kari-pw') },
      { username: 'per', enabled: false, credentials: password('per-pw') },
    ],
    clients: [{ clientId: CLIENT, secret: SECRET, redirectUris: [`${CB}*`] }],
    ...extra,
  };
}

/** The authorize request of the tests, as the login page's hidden fields repeat it. */
const AUTHORIZE = {
  response_type: 'code',
  client_id: CLIENT,
  redirect_uri: CB,
  scope: 'openid',
  state: 'st-form',
  nonce: 'n-form',
};

/** The login form posted as a browser posts it (the button's name with an empty value). */
function submit(idp: TestIdp, username: string, pw: string, fields: Record<string, string> = AUTHORIZE) {
  return postForm(idp.endpoints.auth, { ...fields, username, password: pw, login: '' });
}

/** The user a code is for: exchanged by the client, the ID token's preferred_username. */
async function signedInAs(idp: TestIdp, location: string | null): Promise<unknown> {
  const callback = new URL(location ?? '');
  expect(callback.searchParams.get('state')).toBe('st-form');
  const tokens = await exchangeCode(idp, callback.searchParams.get('code') ?? '', {
    redirectUri: CB,
    authorization: basic(CLIENT, SECRET),
  });
  expect(tokens.status, tokens.text).toBe(200);
  return (await verifyToken(idp, tokens.json.id_token as string, CLIENT)).claims['preferred_username'];
}

/** The hidden fields of the "Update password" form. */
function updateFields(page: string): Record<string, string> {
  const form = /<form id="kc-passwd-update-form"[^>]*>(.*?)<div/s.exec(page)?.[1] ?? '';
  return Object.fromEntries(
    [...form.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)].map((m) => [m[1], m[2]]),
  );
}

const INVALID = '<span id="input-error" class="error">Invalid username or password.</span>';
const DISABLED = '<span class="kc-feedback-text">Account is disabled, contact your administrator.</span>';

describe('the login form of a Keycloak realm', () => {
  const idp = useIdp(() => ({ fixtures: harbor() }));

  it("is on the login page with Keycloak's ids and names, above the user buttons; the title names the realm", async () => {
    const response = await fetch(`${idp.endpoints.auth}?${new URLSearchParams(AUTHORIZE)}`);
    const page = await response.text();
    expect(response.status).toBe(200);
    expect(page).toContain('<title>Sign in to Harbor &#60;Ops&#62;</title>');
    for (const part of [
      '<form id="kc-form-login"',
      '<input id="username" name="username" type="text"',
      '<input id="password" name="password" type="password"',
      '<button type="submit" id="kc-login" name="login"',
      '<label for="username">Username or email</label>',
    ])
      expect(page).toContain(part);
    expect(page.indexOf('id="kc-form-login"')).toBeLessThan(page.indexOf('name="login_hint"'));
    expect(page).not.toContain('id="input-error"');
  });

  it.each([
    { username: 'kari', pw: 'kari-pw', as: 'kari' },
    { username: ' KARI ', pw: 'kari-pw', as: 'kari' },
    { username: 'kari@harbor.test', pw: 'kari-pw', as: 'kari' },
    { username: 'Kari@HARBOR.test', pw: 'kari-pw', as: 'kari' },
  ])('$username with the right password: 302 to the redirect URI with a code for $as', async (row) => {
    const answer = await submit(idp, row.username, row.pw);
    expect(answer.status, answer.text).toBe(302);
    expect(await signedInAs(idp, answer.headers.get('location'))).toBe(row.as);
  });

  it.each([
    { why: 'a wrong password', username: 'kari', pw: 'nope', shows: INVALID },
    { why: 'no password', username: 'kari', pw: '', shows: INVALID },
    { why: 'an unknown user', username: 'nobody', pw: 'kari-pw', shows: INVALID },
    { why: 'no username', username: '', pw: '', shows: INVALID },
    { why: 'a disabled user, wrong password', username: 'per', pw: 'nope', shows: INVALID },
    { why: 'a disabled user', username: 'per', pw: 'per-pw', shows: DISABLED },
  ])("$why: 200, the page again with Keycloak's words, no code and no cookie", async (row) => {
    const answer = await submit(idp, row.username, row.pw);
    expect(answer.status).toBe(200);
    expect(answer.text).toContain(row.shows);
    expect(answer.text).toContain(`id="username" name="username" type="text" value="${row.username}"`);
    expect(answer.headers.getSetCookie()).toEqual([]);
    // The page posts the same request again, without the password.
    expect(answer.text).toContain('<input type="hidden" name="state" value="st-form">');
    if (row.pw !== '') expect(answer.text).not.toContain(row.pw);
  });

  it('echoes what was typed escaped', async () => {
    const answer = await submit(idp, '"><script>alert(1)</script>', 'x');
    expect(answer.status).toBe(200);
    expect(answer.text).not.toContain('<script>alert');
    expect(answer.text).toContain('value="&#34;&#62;&#60;script&#62;alert(1)&#60;/script&#62;"');
  });

  it('a pushed request: the form posts client_id and a new request_uri, and keeps its state', async () => {
    const pushed = await postForm(idp.endpoints.par, AUTHORIZE, basic(CLIENT, SECRET));
    expect(pushed.status, pushed.text).toBe(201);
    const query = new URLSearchParams({ client_id: CLIENT, request_uri: String(pushed.json['request_uri']) });
    const page = await (await fetch(`${idp.endpoints.auth}?${query}`)).text();
    const form = /<form id="kc-form-login"[^>]*>(.*?)<div/s.exec(page)?.[1] ?? '';
    const hidden = Object.fromEntries(
      [...form.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)].map((m) => [m[1], m[2]]),
    );
    expect(Object.keys(hidden)).toEqual(['client_id', 'request_uri']);
    const wrong = await submit(idp, 'kari', 'nope', hidden);
    expect(wrong.status).toBe(200);
    expect(wrong.text).toContain(INVALID);
    expect(wrong.text).not.toContain(hidden['request_uri']);
    const retry = /<form id="kc-form-login"[^>]*>(.*?)<div/s.exec(wrong.text)?.[1] ?? '';
    const again = Object.fromEntries(
      [...retry.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)].map((m) => [m[1], m[2]]),
    );
    const right = await submit(idp, 'kari', 'kari-pw', again);
    expect(right.status, right.text).toBe(302);
    expect(await signedInAs(idp, right.headers.get('location'))).toBe('kari');
  });
});

describe('a realm with loginWithEmailAllowed false', () => {
  const idp = useIdp(() => ({ fixtures: harbor({ loginWithEmailAllowed: false, displayName: '' }) }));

  it.each([
    { username: 'kari', status: 302 },
    { username: 'kari@harbor.test', status: 200 },
  ])('$username: $status', async ({ username, status }) => {
    const answer = await submit(idp, username, 'kari-pw');
    expect(answer.status).toBe(status);
  });

  it('labels the field "Username"; the title names the realm when the display name is empty', async () => {
    const page = await (await fetch(`${idp.endpoints.auth}?${new URLSearchParams(AUTHORIZE)}`)).text();
    expect(page).toContain('<label for="username">Username</label>');
    expect(page).toContain('<title>Sign in to harbor</title>');
  });
});

describe('an exported realm with hashed passwords', () => {
  const idp = useIdp({ fixtures: NORTHWIND });
  const fields = {
    response_type: 'code',
    client_id: 'storefront',
    redirect_uri: 'http://localhost:8081/login/oauth2/code/keycloak',
    scope: 'openid',
  };

  it.each([
    { pw: 'anna-password', status: 302 },
    { pw: 'ben-password', status: 200 },
  ])('anna with $pw: $status', async ({ pw, status }) => {
    const answer = await submit(idp, 'anna', pw, fields);
    expect(answer.status).toBe(status);
    if (status === 302)
      expect(new URL(answer.headers.get('location') ?? '').searchParams.get('code')).toBeTruthy();
  });
});

describe('a fixtures (YAML) realm', () => {
  const idp = useIdp();

  it('has the user buttons only, and ignores a posted username and password', async () => {
    const query = { ...AUTHORIZE, client_id: 'teller-web', redirect_uri: 'http://app.fjord.test/cb' };
    const page = await (await fetch(`${idp.endpoints.auth}?${new URLSearchParams(query)}`)).text();
    expect(page).not.toContain('kc-form-login');
    expect(page).toContain('name="login_hint"');
    const answer = await submit(idp, 'ingrid', 'whatever', query);
    expect(answer.status).toBe(200);
    expect(answer.text).not.toContain('input-error');
  });
});

describe('the device page of a Keycloak realm', () => {
  const TV = 'harbor-tv';
  const idp = useIdp(() => ({
    fixtures: harbor({
      users: [
        ...(harbor().users ?? []),
        {
          username: 'ola',
          enabled: true,
          credentials: [{ type: 'password', value: 'ola-temp', temporary: true }],
        },
      ],
      clients: [
        {
          clientId: TV,
          publicClient: true,
          attributes: { 'oauth2.device.authorization.grant.enabled': 'true' },
        },
      ],
    }),
  }));

  /** A device code and its user code, as the device gets them. */
  async function startDevice(): Promise<{ device: string; user: string }> {
    const answer = await postForm<Record<string, string>>(`${idp.endpoints.auth}/device`, {
      client_id: TV,
      scope: 'openid',
    });
    expect(answer.status, answer.text).toBe(200);
    return { device: answer.json['device_code'] ?? '', user: answer.json['user_code'] ?? '' };
  }

  const devicePage = (): string => `${idp.issuer}/device`;
  const poll = (device: string) =>
    postForm<Record<string, string>>(idp.endpoints.token, {
      grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
      device_code: device,
      client_id: TV,
    });
  /** The user the device's tokens are for: its poll answers them, the ID token's preferred_username. */
  async function deviceUser(device: string): Promise<unknown> {
    const tokens = await poll(device);
    expect(tokens.status, tokens.text).toBe(200);
    return (await verifyToken(idp, tokens.json['id_token'] ?? '', TV)).claims['preferred_username'];
  }

  it('has the username and password form after the code; the right password approves for that user', async () => {
    const { device, user } = await startDevice();
    const page = await postForm(devicePage(), { user_code: user });
    expect(page.text).toContain('<form id="kc-form-login"');
    expect(page.text).toContain(`<input type="hidden" name="user_code" value="${user}"`);
    const done = await postForm(devicePage(), {
      user_code: user,
      username: 'kari@harbor.test',
      password: 'kari-pw',
      login: '',
    });
    expect(done.status, done.text).toBe(200);
    expect(await deviceUser(device)).toBe('kari');
  });

  it.each([
    ['a wrong password', 'kari', 'nope', INVALID],
    ['a disabled user', 'per', 'per-pw', DISABLED],
  ])(
    '%s: the page again with Keycloak’s words; the device still waits',
    async (_name, username, pw, words) => {
      const { device, user } = await startDevice();
      const again = await postForm(devicePage(), { user_code: user, username, password: pw, login: '' });
      expect(again.text).toContain(words);
      expect(again.text).toContain(`<input type="hidden" name="user_code" value="${user}"`);
      expect((await poll(device)).json['error']).toBe('authorization_pending');
    },
  );

  it('a user with a temporary password chooses a new one first, then the device gets the tokens', async () => {
    const { device, user } = await startDevice();
    const asked = await postForm(devicePage(), {
      user_code: user,
      username: 'ola',
      password: 'ola-temp',
      login: '',
    });
    expect(asked.status, asked.text).toBe(200);
    expect(asked.text).toContain(
      `<form id="kc-passwd-update-form" class="password" method="post" action="${devicePage()}"`,
    );
    expect(asked.text).toContain(`<input type="hidden" name="user_code" value="${user}">`);
    expect((await poll(device)).json['error']).toBe('authorization_pending');
    const chosen = updateFields(asked.text);
    expect(Object.keys(chosen)).toEqual(['user_code', 'session_code']);
    const mismatch = await postForm(devicePage(), {
      ...chosen,
      'password-new': 'a',
      'password-confirm': 'b',
    });
    expect(mismatch.text).toContain('Passwords don&#39;t match.');
    const done = await postForm(devicePage(), {
      ...chosen,
      'password-new': 'ola-new',
      'password-confirm': 'ola-new',
    });
    expect(done.status, done.text).toBe(200);
    expect(await deviceUser(device)).toBe('ola');
  });
});

describe('a user with a temporary password (UPDATE_PASSWORD)', () => {
  const idp = useIdp(() => ({
    fixtures: harbor({
      users: [
        {
          username: 'kari',
          enabled: true,
          credentials: [{ type: 'password', value: 'temp-pw', temporary: true }],
        },
        {
          username: 'tove',
          enabled: true,
          credentials: [{ type: 'password', value: 'tove-temp', temporary: true }],
        },
        {
          username: 'tuva',
          enabled: true,
          credentials: [{ type: 'password', value: 'tuva-temp', temporary: true }],
        },
      ],
    }),
  }));

  const update = (fields: Record<string, string>, next: string, confirm: string) =>
    postForm(idp.endpoints.auth, { ...fields, 'password-new': next, 'password-confirm': confirm });

  it("the right password leads to Keycloak's Update password page; the new one signs in, and lasts", async () => {
    const answer = await submit(idp, 'kari', 'temp-pw');
    expect(answer.status, answer.text).toBe(200);
    expect(answer.headers.getSetCookie()).toEqual([]);
    for (const part of [
      '<title>Sign in to Harbor &#60;Ops&#62;</title>',
      '<form id="kc-passwd-update-form"',
      '<input type="password" id="password-new" name="password-new" autocomplete="new-password" autofocus>',
      '<input type="password" id="password-confirm" name="password-confirm" autocomplete="new-password">',
      '<input type="submit" class="primary" value="Submit">',
      'You need to change your password to activate your account.',
      '<input type="hidden" name="state" value="st-form">',
    ])
      expect(answer.text).toContain(part);
    const fields = updateFields(answer.text);
    expect(fields['session_code']).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);

    const empty = await update(fields, '', '');
    expect(empty.text).toContain(
      '<span id="input-error-password" class="error" aria-live="polite">Please specify password.</span>',
    );
    const mismatch = await update(fields, 'new-pw', 'other-pw');
    expect(mismatch.text).toContain(
      '<span id="input-error-password-confirm" class="error" aria-live="polite">Passwords don&#39;t match.</span>',
    );
    expect(mismatch.text).not.toContain('You need to change your password');

    const done = await update(fields, 'new-pw', 'new-pw');
    expect(done.status, done.text).toBe(302);
    expect(await signedInAs(idp, done.headers.get('location'))).toBe('kari');
    // The new password lasts: the form signs in at once with it, and the temporary one is gone.
    const again = await submit(idp, 'kari', 'new-pw');
    expect(again.status, again.text).toBe(302);
    expect((await submit(idp, 'kari', 'temp-pw')).text).toContain(INVALID);
  });

  it('a pushed request: the page posts client_id, a new request_uri and the code; the sign-in keeps its state', async () => {
    const pushed = await postForm(idp.endpoints.par, AUTHORIZE, basic(CLIENT, SECRET));
    expect(pushed.status, pushed.text).toBe(201);
    const first = { client_id: CLIENT, request_uri: String(pushed.json['request_uri']) };
    const asked = await submit(idp, 'tuva', 'tuva-temp', first);
    const fields = updateFields(asked.text);
    expect(Object.keys(fields)).toEqual(['client_id', 'request_uri', 'session_code']);
    const done = await update(fields, 'tuva-new', 'tuva-new');
    expect(done.status, done.text).toBe(302);
    expect(await signedInAs(idp, done.headers.get('location'))).toBe('tuva');
  });

  it('an altered code: the login form again, as after a timed-out login', async () => {
    const answer = await submit(idp, 'tove', 'tove-temp');
    const fields = updateFields(answer.text);
    expect(fields['session_code']).toBeDefined();
    const altered = await update({ ...fields, session_code: `${fields['session_code'] ?? ''}x` }, 'a', 'a');
    expect(altered.status).toBe(200);
    expect(altered.text).toContain('Your login attempt timed out. Login will start from the beginning.');
    expect(altered.text).toContain('<form id="kc-form-login"');
  });
});
