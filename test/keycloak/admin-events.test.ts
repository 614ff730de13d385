// Keycloak's events API over HTTP, as a suite drives it with @keycloak/keycloak-admin-client: nothing saved
// until the realm turns events on (through the admin API or its realm JSON); each sign-in, token, logout,
// introspection and userinfo request then found by findEvents with Keycloak's type, client, user, session and
// details (never a token or password); the filters, newest first and paging; clearing; admin events of a user
// made, changed and deleted; bad query values a 400; and, with Redis, events recorded at one replica listed at
// another.
import type KcAdminClient from '@keycloak/keycloak-admin-client';
import type EventRepresentation from '@keycloak/keycloak-admin-client/lib/defs/eventRepresentation.js';
import * as client from 'openid-client';
import { decodeJwt } from 'jose';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { KeycloakRealmInput } from '../../src/fixtures/keycloak/schema.js';
import { adminClient, adminRequest, clientConfig, passwordAccessToken } from '../helpers/admin.js';
import { ACCESS_TOKEN_TYPE } from '../helpers/grants.js';
import { basic, postForm } from '../helpers/http.js';
import { SKIP_REDIS, useRedis } from '../helpers/redis.js';
import { useIdp, type TestIdp } from '../helpers/server.js';

const REALM = 'harbor';
const CB = 'http://localhost:3000/cb';
const CLIENT = 'web';
const SECRET = 'web-secret';
const KARI = '0c6f7c2e-5a8b-4d3e-9f10-2b3c4d5e6f70';
const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';

/** The types the flows below make: the ones Keycloak saves by default, and those it does not. */
const TYPES = [
  'LOGIN',
  'LOGIN_ERROR',
  'CODE_TO_TOKEN',
  'CODE_TO_TOKEN_ERROR',
  'REFRESH_TOKEN',
  'REFRESH_TOKEN_ERROR',
  'CLIENT_LOGIN',
  'CLIENT_LOGIN_ERROR',
  'LOGOUT',
  'TOKEN_EXCHANGE',
  'INTROSPECT_TOKEN',
  'USER_INFO_REQUEST',
];

/** A realm file's realm: Kari, and a confidential client allowed every flow. */
function harbor(extra: Partial<KeycloakRealmInput> = {}): KeycloakRealmInput {
  return {
    realm: REALM,
    users: [
      {
        id: KARI,
        username: 'kari',
        enabled: true,
        credentials: [{ type: 'password', value: 'kari-pw' }],
      },
    ],
    clients: [
      {
        clientId: CLIENT,
        secret: SECRET,
        redirectUris: [`${CB}*`],
        directAccessGrantsEnabled: true,
        serviceAccountsEnabled: true,
        attributes: { 'standard.token.exchange.enabled': 'true' },
      },
    ],
    ...extra,
  };
}

const AUTHORIZE = { response_type: 'code', client_id: CLIENT, redirect_uri: CB, scope: 'openid', state: 's' };

/** The login form posted as a browser posts it. */
const submit = (idp: TestIdp, username: string, password: string) =>
  postForm(idp.endpoints.auth, { ...AUTHORIZE, username, password, login: '' });

/** The code of a 302 to the redirect URI. */
const codeOf = (location: string | null): string => new URL(location ?? '').searchParams.get('code') ?? '';

const tokenRequest = (idp: TestIdp, body: Record<string, string>, secret = SECRET) =>
  postForm(idp.endpoints.token, body, basic(CLIENT, secret));

/** Kari's tokens by the code flow (the login form, then the code). */
async function codeTokens(idp: TestIdp): Promise<Record<string, unknown>> {
  const login = await submit(idp, 'kari', 'kari-pw');
  expect(login.status, login.text).toBe(302);
  const tokens = await tokenRequest(idp, {
    grant_type: 'authorization_code',
    code: codeOf(login.headers.get('location')),
    redirect_uri: CB,
  });
  expect(tokens.status, tokens.text).toBe(200);
  return tokens.json;
}

const passwordTokens = async (idp: TestIdp) => {
  const config = await clientConfig(idp, REALM, CLIENT, SECRET);
  return client.genericGrantRequest(config, 'password', {
    username: 'kari',
    password: 'kari-pw',
    scope: 'openid',
  });
};

