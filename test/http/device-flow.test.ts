// The device authorization grant (RFC 8628): openid-client 6 gets a device code, a script approves it at
// POST /mock/device, and the poll gives a token set verified with jose; every refusal, on the mock clock.
import * as oidc from 'openid-client';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { DEVICE_CODE, grantsFixtures } from '../helpers/grants.js';
import { basicFor } from '../helpers/flows.js';
import { basic, call, get, postForm, type Answer } from '../helpers/http.js';
import { verifyToken } from '../helpers/jwt.js';
import { useIdp, Y2030 } from '../helpers/server.js';

const idp = useIdp(() => ({
  fixtures: grantsFixtures({
    'tv-box': {
      name: 'Fjord TV',
      authMethods: ['none'],
      grants: [DEVICE_CODE],
      scopes: ['openid', 'profile', 'ledger.read'],
    },
    'radio-box': { authMethods: ['none'], grants: [DEVICE_CODE], scopes: ['openid'] },
    'meter-box': { secret: 'meter-pass', grants: [DEVICE_CODE], scopes: ['openid', 'profile'] },
  }),
  clock: Y2030,
  frozen: true,
  seed: 'device-tests',
}));

const deviceEndpoint = (): string => `${idp.issuer}/protocol/openid-connect/auth/device`;
const mock = (path: string): string => `${idp.issuer}/mock${path}`;

