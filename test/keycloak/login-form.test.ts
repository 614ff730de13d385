// A Keycloak realm's login page over HTTP: the username and password form with Keycloak's ids and names, posted
// as a browser posts it (right password: a code; wrong, unknown, disabled: the page again with Keycloak's
// words), the email as username, the realm's display name in the title, what is echoed (escaped) and what is
// not, a pushed request through the form, and a fixtures (YAML) realm without the form.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { KeycloakRealmInput } from '../../src/fixtures/keycloak/schema.js';
import { exchangeCode } from '../helpers/flows.js';
import { basic, postForm } from '../helpers/http.js';
import { verifyToken, type Claims } from '../helpers/jwt.js';
import { adminClient } from '../helpers/admin.js';
import { useIdp, Y2030, type TestIdp } from '../helpers/server.js';

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

/** The ID token's claims a code is for: exchanged by the client, verified with jose. */
async function signedInClaims(idp: TestIdp, location: string | null): Promise<Claims> {
  const callback = new URL(location ?? '');
  expect(callback.searchParams.get('state')).toBe('st-form');
  const tokens = await exchangeCode(idp, callback.searchParams.get('code') ?? '', {
    redirectUri: CB,
    authorization: basic(CLIENT, SECRET),
  });
  expect(tokens.status, tokens.text).toBe(200);
  return (await verifyToken(idp, tokens.json.id_token as string, CLIENT)).claims;
}

/** The user a code is for: the ID token's preferred_username. */
async function signedInAs(idp: TestIdp, location: string | null): Promise<unknown> {
  return (await signedInClaims(idp, location))['preferred_username'];
}