describe('events off: nothing is saved, as in a new Keycloak realm', () => {
  const idp = useIdp(() => ({ fixtures: harbor() }));

  it('a sign-in leaves no event, and the config says events are off with the default types', async () => {
    await passwordAccessToken(idp, REALM, CLIENT, SECRET, 'kari', 'kari-pw');
    const kc = await adminClient(idp, REALM);
    expect(await kc.realms.findEvents({ realm: REALM })).toEqual([]);
    const config = await kc.realms.getConfigEvents({ realm: REALM });
    expect(config).toMatchObject({
      eventsEnabled: false,
      eventsListeners: ['jboss-logging'],
      adminEventsEnabled: false,
      adminEventsDetailsEnabled: false,
    });
    expect(config.enabledEventTypes).toContain('LOGIN');
    expect(config.enabledEventTypes).toContain('CODE_TO_TOKEN');
    expect(config.enabledEventTypes).not.toContain('REFRESH_TOKEN');
    expect(config.eventsExpiration).toBeUndefined();
  });
});

describe.each([
  { how: 'updateConfigEvents', realm: harbor(), turnOn: true },
  { how: 'the realm JSON', realm: harbor({ eventsEnabled: true }), turnOn: false },
])('events turned on through $how', ({ realm, turnOn }) => {
  const idp = useIdp(() => ({ fixtures: realm }));

  it("a password grant is saved as Keycloak's LOGIN, with the grant type; a refresh is not saved by default", async () => {
    const kc = await adminClient(idp, REALM);
    if (turnOn) await kc.realms.updateConfigEvents({ realm: REALM }, { eventsEnabled: true });
    expect((await kc.realms.getConfigEvents({ realm: REALM })).eventsEnabled).toBe(true);
    const tokens = await passwordTokens(idp);
    const config = await clientConfig(idp, REALM, CLIENT, SECRET);
    await client.refreshTokenGrant(config, tokens.refresh_token ?? '');
    const events = await kc.realms.findEvents({ realm: REALM });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'LOGIN',
      realmId: REALM,
      clientId: CLIENT,
      userId: KARI,
      sessionId: tokens['session_state'] ?? decodeJwt(tokens.access_token)['sid'],
      ipAddress: '127.0.0.1',
      details: {
        auth_method: 'openid-connect',
        grant_type: 'password',
        username: 'kari',
        token_id: decodeJwt(tokens.access_token).jti,
        refresh_token_id: decodeJwt(tokens.refresh_token ?? '').jti,
      },
    });
    expect(typeof events[0]?.time).toBe('number');
  });
});

