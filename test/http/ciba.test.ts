// CIBA poll mode (OpenID CIBA Core 1.0): openid-client 6 starts a backchannel authentication, a script approves
// it at POST /mock/ciba (or the client's cibaAutoApproveSeconds pass on the mock clock), and the poll gives a
// token set verified with jose; every refusal at both endpoints.
import * as oidc from 'openid-client';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { CIBA, grantsFixtures } from '../helpers/grants.js';
import { basicFor } from '../helpers/flows.js';
import { basic, call, get, postForm, type Answer } from '../helpers/http.js';
import { verifyToken } from '../helpers/jwt.js';
import { useIdp, Y2030 } from '../helpers/server.js';

const idp = useIdp(() => ({
  fixtures: grantsFixtures({
    'branch-desk': { secret: 'desk-pass', grants: [CIBA], scopes: ['openid', 'profile', 'ledger.read'] },
    'branch-auto': { secret: 'auto-pass', grants: [CIBA], scopes: ['openid'], cibaAutoApproveSeconds: 30 },
  }),
  clock: Y2030,
  frozen: true,
}));

const cibaEndpoint = (): string => `${idp.issuer}/protocol/openid-connect/ext/ciba/auth`;
const mock = (path: string): string => `${idp.issuer}/mock${path}`;
const DESK = basic('branch-desk', 'desk-pass');
const AUTO = basic('branch-auto', 'auto-pass');

async function start(body: Record<string, string> = {}, authorization = DESK): Promise<string> {
  const answer = await postForm(
    cibaEndpoint(),
    { scope: 'openid', login_hint: 'ingrid', ...body },
    authorization,
  );
  expect(answer.status, answer.text).toBe(200);
  return answer.json['auth_req_id'] as string;
}

const poll = (id: string, authorization = DESK): Promise<Answer> =>
  postForm(idp.endpoints.token, { grant_type: CIBA, auth_req_id: id }, authorization);
const decide = (body: Record<string, unknown>): Promise<Answer> => call('POST', mock('/ciba'), body);
const advance = (seconds: number): Promise<Answer> => call('POST', mock('/clock'), { seconds });

beforeEach(async () => {
  await call('PUT', mock('/clock'), { now: Y2030, frozen: true });
});

