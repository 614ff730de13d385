// /mock/clock, and every expiry check following the one clock: codes, tokens, refresh tokens, client assertions.
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { randomUUID } from 'node:crypto';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { authorize, BATCH_JOB, exchangeCode, PAYMENTS_API, WEB_APP } from '../helpers/bundled.js';
import { call, postForm } from '../helpers/http.js';
import { endpointsOf, useIdp, Y2030 } from '../helpers/server.js';

let base: string;
let signerKey: CryptoKey;
let jwk: JWK & { kty: string };

beforeAll(async () => {
  const pair = await generateKeyPair('RS256');
  signerKey = pair.privateKey;
  jwk = { ...(await exportJWK(pair.publicKey)), kty: 'RSA', kid: 'signer-1', alg: 'RS256', use: 'sig' };
});
const idp = useIdp(() => ({
  clock: Y2030,
  frozen: true,
  fixtures: {
    tokens: { accessTokenLifespan: 300, refreshTokenLifespan: 1800, codeLifespan: 60 },
    clients: {
      'web-app': {
        secret: 'web-secret',
        redirectUris: ['http://localhost:3000/callback'],
        grants: ['authorization_code', 'refresh_token'],
      },
      'batch-job': { secret: 'batch-secret', grants: ['client_credentials'] },
      'payments-api': { secret: 'rs-secret', grants: [] },
      signer: { authMethods: ['private_key_jwt'], jwks: { keys: [jwk] }, grants: ['client_credentials'] },
    },
    users: { alice: { claims: { name: 'Alice Nordmann' } } },
  },
}));
beforeAll(() => {
  base = idp.issuer;
});
beforeEach(async () => {
  await call('PUT', `${base}/mock/clock`, { now: Y2030, frozen: true });
});

const clock = (method: string, body?: unknown) => call(method, `${base}/mock/clock`, body);
const advance = (seconds: number) => clock('POST', { seconds });

describe('/mock/clock', () => {
  it('GET reads the time', async () => {
    const answer = await clock('GET');
    expect(answer.json).toEqual({ now: '2030-01-01T00:00:00.000Z', epoch: Y2030, frozen: true });
  });

  it.each([
    ['now as ISO-8601', { now: '2031-06-01T12:00:00Z' }, { now: '2031-06-01T12:00:00.000Z', frozen: true }],
    ['now as epoch seconds', { now: Y2030 + 42 }, { epoch: Y2030 + 42, frozen: true }],
    ['now as epoch seconds text', { now: `${Y2030 + 7}` }, { epoch: Y2030 + 7, frozen: true }],
    ['unfreeze', { frozen: false }, { frozen: false }],
    ['set and unfreeze', { now: '2040-01-01T00:00:00Z', frozen: false }, { frozen: false }],
  ])('PUT sets %s', async (_name, body, expected) => {
    const answer = await clock('PUT', body);
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject(expected);
    expect((await clock('GET')).json).toMatchObject(expected);
    expect(idp.clock.frozen).toBe(expected.frozen);
  });

  it('an unfrozen clock runs on from where it was set', async () => {
    await clock('PUT', { now: '2040-01-01T00:00:00Z', frozen: false });
    const epoch = Number((await clock('GET')).json['epoch']);
    expect(epoch).toBeGreaterThanOrEqual(Date.parse('2040-01-01T00:00:00Z') / 1000);
    expect(epoch).toBeLessThan(Date.parse('2040-01-01T00:00:00Z') / 1000 + 10);
  });

  it.each([90, -30, 0.5])('POST advances by %d seconds', async (seconds) => {
    const answer = await advance(seconds);
    expect(answer.json['epoch']).toBe(Math.floor(Y2030 + seconds));
    expect(idp.clock.nowMs()).toBe((Y2030 + seconds) * 1000);
  });

  it.each([
    ['PUT', { now: 'tomorrow' }, /now: expected an ISO-8601 instant or epoch seconds/],
    ['PUT', { frozen: 'yes' }, /frozen: /],
    ['PUT', { later: 1 }, /unknown field "later"/],
    ['POST', {}, /^Invalid clock advance: missing required field "seconds"$/],
    ['POST', { second: 301 }, /^Invalid clock advance: unknown field "second" \(did you mean "seconds"\?\)$/],
    ['POST', { seconds: '60' }, /seconds: /],
  ])('%s %j answers 400', async (method, body, description) => {
    const answer = await clock(method, body);
    expect(answer.status).toBe(400);
    expect(answer.json['error']).toBe('invalid_request');
    expect(String(answer.json['error_description'])).toMatch(description);
    expect((await clock('GET')).json['epoch']).toBe(Y2030);
  });
});