describe('each flow, found by findEvents', () => {
  const idp = useIdp(() => ({ fixtures: harbor({ eventsEnabled: true, enabledEventTypes: TYPES }) }));
  let kc: KcAdminClient;
  beforeAll(async () => {
    kc = await adminClient(idp, REALM);
  });
  beforeEach(async () => {
    await kc.realms.clearEvents({ realm: REALM });
  });

  /** Each flow, and the event it leaves (the newest of its type). */
  const flows: {
    flow: string;
    type: string;
    run: () => Promise<unknown>;
    expected: (made: unknown) => Partial<EventRepresentation>;
  }[] = [
    {
      flow: 'the login form, right password',
      type: 'LOGIN',
      run: () => submit(idp, 'kari', 'kari-pw'),
      expected: () => ({
        clientId: CLIENT,
        userId: KARI,
        details: {
          auth_method: 'openid-connect',
          auth_type: 'code',
          response_type: 'code',
          redirect_uri: CB,
          consent: 'no_consent_required',
          username: 'kari',
          response_mode: 'query',
          code_id: expect.any(String),
        },
      }),
    },
    {
      flow: 'a login_hint sign-in',
      type: 'LOGIN',
      run: () =>
        fetch(`${idp.endpoints.auth}?${new URLSearchParams({ ...AUTHORIZE, login_hint: 'kari' })}`, {
          redirect: 'manual',
        }),
      expected: () => ({
        clientId: CLIENT,
        userId: KARI,
        details: expect.objectContaining({ username: 'kari' }),
      }),
    },
    {
      flow: 'the login form, wrong password',
      type: 'LOGIN_ERROR',
      run: () => submit(idp, 'kari', 'nope'),
      expected: () => ({
        clientId: CLIENT,
        userId: KARI,
        error: 'invalid_user_credentials',
        details: expect.objectContaining({ username: 'kari', redirect_uri: CB }),
      }),
    },
    {
      flow: 'the login form, an unknown user',
      type: 'LOGIN_ERROR',
      run: () => submit(idp, 'nobody', 'nope'),
      expected: () => ({
        clientId: CLIENT,
        error: 'user_not_found',
        details: expect.objectContaining({ username: 'nobody' }),
      }),
    },
    {
      flow: 'a code exchanged',
      type: 'CODE_TO_TOKEN',
      run: () => codeTokens(idp),
      expected: (tokens) => {
        const access = decodeJwt(String((tokens as Record<string, unknown>)['access_token']));
        return {
          clientId: CLIENT,
          userId: KARI,
          sessionId: String(access['sid']),
          details: expect.objectContaining({
            grant_type: 'authorization_code',
            token_id: access.jti,
            code_id: String(access['sid']),
            refresh_token_type: 'Refresh',
            client_auth_method: 'client-secret',
          }),
        };
      },
    },
    {
      flow: 'a code that is not one',
      type: 'CODE_TO_TOKEN_ERROR',
      run: () => tokenRequest(idp, { grant_type: 'authorization_code', code: 'nope', redirect_uri: CB }),
      expected: () => ({ clientId: CLIENT, error: 'invalid_code' }),
    },
    {
      flow: 'a refresh',
      type: 'REFRESH_TOKEN',
      run: async () => {
        const used = (await passwordTokens(idp)).refresh_token ?? '';
        const config = await clientConfig(idp, REALM, CLIENT, SECRET);
        return { used, tokens: await client.refreshTokenGrant(config, used) };
      },
      // The refresh token used, and the one given as the updated one.
      expected: (made) => {
        const { used, tokens } = made as { used: string; tokens: client.TokenEndpointResponse };
        return {
          clientId: CLIENT,
          userId: KARI,
          details: expect.objectContaining({
            grant_type: 'refresh_token',
            token_id: decodeJwt(tokens.access_token).jti,
            refresh_token_id: decodeJwt(used).jti,
            updated_refresh_token_id: decodeJwt(tokens.refresh_token ?? '').jti,
          }),
        };
      },
    },
    {
      flow: 'a refresh token that is not one',
      type: 'REFRESH_TOKEN_ERROR',
      run: () => tokenRequest(idp, { grant_type: 'refresh_token', refresh_token: 'nope' }),
      expected: () => ({ clientId: CLIENT, error: 'invalid_token' }),
    },
    {
      flow: 'client_credentials',
      type: 'CLIENT_LOGIN',
      run: async () => {
        await client.clientCredentialsGrant(await clientConfig(idp, REALM, CLIENT, SECRET));
        const [web] = await kc.clients.find({ clientId: CLIENT });
        return kc.clients.getServiceAccountUser({ id: web?.id ?? '' });
      },
      // The service account's user, as the admin API shows it.
      expected: (user) => ({
        clientId: CLIENT,
        userId: (user as { id: string }).id,
        details: expect.objectContaining({
          grant_type: 'client_credentials',
          username: `service-account-${CLIENT}`,
        }),
      }),
    },
    {
      flow: 'client_credentials with a wrong secret',
      type: 'CLIENT_LOGIN_ERROR',
      run: () => tokenRequest(idp, { grant_type: 'client_credentials' }, 'wrong'),
      expected: () => ({ clientId: CLIENT, error: 'invalid_client_credentials' }),
    },
    {
      flow: 'the password grant, wrong password',
      type: 'LOGIN_ERROR',
      run: () => tokenRequest(idp, { grant_type: 'password', username: 'kari', password: 'nope' }),
      expected: () => ({
        clientId: CLIENT,
        userId: KARI,
        error: 'invalid_user_credentials',
        details: expect.objectContaining({ grant_type: 'password', username: 'kari' }),
      }),
    },
    {
      flow: 'a back-channel logout',
      type: 'LOGOUT',
      run: async () => {
        const tokens = await passwordTokens(idp);
        const answer = await postForm(
          `${idp.issuer}/protocol/openid-connect/logout`,
          { refresh_token: tokens.refresh_token ?? '' },
          basic(CLIENT, SECRET),
        );
        expect(answer.status, answer.text).toBe(204);
        return tokens;
      },
      expected: (tokens) => ({
        clientId: CLIENT,
        userId: KARI,
        sessionId: String(decodeJwt((tokens as client.TokenEndpointResponse).access_token)['sid']),
      }),
    },
    {
      flow: 'a token exchange',
      type: 'TOKEN_EXCHANGE',
      run: async () => {
        const tokens = await passwordTokens(idp);
        const config = await clientConfig(idp, REALM, CLIENT, SECRET);
        return client.genericGrantRequest(config, TOKEN_EXCHANGE, {
          subject_token: tokens.access_token,
          subject_token_type: ACCESS_TOKEN_TYPE,
        });
      },
      expected: () => ({
        clientId: CLIENT,
        userId: KARI,
        details: expect.objectContaining({ grant_type: TOKEN_EXCHANGE }),
      }),
    },
    {
      flow: 'an introspection',
      type: 'INTROSPECT_TOKEN',
      run: async () => {
        const tokens = await passwordTokens(idp);
        const config = await clientConfig(idp, REALM, CLIENT, SECRET);
        return client.tokenIntrospection(config, tokens.access_token);
      },
      expected: () => ({ clientId: CLIENT, sessionId: expect.any(String) }),
    },
    {
      flow: 'a userinfo request',
      type: 'USER_INFO_REQUEST',
      run: async () => {
        const tokens = await passwordTokens(idp);
        const config = await clientConfig(idp, REALM, CLIENT, SECRET);
        const sub = String(decodeJwt(tokens.access_token).sub);
        return client.fetchUserInfo(config, tokens.access_token, sub);
      },
      expected: () => ({ clientId: CLIENT, userId: KARI, details: { auth_method: 'validate_access_token' } }),
    },
  ];

  it.each(flows)('$flow: $type', async ({ type, run, expected }) => {
    const made = await run();
    const [event, ...others] = await kc.realms.findEvents({ realm: REALM, type: type as 'LOGIN' });
    expect(event).toMatchObject({ type, realmId: REALM, ipAddress: '127.0.0.1', ...expected(made) });
    expect(others).toHaveLength(0);
    // The error string only on an error event; never a token, code or password.
    if (!type.endsWith('_ERROR')) expect(event?.error).toBeUndefined();
    const all = JSON.stringify(await kc.realms.findEvents({ realm: REALM }));
    for (const secret of ['kari-pw', SECRET, 'nope', 'wrong']) expect(all).not.toContain(`"${secret}"`);
    const tokens = made as
      { access_token?: unknown; refresh_token?: unknown; id_token?: unknown } | undefined;
    for (const token of [tokens?.access_token, tokens?.refresh_token, tokens?.id_token])
      if (typeof token === 'string') expect(all).not.toContain(token);
  });
});