interface DeviceAnswer {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

async function startDevice(client = 'tv-box', scope = 'openid profile'): Promise<DeviceAnswer> {
  const answer = await postForm<DeviceAnswer>(deviceEndpoint(), { client_id: client, scope });
  expect(answer.status, answer.text).toBe(200);
  return answer.json;
}

const poll = (deviceCode: string, client = 'tv-box'): Promise<Answer> =>
  postForm(idp.endpoints.token, { grant_type: DEVICE_CODE, device_code: deviceCode, client_id: client });

const decide = (body: Record<string, unknown>): Promise<Answer> => call('POST', mock('/device'), body);
const advance = (seconds: number): Promise<Answer> => call('POST', mock('/clock'), { seconds });

beforeEach(async () => {
  await call('PUT', mock('/clock'), { now: Y2030, frozen: true });
});

describe('device authorization grant', () => {
  it('discovery names the device authorization endpoint', async () => {
    const { json } = await get(idp.endpoints.discovery);
    expect(json['device_authorization_endpoint']).toBe(deviceEndpoint());
    expect(json['grant_types_supported']).toContain(DEVICE_CODE);
  });

  it('answers a device code, a Keycloak-like user code, the /device page and the interval', async () => {
    const answer = await postForm(deviceEndpoint(), { client_id: 'tv-box', scope: 'openid' });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    const json = answer.json as unknown as DeviceAnswer;
    expect(json.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(json).toEqual({
      device_code: expect.stringMatching(/^[\w-]{43}$/) as unknown,
      user_code: json.user_code,
      verification_uri: `${idp.issuer}/device`,
      verification_uri_complete: `${idp.issuer}/device?user_code=${json.user_code}`,
      expires_in: 600,
      interval: 5,
    });
  });

  it('openid-client: initiateDeviceAuthorization, approval at /mock/device, pollDeviceAuthorizationGrant', async () => {
    const config = await oidc.discovery(new URL(idp.issuer), 'tv-box', undefined, oidc.None(), {
      execute: [oidc.allowInsecureRequests],
    });
    const started = await oidc.initiateDeviceAuthorization(config, { scope: 'openid profile ledger.read' });
    const decided = await decide({ user_code: started.user_code, user: 'ingrid', decision: 'approve' });
    expect(decided.status, decided.text).toBe(200);
    expect(decided.json).toMatchObject({ status: 'approved', user: 'ingrid', client: 'tv-box' });
    // The approval is in before the first poll, so no real interval needs to pass.
    const tokens = await oidc.pollDeviceAuthorizationGrant(config, { ...started, interval: 0 });
    expect(tokens.claims()).toMatchObject({ iss: idp.issuer, aud: 'tv-box', name: 'Ingrid Fjeld' });
    const access = await verifyToken(idp, tokens.access_token);
    expect(access.claims).toMatchObject({
      azp: 'tv-box',
      scope: 'openid profile ledger.read',
      auth_time: Y2030,
      preferred_username: 'ingrid',
    });
    await verifyToken(idp, tokens.id_token as string, 'tv-box');
    expect(tokens.refresh_token).toBeDefined();
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token as string);
    expect((await verifyToken(idp, refreshed.access_token)).claims['sub']).toBe(access.claims['sub']);
  });

  it('a confidential client authenticates at the device endpoint; the page takes the code in any case', async () => {
    const refused = await postForm(deviceEndpoint(), { client_id: 'meter-box' });
    expect(refused.status).toBe(401);
    const answer = await postForm<DeviceAnswer>(
      deviceEndpoint(),
      { scope: 'openid' },
      basic('meter-box', 'meter-pass'),
    );
    expect(answer.status, answer.text).toBe(200);
    const typed = answer.json.user_code.toLowerCase().replace('-', ' ');
    const page = await postForm(`${idp.issuer}/device`, { user_code: typed });
    expect(page.status).toBe(200);
    expect(page.text).toContain('Sign in to <span class="client">meter-box</span>');
    expect(page.text).toContain(`a device that shows the code ${answer.json.user_code}`);
  });

  it.each([
    ['frozen', 0],
    ['moved back a minute', -60],
  ])(
    'with the mock clock %s, a poll 6 s of real time after the last is no slow_down',
    async (_name, seconds) => {
      const { device_code } = await startDevice();
      // Real time moves only when the test says so; the mock clock stays frozen (or goes back).
      vi.useFakeTimers({ toFake: ['Date'] });
      try {
        expect((await poll(device_code)).json['error']).toBe('authorization_pending');
        if (seconds !== 0) await advance(seconds);
        vi.setSystemTime(Date.now() + 6000);
        expect((await poll(device_code)).json['error']).toBe('authorization_pending');
        // Sooner than the interval in both times: slow_down.
        expect((await poll(device_code)).json['error']).toBe('slow_down');
      } finally {
        vi.useRealTimers();
      }
    },
  );

  it('pending, then slow_down when polled within the interval (which grows by 5), then tokens once', async () => {
    const { device_code, user_code } = await startDevice();
    const first = await poll(device_code);
    expect(first.json).toEqual({
      error: 'authorization_pending',
      error_description: 'The user has not yet approved or denied the request',
    });
    const fast = await poll(device_code);
    expect(fast.status).toBe(400);
    expect(fast.json).toEqual({
      error: 'slow_down',
      error_description:
        'Polled 0 s after the last poll, less than the interval of 5 s: poll every 10 s from now on',
    });
    await advance(5);
    expect((await poll(device_code)).json['error']).toBe('slow_down'); // 5 s < 10 s: now 15 s
    await advance(15);
    expect((await poll(device_code)).json['error']).toBe('authorization_pending');
    await decide({ user_code: user_code.toLowerCase().replace('-', ''), user: 'ola', decision: 'approve' });
    const tokens = await poll(device_code);
    expect(tokens.status, tokens.text).toBe(200);
    expect((await verifyToken(idp, tokens.json['access_token'] as string)).claims).toMatchObject({
      name: 'Ola Strand',
      azp: 'tv-box',
    });
  });

  it.each<[string, (d: DeviceAnswer) => Promise<Answer>, number, Record<string, string>]>([
    [
      'an unknown device code',
      () => poll('no-such-code'),
      400,
      {
        error: 'invalid_grant',
        error_description: 'Device code not valid: unknown device_code, or already used (it is single-use)',
      },
    ],
    [
      'a code of another client',
      (d) => poll(d.device_code, 'radio-box'),
      400,
      { error: 'invalid_grant', error_description: 'Device code was issued to another client' },
    ],
    [
      'a client that does not list the grant',
      (d) =>
        postForm(
          idp.endpoints.token,
          { grant_type: DEVICE_CODE, device_code: d.device_code },
          basicFor('teller-web'),
        ),
      400,
      {
        error: 'unauthorized_client',
        error_description: `Client "teller-web" is not allowed the device authorization grant (it does not list ${DEVICE_CODE} in its grants)`,
      },
    ],
    [
      'no device_code',
      () => postForm(idp.endpoints.token, { grant_type: DEVICE_CODE, client_id: 'tv-box' }),
      400,
      { error: 'invalid_request', error_description: 'Missing parameter: device_code' },
    ],
    [
      'expired on the mock clock',
      async (d) => {
        await advance(600);
        return poll(d.device_code);
      },
      400,
      {
        error: 'expired_token',
        error_description: 'Device code has expired: start a new device authorization',
      },
    ],
    [
      'denied by the user',
      async (d) => {
        await decide({ user_code: d.user_code, decision: 'deny' });
        return poll(d.device_code);
      },
      400,
      { error: 'access_denied', error_description: 'The user denied the authorization request' },
    ],
    [
      'used twice',
      async (d) => {
        await decide({ user_code: d.user_code, user: 'ingrid', decision: 'approve' });
        expect((await poll(d.device_code)).status).toBe(200);
        return poll(d.device_code);
      },
      400,
      {
        error: 'invalid_grant',
        error_description: 'Device code not valid: unknown device_code, or already used (it is single-use)',
      },
    ],
  ])('polling with %s: refused', async (_name, send, status, body) => {
    const started = await startDevice();
    const answer = await send(started);
    expect(answer.status, answer.text).toBe(status);
    expect(answer.json).toEqual(body);
  });

  it.each<[string, Record<string, string>, string | undefined, number, Record<string, string>]>([
    [
      'a client that does not list the grant',
      { scope: 'openid' },
      basicFor('teller-web'),
      400,
      {
        error: 'unauthorized_client',
        error_description: `Client "teller-web" is not allowed the device authorization grant (it does not list ${DEVICE_CODE} in its grants)`,
      },
    ],
    [
      'a scope the client may not have',
      { client_id: 'tv-box', scope: 'openid statements' },
      undefined,
      400,
      {
        error: 'invalid_scope',
        error_description:
          'Invalid scopes: statements (client "tv-box" may request: openid profile ledger.read)',
      },
    ],
    [
      'an unknown client',
      { client_id: 'nobody' },
      undefined,
      401,
      { error: 'invalid_client', error_description: 'Invalid client or Invalid client credentials' },
    ],
  ])('device authorization with %s: refused', async (_name, body, authorization, status, expected) => {
    const answer = await postForm(
      deviceEndpoint(),
      body,
      authorization !== undefined ? { authorization } : {},
    );
    expect(answer.status, answer.text).toBe(status);
    expect(answer.json).toEqual(expected);
  });

  it.each<[string, (d: DeviceAnswer) => Record<string, unknown>, number, string, RegExp]>([
    [
      'an unknown field',
      (d) => ({ user_code: d.user_code, usr: 'ingrid', decision: 'approve' }),
      400,
      'invalid_request',
      /usr.*did you mean "user"/i,
    ],
    [
      'an unknown code',
      () => ({ user_code: 'BBBB-BBBB', user: 'ingrid', decision: 'approve' }),
      404,
      'not_found',
      /No device request/,
    ],
    [
      'an unknown user',
      (d) => ({ user_code: d.user_code, user: 'nobody', decision: 'approve' }),
      400,
      'invalid_request',
      /"nobody" is no user/,
    ],
    [
      'approve without a user',
      (d) => ({ user_code: d.user_code, decision: 'approve' }),
      400,
      'invalid_request',
      /user: required/,
    ],
    [
      'a decision that is neither',
      (d) => ({ user_code: d.user_code, user: 'ingrid', decision: 'maybe' }),
      400,
      'invalid_request',
      /decision/,
    ],
  ])('POST /mock/device with %s: refused', async (_name, body, status, error, description) => {
    const started = await startDevice();
    const answer = await decide(body(started));
    expect(answer.status, answer.text).toBe(status);
    expect(answer.json['error']).toBe(error);
    expect(answer.json['error_description']).toMatch(description);
  });

  it('a decided code cannot be decided again (409), and the list shows it', async () => {
    const { user_code } = await startDevice();
    expect((await decide({ user_code, decision: 'deny' })).status).toBe(200);
    const again = await decide({ user_code, user: 'ingrid', decision: 'approve' });
    expect(again.status).toBe(409);
    const { json } = await call<{ requests: Record<string, unknown>[] }>('GET', mock('/device'));
    expect(json.requests).toContainEqual(expect.objectContaining({ user_code, status: 'denied' }));
  });

  it('user codes are the same under the same seed', async () => {
    const fresh = await import('../helpers/server.js').then((m) =>
      m.startIdp({
        fixtures: grantsFixtures({
          'tv-box': { authMethods: ['none'], grants: [DEVICE_CODE], scopes: ['openid'] },
        }),
        seed: 's1',
      }),
    );
    const again = await import('../helpers/server.js').then((m) =>
      m.startIdp({
        fixtures: grantsFixtures({
          'tv-box': { authMethods: ['none'], grants: [DEVICE_CODE], scopes: ['openid'] },
        }),
        seed: 's1',
      }),
    );
    try {
      const codes = await Promise.all(
        [fresh, again].map(async (server) => {
          const { json } = await postForm(`${server.issuer}/protocol/openid-connect/auth/device`, {
            client_id: 'tv-box',
          });
          return [json['user_code'], json['device_code']];
        }),
      );
      expect(codes[0]).toEqual(codes[1]);
    } finally {
      await Promise.all([fresh.close(), again.close()]);
    }
  });
});