describe('CIBA poll mode', () => {
  it('discovery names the backchannel endpoint, poll mode only, no user_code', async () => {
    const { json } = await get(idp.endpoints.discovery);
    expect(json).toMatchObject({
      backchannel_authentication_endpoint: cibaEndpoint(),
      backchannel_token_delivery_modes_supported: ['poll'],
      backchannel_user_code_parameter_supported: false,
    });
    expect(json['grant_types_supported']).toContain(CIBA);
  });

  it('answers auth_req_id, expires_in and interval', async () => {
    const answer = await postForm(
      cibaEndpoint(),
      { scope: 'openid', login_hint: 'ingrid', binding_message: 'Code 4711' },
      DESK,
    );
    expect(answer.status).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.json).toEqual({
      auth_req_id: expect.stringMatching(/^[\w-]{43}$/) as unknown,
      expires_in: 120,
      interval: 5,
    });
    const { json } = await call<{ requests: Record<string, unknown>[] }>('GET', mock('/ciba'));
    expect(json.requests).toContainEqual(
      expect.objectContaining({
        auth_req_id: answer.json['auth_req_id'],
        client: 'branch-desk',
        user: 'ingrid',
        binding_message: 'Code 4711',
        status: 'pending',
      }),
    );
  });

  it('openid-client: initiateBackchannelAuthentication, approval at /mock/ciba, pollBackchannelAuthenticationGrant', async () => {
    const config = await oidc.discovery(
      new URL(idp.issuer),
      'branch-desk',
      undefined,
      oidc.ClientSecretBasic('desk-pass'),
      { execute: [oidc.allowInsecureRequests] },
    );
    const started = await oidc.initiateBackchannelAuthentication(config, {
      scope: 'openid profile ledger.read',
      login_hint: 'BID:17037912345',
      binding_message: 'Fjord 42',
    });
    const decided = await decide({ auth_req_id: started.auth_req_id, decision: 'approve' });
    expect(decided.status, decided.text).toBe(200);
    expect(decided.json).toMatchObject({ status: 'approved', user: 'ingrid', binding_message: 'Fjord 42' });
    const tokens = await oidc.pollBackchannelAuthenticationGrant(config, { ...started, interval: 0 });
    expect(tokens.claims()).toMatchObject({ iss: idp.issuer, aud: 'branch-desk', name: 'Ingrid Fjeld' });
    const access = await verifyToken(idp, tokens.access_token);
    expect(access.claims).toMatchObject({
      azp: 'branch-desk',
      scope: 'openid profile ledger.read',
      auth_time: Y2030,
    });
    await verifyToken(idp, tokens.id_token as string, 'branch-desk');
  });

  it.each([
    ['frozen', 0],
    ['moved back a minute', -60],
  ])(
    'with the mock clock %s, a poll 6 s of real time after the last is no slow_down',
    async (_name, seconds) => {
      const id = await start();
      // Real time moves only when the test says so; the mock clock stays frozen (or goes back).
      vi.useFakeTimers({ toFake: ['Date'] });
      try {
        expect((await poll(id)).json['error']).toBe('authorization_pending');
        if (seconds !== 0) await advance(seconds);
        vi.setSystemTime(Date.now() + 6000);
        expect((await poll(id)).json['error']).toBe('authorization_pending');
        // Sooner than the interval in both times: slow_down.
        expect((await poll(id)).json['error']).toBe('slow_down');
      } finally {
        vi.useRealTimers();
      }
    },
  );

  it('pending, slow_down within the interval, then approved by itself after cibaAutoApproveSeconds', async () => {
    const id = await start({ login_hint: ':17037912345' }, AUTO);
    expect((await poll(id, AUTO)).json['error']).toBe('authorization_pending');
    expect((await poll(id, AUTO)).json['error']).toBe('slow_down');
    await advance(20);
    expect((await poll(id, AUTO)).json['error']).toBe('authorization_pending');
    const listed = await call<{ requests: Record<string, unknown>[] }>('GET', mock('/ciba'));
    expect(listed.json.requests).toContainEqual(
      expect.objectContaining({ auth_req_id: id, status: 'pending' }),
    );
    await advance(10);
    const tokens = await poll(id, AUTO);
    expect(tokens.status, tokens.text).toBe(200);
    const access = await verifyToken(idp, tokens.json['access_token'] as string);
    // Signed in when the request approved itself.
    expect(access.claims).toMatchObject({ azp: 'branch-auto', auth_time: Y2030 + 30 });
  });

  it.each<[string, Record<string, string>, string, number, Record<string, string>]>([
    [
      'a client that does not list the grant',
      { scope: 'openid', login_hint: 'ingrid' },
      basicFor('teller-web'),
      400,
      {
        error: 'unauthorized_client',
        error_description: `Client "teller-web" is not allowed client-initiated backchannel authentication (it does not list ${CIBA} in its grants)`,
      },
    ],
    [
      'a wrong secret',
      { scope: 'openid', login_hint: 'ingrid' },
      basic('branch-desk', 'nope'),
      401,
      { error: 'unauthorized_client', error_description: 'Invalid client or Invalid client credentials' },
    ],
    [
      'no openid in scope',
      { scope: 'profile', login_hint: 'ingrid' },
      DESK,
      400,
      {
        error: 'invalid_request',
        error_description: 'scope must contain openid: a backchannel authentication request signs a user in',
      },
    ],
    [
      'no login_hint',
      { scope: 'openid' },
      DESK,
      400,
      {
        error: 'invalid_request',
        error_description: 'Missing parameter: login_hint (a username, or BID:{national id})',
      },
    ],
    [
      'an id_token_hint',
      { scope: 'openid', id_token_hint: 'eyJ' },
      DESK,
      400,
      {
        error: 'invalid_request',
        error_description: 'id_token_hint is not supported: name the user with login_hint',
      },
    ],
    [
      'an unknown user',
      { scope: 'openid', login_hint: 'BID:01019099999' },
      DESK,
      400,
      {
        error: 'unknown_user_id',
        error_description:
          'login_hint "BID:01019099999" names no user: give a username, or BID: or : followed by a national id',
      },
    ],
    [
      'a scope the client may not have',
      { scope: 'openid statements', login_hint: 'ingrid' },
      DESK,
      400,
      {
        error: 'invalid_scope',
        error_description:
          'Invalid scopes: statements (client "branch-desk" may request: openid profile ledger.read)',
      },
    ],
    [
      'a binding_message too long',
      { scope: 'openid', login_hint: 'ingrid', binding_message: 'x'.repeat(101) },
      DESK,
      400,
      {
        error: 'invalid_binding_message',
        error_description: 'binding_message must be 1 to 100 characters of text without control characters',
      },
    ],
  ])('an authentication request with %s: refused', async (_name, body, authorization, status, expected) => {
    const answer = await postForm(cibaEndpoint(), body, authorization);
    expect(answer.status, answer.text).toBe(status);
    expect(answer.json).toEqual(expected);
  });

  it('a public client (registered dynamically: fixtures refuse one) cannot make a request', async () => {
    const registered = await call('POST', idp.endpoints.registration, {
      grant_types: [CIBA],
      token_endpoint_auth_method: 'none',
      scope: 'openid',
    });
    expect(registered.status, registered.text).toBe(201);
    const clientId = String(registered.json['client_id']);
    const answer = await postForm(cibaEndpoint(), {
      client_id: clientId,
      scope: 'openid',
      login_hint: 'ingrid',
    });
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({
      error: 'unauthorized_client',
      error_description: `Public client "${clientId}" cannot use CIBA: the authentication request needs client credentials`,
    });
  });

  it.each<[string, (id: string) => Promise<Answer>, number, Record<string, string>]>([
    [
      'an unknown auth_req_id',
      () => poll('no-such-request'),
      400,
      {
        error: 'invalid_grant',
        error_description:
          'Authentication request not valid: unknown auth_req_id, or already used (it is single-use)',
      },
    ],
    [
      'a request of another client',
      (id) => poll(id, AUTO),
      400,
      { error: 'invalid_grant', error_description: 'Authentication request was issued to another client' },
    ],
    [
      'a client that does not list the grant',
      (id) => poll(id, basicFor('teller-web')),
      400,
      {
        error: 'unauthorized_client',
        error_description: `Client "teller-web" is not allowed client-initiated backchannel authentication (it does not list ${CIBA} in its grants)`,
      },
    ],
    [
      'expired on the mock clock',
      async (id) => {
        await advance(120);
        return poll(id);
      },
      400,
      {
        error: 'expired_token',
        error_description: 'Authentication request has expired: start a new authentication request',
      },
    ],
    [
      'denied by the user',
      async (id) => {
        await decide({ auth_req_id: id, decision: 'deny' });
        return poll(id);
      },
      400,
      { error: 'access_denied', error_description: 'The user denied the authorization request' },
    ],
    [
      'used twice',
      async (id) => {
        await decide({ auth_req_id: id, decision: 'approve' });
        expect((await poll(id)).status).toBe(200);
        return poll(id);
      },
      400,
      {
        error: 'invalid_grant',
        error_description:
          'Authentication request not valid: unknown auth_req_id, or already used (it is single-use)',
      },
    ],
  ])('polling with %s: refused', async (_name, send, status, body) => {
    const answer = await send(await start());
    expect(answer.status, answer.text).toBe(status);
    expect(answer.json).toEqual(body);
  });

  it('requested_expiry sets expires_in', async () => {
    const answer = await postForm(
      cibaEndpoint(),
      { scope: 'openid', login_hint: 'ola', requested_expiry: '30' },
      DESK,
    );
    expect(answer.json['expires_in']).toBe(30);
    await advance(30);
    expect((await poll(answer.json['auth_req_id'] as string)).json['error']).toBe('expired_token');
  });

  it.each<[string, (id: string) => Record<string, unknown>, number, string, RegExp]>([
    [
      'an unknown field',
      (id) => ({ auth_req_id: id, decison: 'approve' }),
      400,
      'invalid_request',
      /decison.*did you mean "decision"/i,
    ],
    [
      'an unknown request',
      () => ({ auth_req_id: 'nope', decision: 'approve' }),
      404,
      'not_found',
      /No authentication request/,
    ],
    [
      'a decision that is neither',
      (id) => ({ auth_req_id: id, decision: 'later' }),
      400,
      'invalid_request',
      /decision/,
    ],
    [
      'an expired request',
      (id) => ({ auth_req_id: id, decision: 'approve', expired: id }),
      400,
      'invalid_request',
      /expired/,
    ],
  ])('POST /mock/ciba with %s: refused', async (name, body, status, error, description) => {
    const id = await start();
    const sent = body(id);
    if ('expired' in sent) {
      delete sent['expired'];
      await advance(120);
    }
    const answer = await decide(sent);
    expect(answer.status, `${name}: ${answer.text}`).toBe(status);
    expect(answer.json['error']).toBe(error);
    expect(answer.json['error_description']).toMatch(description);
  });
});