describe('filters, order, paging and clearing', () => {
  const idp = useIdp(() => ({ fixtures: harbor({ eventsEnabled: true, enabledEventTypes: TYPES }) }));
  let kc: KcAdminClient;
  let today: string;
  beforeAll(async () => {
    kc = await adminClient(idp, REALM);
    for (let i = 0; i < 3; i++) await passwordTokens(idp);
    await client.clientCredentialsGrant(await clientConfig(idp, REALM, CLIENT, SECRET));
    await tokenRequest(idp, { grant_type: 'password', username: 'kari', password: 'nope' });
    today = idp.clock.now().toISOString().slice(0, 10);
  });

  const count = async (query: Record<string, unknown>) =>
    (await kc.realms.findEvents({ realm: REALM, ...query })).map((e) => e.type);

  it.each([
    { filter: 'none', query: {}, types: ['LOGIN_ERROR', 'CLIENT_LOGIN', 'LOGIN', 'LOGIN', 'LOGIN'] },
    { filter: 'one type', query: { type: 'LOGIN' }, types: ['LOGIN', 'LOGIN', 'LOGIN'] },
    {
      filter: 'two types',
      query: { type: ['LOGIN_ERROR', 'CLIENT_LOGIN'] },
      types: ['LOGIN_ERROR', 'CLIENT_LOGIN'],
    },
    { filter: 'the user', query: { user: KARI }, types: ['LOGIN_ERROR', 'LOGIN', 'LOGIN', 'LOGIN'] },
    { filter: 'another client', query: { client: 'other' }, types: [] },
    {
      filter: 'the address',
      query: { ipAddress: '127.0.0.1' },
      types: ['LOGIN_ERROR', 'CLIENT_LOGIN', 'LOGIN', 'LOGIN', 'LOGIN'],
    },
    { filter: 'another address', query: { ipAddress: '10.0.0.1' }, types: [] },
    { filter: 'max', query: { max: 2 }, types: ['LOGIN_ERROR', 'CLIENT_LOGIN'] },
    { filter: 'first and max', query: { first: 1, max: 2 }, types: ['CLIENT_LOGIN', 'LOGIN'] },
    { filter: 'first past the end', query: { first: 9 }, types: [] },
  ])('$filter: newest first', async ({ query, types }) => {
    expect(await count(query)).toEqual(types);
  });

  it('dateFrom and dateTo: a day (yyyy-MM-dd, whole days, UTC) or epoch milliseconds', async () => {
    const [newest] = await kc.realms.findEvents({ realm: REALM, max: 1 });
    const time = newest?.time ?? 0;
    expect(await count({ dateFrom: today, dateTo: today })).toHaveLength(5);
    expect(await count({ dateTo: '2001-01-01' })).toEqual([]);
    expect(await count({ dateFrom: String(time + 1) })).toEqual([]);
    expect(await count({ dateFrom: String(time), dateTo: String(time) })).toContain('LOGIN_ERROR');
  });

  it('max is 100 unless given, as Keycloak', async () => {
    for (let i = 0; i < 100; i++)
      await tokenRequest(idp, { grant_type: 'password', username: 'kari', password: 'nope' });
    expect(await count({})).toHaveLength(100);
    expect(await count({ max: 200 })).toHaveLength(105);
    expect(await count({ first: 100 })).toHaveLength(5);
    const asc = await adminRequest(idp, kc, REALM, 'GET', '/events?direction=asc&max=1');
    expect((asc.json as unknown as EventRepresentation[])[0]?.type).toBe('LOGIN');
  });

  it('clearEvents empties the list; later events are saved again', async () => {
    await kc.realms.clearEvents({ realm: REALM });
    expect(await count({})).toEqual([]);
    await passwordTokens(idp);
    expect(await count({})).toEqual(['LOGIN']);
  });
});