describe('expiry follows the clock', () => {
  it('an access token introspects inactive once the clock passes its exp; userinfo refuses it', async () => {
    const { code } = await authorize(base, 'alice');
    const tokens = await exchangeCode(base, code);
    const token = String(tokens.json['access_token']);
    const introspect = () => postForm(endpointsOf(base).introspect, { token }, PAYMENTS_API);
    const userinfo = () =>
      fetch(`${endpointsOf(base).userinfo}`, { headers: { authorization: `Bearer ${token}` } });
    expect((await introspect()).json).toMatchObject({ active: true });
    expect((await userinfo()).status).toBe(200);
    await advance(299);
    expect((await introspect()).json).toMatchObject({ active: true });
    await advance(1);
    expect((await introspect()).text).toBe('{"active":false}');
    expect((await userinfo()).status).toBe(401);
  });

  it('a refresh token works after the access token expired, and fails with invalid_grant after its own exp', async () => {
    const { code } = await authorize(base, 'alice');
    const tokens = await exchangeCode(base, code);
    const refresh = (token: unknown) =>
      postForm(
        endpointsOf(base).token,
        { grant_type: 'refresh_token', refresh_token: String(token) },
        WEB_APP,
      );
    await advance(301);
    const renewed = await refresh(tokens.json['refresh_token']);
    expect(renewed.status).toBe(200);
    await advance(1800);
    const refused = await refresh(renewed.json['refresh_token']);
    expect(refused.status).toBe(400);
    expect(refused.json['error']).toBe('invalid_grant');
  });

  it.each([
    [59, 200],
    [60, 400],
  ])('a code exchanged %i s after issue answers %i', async (seconds, status) => {
    const { code } = await authorize(base, 'alice');
    await advance(seconds);
    const answer = await exchangeCode(base, code);
    expect(answer.status).toBe(status);
    if (status === 400)
      expect(answer.json).toMatchObject({ error: 'invalid_grant', error_description: 'Code is expired' });
  });

  it('a client_credentials token and its session lapse with the clock', async () => {
    const tokens = await postForm(endpointsOf(base).token, { grant_type: 'client_credentials' }, BATCH_JOB);
    const sid = String(tokens.json['sid']);
    const sessions = async () =>
      ((await call('GET', `${base}/mock/sessions`)).json['sessions'] as { id: string }[]).map((s) => s.id);
    expect(await sessions()).toContain(sid);
    await advance(1800);
    expect(await sessions()).not.toContain(sid);
  });

  describe('client assertions (private_key_jwt)', () => {
    async function assertion(iat: number, exp: number): Promise<string> {
      return new SignJWT({ jti: randomUUID(), nbf: iat })
        .setProtectedHeader({ alg: 'RS256', kid: 'signer-1' })
        .setIssuer('signer')
        .setSubject('signer')
        .setAudience(endpointsOf(base).token)
        .setIssuedAt(iat)
        .setExpirationTime(exp)
        .sign(signerKey);
    }
    const withAssertion = async (jwt: string) =>
      postForm(endpointsOf(base).token, {
        grant_type: 'client_credentials',
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        client_assertion: jwt,
      });

    it('one valid only at mock time (nbf 2030) is accepted, and refused once the mock clock passes its exp', async () => {
      expect((await withAssertion(await assertion(Y2030, Y2030 + 60))).status).toBe(200);
      // Now expired under the mock clock, and not yet valid (nbf) in real time: refused.
      await advance(3600);
      const late = await withAssertion(await assertion(Y2030, Y2030 + 60));
      expect(late.status).toBe(401);
      expect(String(late.json['error_description'])).toMatch(/Invalid client assertion/);
    });

    it('one expired in real time is accepted while the mock clock is set before its exp', async () => {
      const real = Math.floor(Date.now() / 1000);
      await clock('PUT', { now: real - 3600, frozen: true });
      expect((await withAssertion(await assertion(real - 3700, real - 3500))).status).toBe(200);
      await advance(200);
      expect((await withAssertion(await assertion(real - 3700, real - 3500))).status).toBe(401);
    });
  });
});