/** The hidden fields of a required action's form (they follow its opening tag, on its line). */
function updateFields(page: string, formId = 'kc-passwd-update-form'): Record<string, string> {
  const form = new RegExp(`<form id="${formId}"[^>]*>(.*?)\n`).exec(page)?.[1] ?? '';
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
        user('lea', {
          email: 'lea@harbor.test',
          requiredActions: ['UPDATE_PROFILE', 'TERMS_AND_CONDITIONS'],
        }),
        user('leo', { requiredActions: ['TERMS_AND_CONDITIONS'] }),
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

  it('a user with required actions: their pages in order (each with the user code), then the device gets the tokens', async () => {
    const { device, user: userCode } = await startDevice();
    expect((await poll(device)).json['error']).toBe('authorization_pending');
    let page = await postForm(devicePage(), {
      user_code: userCode,
      username: 'lea',
      password: 'lea-pw',
      login: '',
    });
    for (const step of ['TERMS_AND_CONDITIONS', 'UPDATE_PROFILE'] as const) {
      expect(page.text).toContain(
        `<form id="${DONE[step].form}" class="password" method="post" action="${devicePage()}"`,
      );
      const fields = updateFields(page.text, DONE[step].form);
      expect(Object.keys(fields)).toEqual(['user_code', 'session_code']);
      page = await postForm(devicePage(), { ...fields, ...DONE[step].post('lea') });
    }
    expect(page.status, page.text).toBe(200);
    expect(page.text).toContain('id="device-done"');
    expect(await deviceUser(device)).toBe('lea');
  });

  it("Terms and Conditions' Decline denies the device", async () => {
    const { device, user: userCode } = await startDevice();
    const terms = await postForm(devicePage(), {
      user_code: userCode,
      username: 'leo',
      password: 'leo-pw',
      login: '',
    });
    const declined = await postForm(devicePage(), {
      ...updateFields(terms.text, 'kc-terms-form'),
      cancel: '',
    });
    expect(declined.text).toContain('id="device-denied"');
    expect((await poll(device)).json['error']).toBe('access_denied');
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

/** What a required action's page is posted with to be done, by the action (a new email of each user's own). */
const DONE = {
  TERMS_AND_CONDITIONS: { form: 'kc-terms-form', post: () => ({ accept: '' }) },
  UPDATE_PASSWORD: {
    form: 'kc-passwd-update-form',
    post: () => ({ 'password-new': 'chosen-pw', 'password-confirm': 'chosen-pw' }),
  },
  UPDATE_PROFILE: {
    form: 'kc-update-profile-form',
    post: (username: string) => ({
      email: ` ${username}@New.Harbor.test `,
      firstName: 'Ny',
      lastName: 'Navnesen',
    }),
  },
  VERIFY_EMAIL: { form: 'kc-verify-email-form', post: () => ({ 'verify-email': 'link' }) },
} as const;
type Step = keyof typeof DONE;

const user = (username: string, fields: Partial<UserInput> = {}): UserInput => ({
  username,
  enabled: true,
  credentials: password(`${username}-pw`),
  ...fields,
});
type UserInput = NonNullable<KeycloakRealmInput['users']>[number];

describe('required actions on the login form', () => {
  const idp = useIdp(() => ({
    clock: Y2030,
    frozen: true,
    fixtures: harbor({
      users: [
        user('tor', { requiredActions: ['TERMS_AND_CONDITIONS'] }),
        user('tage', { requiredActions: ['terms_and_conditions'] }),
        user('anna', { email: 'anna@harbor.test', firstName: 'Anna', requiredActions: ['UPDATE_PROFILE'] }),
        user('vera', { email: 'vera@harbor.test', requiredActions: ['VERIFY_EMAIL'] }),
        user('kim', {
          email: 'kim@harbor.test',
          emailVerified: true,
          requiredActions: ['VERIFY_EMAIL', 'UPDATE_PROFILE', 'TERMS_AND_CONDITIONS', 'UPDATE_PASSWORD'],
        }),
        user('kaja', {
          email: 'kaja@harbor.test',
          requiredActions: ['UPDATE_PROFILE', 'TERMS_AND_CONDITIONS'],
        }),
        user('otto', { requiredActions: ['CONFIGURE_TOTP', 'my-custom-action'] }),
        user('nils', { requiredActions: ['VERIFY_EMAIL'] }),
        user('vida', { email: 'vida@harbor.test', emailVerified: true, requiredActions: ['VERIFY_EMAIL'] }),
        user('vic', { email: 'vic@harbor.test', requiredActions: ['VERIFY_EMAIL'] }),
        user('bo', {
          email: 'bo@harbor.test',
          firstName: 'Bo',
          lastName: 'Ek',
          requiredActions: ['UPDATE_PROFILE'],
        }),
        user('tea', { requiredActions: ['TERMS_AND_CONDITIONS'] }),
        user('dan', {
          requiredActions: ['TERMS_AND_CONDITIONS'],
          attributes: { terms_and_conditions: ['1'] },
        }),
      ],
    }),
  }));

  /** The user as the admin API shows it. */
  async function adminUser(username: string) {
    const kc = await adminClient(idp, 'harbor');
    const [found] = await kc.users.find({ username, exact: true });
    expect(found, username).toBeDefined();
    return found ?? {};
  }

  /** Posts each step's page as done, checking it is the page shown; answers what the last post answered. */
  async function walk(username: string, steps: readonly Step[]) {
    const first = await submit(idp, username, `${username}-pw`);
    let page = first;
    for (const step of steps) {
      expect(page.status, `${step}: ${page.text}`).toBe(200);
      expect(page.text).toContain(`<form id="${DONE[step].form}" class="password" method="post"`);
      expect(page.headers.getSetCookie()).toEqual([]);
      page = await postForm(idp.endpoints.auth, {
        ...updateFields(page.text, DONE[step].form),
        ...DONE[step].post(username),
      });
    }
    return page;
  }

  it.each([
    {
      username: 'tor',
      steps: ['TERMS_AND_CONDITIONS'],
      left: [],
      attributes: { terms_and_conditions: [String(Y2030)] },
    },
    {
      username: 'tage',
      steps: ['TERMS_AND_CONDITIONS'],
      left: [],
      attributes: { terms_and_conditions: [String(Y2030)] },
    },
    {
      username: 'anna',
      steps: ['UPDATE_PROFILE'],
      left: [],
      profile: { email: 'anna@new.harbor.test', firstName: 'Ny', lastName: 'Navnesen', emailVerified: false },
      claims: {
        email: 'anna@new.harbor.test',
        given_name: 'Ny',
        family_name: 'Navnesen',
        email_verified: false,
      },
    },
    {
      username: 'vera',
      steps: ['VERIFY_EMAIL'],
      left: [],
      profile: { email: 'vera@harbor.test', emailVerified: true },
      claims: { email_verified: true },
    },
    {
      // In Keycloak's order whatever the user's; the new email is verified by the last page.
      username: 'kim',
      steps: ['TERMS_AND_CONDITIONS', 'UPDATE_PASSWORD', 'UPDATE_PROFILE', 'VERIFY_EMAIL'],
      left: [],
      profile: { email: 'kim@new.harbor.test', emailVerified: true },
      attributes: { terms_and_conditions: [String(Y2030)] },
      password: 'chosen-pw',
    },
    // No page for these: the sign-in goes on, and they stay pending.
    { username: 'otto', steps: [], left: ['CONFIGURE_TOTP', 'my-custom-action'] },
    // As Keycloak: no email to verify, the action is skipped; one already verified is done without a page.
    { username: 'nils', steps: [], left: ['VERIFY_EMAIL'] },
    { username: 'vida', steps: [], left: [], profile: { emailVerified: true } },
  ] as {
    username: string;
    steps: Step[];
    left: string[];
    profile?: Record<string, unknown>;
    attributes?: Record<string, string[]>;
    claims?: Record<string, unknown>;
    password?: string;
  }[])(
    '$username: the pages of $steps, then a code; the admin API shows $left left',
    async ({ username, steps, left, profile, attributes, claims, password: chosen }) => {
      const done = await walk(username, steps);
      expect(done.status, done.text).toBe(302);
      const idToken = await signedInClaims(idp, done.headers.get('location'));
      expect(idToken['preferred_username']).toBe(username);
      expect(idToken).toMatchObject(claims ?? {});
      const shown = await adminUser(username);
      expect(shown.requiredActions).toEqual(left);
      expect(shown).toMatchObject(profile ?? {});
      if (attributes !== undefined) expect(shown.attributes).toMatchObject(attributes);
      else expect(shown.attributes?.['terms_and_conditions']).toBeUndefined();
      // Done is done: the next sign-in goes straight in (with the new password when one was chosen).
      const again = await submit(idp, username, chosen ?? `${username}-pw`);
      expect(again.status, again.text).toBe(302);
    },
  );

  it("shows Keycloak's pages: titles, fields filled in, the email to verify, Accept and Decline", async () => {
    const profile = await submit(idp, 'bo', 'bo-pw');
    for (const part of [
      '<title>Sign in to Harbor &#60;Ops&#62;</title>',
      '<h1 id="kc-page-title">Update Account Information</h1>',
      'You need to update your user profile to activate your account.',
      '<input type="email" id="email" name="email" value="bo@harbor.test" autocomplete="email" autofocus>',
      '<input type="text" id="firstName" name="firstName" value="Bo" autocomplete="given-name">',
      '<input type="text" id="lastName" name="lastName" value="Ek" autocomplete="family-name">',
      '<input type="submit" id="kc-submit" class="primary" value="Submit">',
      '<input type="hidden" name="state" value="st-form">',
    ])
      expect(profile.text).toContain(part);
    // The username only where the realm lets users change it.
    expect(profile.text).not.toContain('id="username"');
    const verify = await submit(idp, 'vic', 'vic-pw');
    for (const part of [
      '<h1 id="kc-page-title">Email verification</h1>',
      'An email with instructions to verify your email address has been sent to your address vic@harbor.test.',
      '<button type="submit" id="mock-verify-email" name="verify-email" value="link" class="primary">',
    ])
      expect(verify.text).toContain(part);
    const terms = await submit(idp, 'tea', 'tea-pw');
    for (const part of [
      '<h1 id="kc-page-title">Terms and Conditions</h1>',
      '<button type="submit" id="kc-accept" name="accept" class="primary">Accept</button>',
      '<button type="submit" id="kc-decline" name="cancel" class="cancel">Decline</button>',
    ])
      expect(terms.text).toContain(part);
  });

  const TIMED_OUT = 'Your login attempt timed out. Login will start from the beginning.';
  const fieldError = (field: string, message: string) =>
    `<span id="input-error-${field}" class="error" aria-live="polite">${message}</span>`;
  const PROFILE = { email: 'bo@harbor.test', firstName: 'Bo', lastName: 'Ek' };

  it.each([
    {
      why: 'no first name',
      username: 'bo',
      post: { ...PROFILE, firstName: ' ' },
      shows: [fieldError('firstName', 'Please specify this field.'), 'value="bo@harbor.test"'],
    },
    {
      why: 'no last name',
      username: 'bo',
      post: { ...PROFILE, lastName: '' },
      shows: [fieldError('lastName', 'Please specify this field.')],
    },
    {
      why: 'no email',
      username: 'bo',
      post: { firstName: 'Bo', lastName: 'Ek' },
      shows: [fieldError('email', 'Please specify this field.')],
    },
    {
      why: 'a malformed email',
      username: 'bo',
      post: { ...PROFILE, email: 'bo at harbor' },
      shows: [fieldError('email', 'Invalid email address.'), 'value="bo at harbor"'],
    },
    {
      why: "another user's email",
      username: 'bo',
      post: { ...PROFILE, email: 'VERA@harbor.test' },
      shows: [fieldError('email', 'Email already exists.')],
    },
    {
      why: 'a name with a prohibited character',
      username: 'bo',
      post: { ...PROFILE, lastName: '<Ek>' },
      shows: [fieldError('lastName', 'Value contains invalid character.'), 'value="&#60;Ek&#62;"'],
    },
    {
      why: 'a name too long',
      username: 'bo',
      post: { ...PROFILE, firstName: 'B'.repeat(256) },
      shows: [fieldError('firstName', 'Maximal length is 255.')],
    },
    {
      why: 'an email with a control character',
      username: 'bo',
      post: { ...PROFILE, email: 'bo\u0000@harbor.test' },
      shows: [fieldError('email', 'Invalid email address.')],
    },
    {
      why: 'Email verification without its button',
      username: 'vic',
      post: {},
      shows: ['<form id="kc-verify-email-form"'],
    },
    {
      why: 'Terms without Accept or Decline',
      username: 'tea',
      post: { other: 'x' },
      shows: ['<form id="kc-terms-form"'],
    },
    {
      why: 'an altered code',
      username: 'bo',
      post: PROFILE,
      code: (c: string) => `${c.slice(0, -2)}xx`,
      shows: [TIMED_OUT, '<form id="kc-form-login"'],
    },
    { why: 'no code', username: 'bo', post: PROFILE, code: () => '', shows: [TIMED_OUT] },
    {
      why: 'an expired code (5 minutes on)',
      username: 'bo',
      post: PROFILE,
      advance: 301,
      shows: [TIMED_OUT],
    },
  ] as {
    why: string;
    username: string;
    post: Record<string, string>;
    shows: string[];
    code?: (code: string) => string;
    advance?: number;
  }[])('$why: 200, the page again (or the login form), nothing saved', async (row) => {
    const asked = await submit(idp, row.username, `${row.username}-pw`);
    const formId = /<form id="([^"]*)" class="password"/.exec(asked.text)?.[1] ?? '';
    const fields = updateFields(asked.text, formId);
    if (row.code !== undefined) fields['session_code'] = row.code(fields['session_code'] ?? '');
    if (row.advance !== undefined) idp.clock.advance(row.advance);
    try {
      const answer = await postForm(idp.endpoints.auth, { ...fields, ...row.post });
      expect(answer.status, answer.text).toBe(200);
      for (const part of row.shows) expect(answer.text).toContain(part);
      expect(answer.headers.getSetCookie()).toEqual([]);
    } finally {
      if (row.advance !== undefined) idp.clock.advance(-row.advance);
    }
    expect((await adminUser(row.username)).requiredActions).not.toEqual([]);
  });

  it('Decline: access_denied at the redirect URI; the action stays and the acceptance is forgotten', async () => {
    const terms = await submit(idp, 'dan', 'dan-pw');
    const declined = await postForm(idp.endpoints.auth, {
      ...updateFields(terms.text, 'kc-terms-form'),
      cancel: '',
    });
    expect(declined.status, declined.text).toBe(302);
    const callback = new URL(declined.headers.get('location') ?? '');
    expect(callback.searchParams.get('error')).toBe('access_denied');
    expect(callback.searchParams.get('state')).toBe('st-form');
    expect(callback.searchParams.get('code')).toBeNull();
    const shown = await adminUser('dan');
    expect(shown.requiredActions).toEqual(['TERMS_AND_CONDITIONS']);
    expect(shown.attributes?.['terms_and_conditions']).toBeUndefined();
  });

  it('a pushed request: each page posts client_id, a new request_uri and the code; the sign-in keeps its state', async () => {
    const pushed = await postForm(idp.endpoints.par, AUTHORIZE, basic(CLIENT, SECRET));
    expect(pushed.status, pushed.text).toBe(201);
    let page = await submit(idp, 'kaja', 'kaja-pw', {
      client_id: CLIENT,
      request_uri: String(pushed.json['request_uri']),
    });
    for (const step of ['TERMS_AND_CONDITIONS', 'UPDATE_PROFILE'] as const) {
      const fields = updateFields(page.text, DONE[step].form);
      expect(Object.keys(fields)).toEqual(['client_id', 'request_uri', 'session_code']);
      page = await postForm(idp.endpoints.auth, { ...fields, ...DONE[step].post('kaja') });
    }
    expect(page.status, page.text).toBe(302);
    expect(await signedInAs(idp, page.headers.get('location'))).toBe('kaja');
  });
});

describe("a realm's own required-action definitions", () => {
  const idp = useIdp(() => ({
    fixtures: harbor({
      requiredActions: [
        { alias: 'TERMS_AND_CONDITIONS', enabled: false, priority: 20 },
        { alias: 'VERIFY_EMAIL', enabled: true, priority: 5 },
      ],
      users: [
        user('ulf', {
          email: 'ulf@harbor.test',
          requiredActions: ['UPDATE_PASSWORD', 'TERMS_AND_CONDITIONS', 'VERIFY_EMAIL'],
        }),
      ],
    }),
  }));

  it('runs by their priority, and skips a disabled one (it stays pending)', async () => {
    const verify = await submit(idp, 'ulf', 'ulf-pw');
    expect(verify.text).toContain('<form id="kc-verify-email-form"');
    const update = await postForm(idp.endpoints.auth, {
      ...updateFields(verify.text, 'kc-verify-email-form'),
      'verify-email': 'link',
    });
    expect(update.text).toContain('<form id="kc-passwd-update-form"');
    const done = await postForm(idp.endpoints.auth, {
      ...updateFields(update.text),
      ...DONE.UPDATE_PASSWORD.post(),
    });
    expect(done.status, done.text).toBe(302);
    const kc = await adminClient(idp, 'harbor');
    const [shown] = await kc.users.find({ username: 'ulf', exact: true });
    expect(shown?.requiredActions).toEqual(['TERMS_AND_CONDITIONS']);
  });
});

describe('a realm with editUsernameAllowed', () => {
  const idp = useIdp(() => ({
    fixtures: harbor({
      editUsernameAllowed: true,
      users: [
        user('rolf', {
          email: 'rolf@harbor.test',
          firstName: 'Rolf',
          lastName: 'Berg',
          requiredActions: ['UPDATE_PROFILE'],
        }),
        user('siri', { email: 'siri@harbor.test' }),
      ],
    }),
  }));
  const PROFILE = { email: 'rolf@harbor.test', firstName: 'Rolf', lastName: 'Berg' };

  it('Update Account Information has the username: refused when empty or taken, else the user signs in renamed', async () => {
    const asked = await submit(idp, 'rolf', 'rolf-pw');
    expect(asked.text).toContain(
      '<input type="text" id="username" name="username" value="rolf" autocomplete="username" autofocus>',
    );
    const fields = updateFields(asked.text, 'kc-update-profile-form');
    for (const [username, message] of [
      ['', 'Please specify username.'],
      ['SIRI', 'Username already exists.'],
      ['ro', 'Length must be between 3 and 200.'],
      ['r'.repeat(201), 'Length must be between 3 and 200.'],
      ['rolf berg', 'Value contains invalid character.'],
      ['rolf\u0000', 'Value contains invalid character.'],
    ] as const) {
      const refused = await postForm(idp.endpoints.auth, { ...fields, ...PROFILE, username });
      expect(refused.text).toContain(
        `<span id="input-error-username" class="error" aria-live="polite">${message}</span>`,
      );
    }
    const done = await postForm(idp.endpoints.auth, { ...fields, ...PROFILE, username: ' Rolf.Berg ' });
    expect(done.status, done.text).toBe(302);
    expect(await signedInAs(idp, done.headers.get('location'))).toBe('rolf.berg');
    // The new name signs in at once, with nothing left to do.
    expect((await submit(idp, 'rolf.berg', 'rolf-pw')).status).toBe(302);
  });
});