describe('admin events', () => {
  const idp = useIdp(() => ({ fixtures: harbor() }));

  it.each([
    { details: true, representation: true },
    { details: false, representation: false },
  ])(
    'a user created, updated and deleted: CREATE, UPDATE, DELETE of USER users/{id} (details $details)',
    async ({ details, representation }) => {
      const kc = await adminClient(idp, REALM);
      await kc.realms.clearAdminEvents({ realm: REALM });
      await kc.realms.updateConfigEvents(
        { realm: REALM },
        { adminEventsEnabled: true, adminEventsDetailsEnabled: details },
      );
      const { id } = await kc.users.create({
        username: `ola-${String(details)}`,
        enabled: true,
        credentials: [{ type: 'password', value: 'ola-secret-pw', temporary: false }],
      });
      await kc.users.update({ id }, { firstName: 'Ola' });
      await kc.users.del({ id });
      const events = await kc.realms.findAdminEvents({ realm: REALM, resourceTypes: 'USER' });
      expect(events.map((e) => [e.operationType, e.resourceType, e.resourcePath])).toEqual([
        ['DELETE', 'USER', `users/${id}`],
        ['UPDATE', 'USER', `users/${id}`],
        ['CREATE', 'USER', `users/${id}`],
      ]);
      const master = await adminRequest(idp, kc, 'master', 'GET', '');
      const admin = (await kc.users.find({ realm: 'master', username: 'admin', exact: true }))[0];
      expect(events[2]).toMatchObject({
        realmId: REALM,
        authDetails: {
          realmId: master.json['id'],
          clientId: 'admin-cli',
          userId: admin?.id,
          ipAddress: '127.0.0.1',
        },
      });
      if (representation) {
        expect(JSON.parse(events[2]?.representation ?? '{}')).toMatchObject({
          username: `ola-${String(details)}`,
        });
        expect(events[2]?.representation).not.toContain('ola-secret-pw');
      } else for (const e of events) expect(e.representation).toBeUndefined();
      // The events config change itself is an admin event of the realm.
      const realmEvents = await kc.realms.findAdminEvents({
        realm: REALM,
        operationTypes: 'UPDATE',
        resourceTypes: 'REALM',
      });
      expect(realmEvents.map((e) => e.resourcePath)).toContain('events/config');
      await kc.realms.clearAdminEvents({ realm: REALM });
      expect(await kc.realms.findAdminEvents({ realm: REALM })).toEqual([]);
      await kc.realms.updateConfigEvents({ realm: REALM }, { adminEventsEnabled: false });
    },
  );

  it('nothing is saved while admin events are off', async () => {
    const kc = await adminClient(idp, REALM);
    await kc.users.create({ username: 'unseen', enabled: true });
    expect(await kc.realms.findAdminEvents({ realm: REALM })).toEqual([]);
  });
});

describe("bad query values: Keycloak's 400, never a 500", () => {
  const idp = useIdp(() => ({ fixtures: harbor() }));

  it.each([
    { path: '/events?type=NOPE', error: "Invalid value for 'type'" },
    {
      path: '/events?dateFrom=x',
      error: "Invalid value for 'dateFrom', expected format is yyyy-MM-dd or an Epoch timestamp",
    },
    {
      path: '/events?dateTo=2020-13-45',
      error: "Invalid value for 'dateTo', expected format is yyyy-MM-dd or an Epoch timestamp",
    },
    {
      path: '/events?direction=DESC',
      error: 'Invalid value for sortDirection, expected value is asc or desc',
    },
    { path: '/events?first=abc', error: undefined },
    { path: '/events?max=1.5', error: undefined },
    { path: '/admin-events?operationTypes=NOPE', error: "Invalid value for 'operationTypes'" },
    { path: '/admin-events?resourceTypes=NOPE', error: "Invalid value for 'resourceTypes'" },
    { path: '/admin-events?dateFrom=2020-02-30', error: "Invalid value for 'dateFrom'" },
  ])('$path', async ({ path, error }) => {
    const kc = await adminClient(idp, REALM);
    const answer = await adminRequest(idp, kc, REALM, 'GET', path);
    expect(answer.status, answer.text).toBe(400);
    if (error !== undefined) expect(String(answer.json['error'])).toContain(error);
  });

  it('an unknown field of the events config is a 400', async () => {
    const kc = await adminClient(idp, REALM);
    const answer = await adminRequest(idp, kc, REALM, 'PUT', '/events/config', { eventsEnabeld: true });
    expect(answer.status, answer.text).toBe(400);
  });
});

describe.skipIf(SKIP_REDIS)('two replicas on one Redis', () => {
  const redis = useRedis();
  const a = useIdp(() => ({ fixtures: harbor({ eventsEnabled: true }), store: redis.url }));
  const b = useIdp(() => ({ fixtures: harbor({ eventsEnabled: true }), store: redis.url }));

  it('an event recorded at A is listed at B; cleared at B, it is gone at A', async () => {
    const atB = await adminClient(b, REALM);
    const atA = await adminClient(a, REALM);
    await atB.realms.clearEvents({ realm: REALM });
    await passwordTokens(a);
    await expect
      .poll(async () => (await atB.realms.findEvents({ realm: REALM })).map((e) => e.type))
      .toEqual(['LOGIN']);
    await atB.realms.clearEvents({ realm: REALM });
    expect(await atA.realms.findEvents({ realm: REALM })).toEqual([]);
  });
});
