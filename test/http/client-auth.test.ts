// Client authentication at the token endpoint: client_secret_basic, client_secret_post, private_key_jwt.
import { generateKeyPair, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { expectOAuthError as expectError } from '../helpers/assert.js';
import { basicFor, codeFor, SECRETS, type TokenResponse } from '../helpers/flows.js';
import { basic, postForm } from '../helpers/http.js';
import { ASSERTION_TYPE, clientAssertion, decode } from '../helpers/jwt.js';
import { type TestIdp, useIdp } from '../helpers/server.js';

const idp = useIdp();

describe('client authentication', () => {
  const ccBody = { grant_type: 'client_credentials', scope: 'ledger.read' };

  it('client_secret_basic with a form-urlencoded secret (":", " ", "+", "%", "/", non-ASCII)', async () => {
    const answer = await postForm(idp.endpoints.token, ccBody, {
      authorization: basic('ledger-sync', SECRETS['ledger-sync']),
    });
    expect(answer.status, answer.text).toBe(200);
  });

  it('client_secret_basic with a plain secret', async () => {
    const answer = await postForm(
      idp.endpoints.token,
      {
        grant_type: 'authorization_code',
        code: await codeFor(idp),
        redirect_uri: 'http://app.fjord.test/cb',
      },
      { authorization: `Basic ${Buffer.from('teller-web:teller-pass-7').toString('base64')}` },
    );
    expect(answer.status, answer.text).toBe(200);
  });

  it('client_secret_post', async () => {
    const answer = await postForm(idp.endpoints.token, {
      ...ccBody,
      client_id: 'ledger-sync',
      client_secret: SECRETS['ledger-sync'],
    });
    expect(answer.status, answer.text).toBe(200);
  });

  it.each([
    ['the token endpoint', (i: TestIdp) => i.endpoints.token],
    ['the issuer', (i: TestIdp) => i.issuer],
  ])('private_key_jwt with aud = %s', async (_name, aud) => {
    const assertion = await clientAssertion(idp, { audience: aud(idp) });
    const answer = await postForm<TokenResponse>(idp.endpoints.token, {
      grant_type: 'client_credentials',
      client_assertion_type: ASSERTION_TYPE,
      client_assertion: assertion,
    });
    expect(answer.status, answer.text).toBe(200);
    expect(decode(answer.json.access_token).claims.azp).toBe('vault-signer');
  });

  it('private_key_jwt at the code exchange', async () => {
    const code = await codeFor(idp, { client: 'vault-signer', redirectUri: 'http://vault.fjord.test/cb' });
    const answer = await postForm(idp.endpoints.token, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: 'http://vault.fjord.test/cb',
      client_id: 'vault-signer',
      client_assertion_type: ASSERTION_TYPE,
      client_assertion: await clientAssertion(idp),
    });
    expect(answer.status, answer.text).toBe(200);
  });

  it('private_key_jwt rejects a replayed jti: 401', async () => {
    const assertion = await clientAssertion(idp);
    const body = {
      grant_type: 'client_credentials',
      client_assertion_type: ASSERTION_TYPE,
      client_assertion: assertion,
    };
    expect((await postForm(idp.endpoints.token, body)).status).toBe(200);
    expectError(await postForm(idp.endpoints.token, body), 401, 'unauthorized_client');
  });

  const otherKey = generateKeyPair('RS256');
  it.each<[string, () => Promise<string>, number, string]>([
    [
      'a wrong aud',
      () => clientAssertion(idp, { audience: 'https://elsewhere.test/token' }),
      401,
      'unauthorized_client',
    ],
    ['no exp', () => clientAssertion(idp, { claims: { exp: undefined } }), 401, 'unauthorized_client'],
    ['no jti', () => clientAssertion(idp, { claims: { jti: undefined } }), 401, 'unauthorized_client'],
    [
      'an expired exp',
      () => clientAssertion(idp, { iat: Math.floor(Date.now() / 1000) - 600 }),
      401,
      'unauthorized_client',
    ],
    [
      'iss differing from sub',
      () => clientAssertion(idp, { claims: { iss: 'ledger-sync' } }),
      401,
      'unauthorized_client',
    ],
    [
      'a wrong key',
      async () => clientAssertion(idp, { key: (await otherKey).privateKey }),
      401,
      'unauthorized_client',
    ],
    [
      'an unknown kid',
      async () => clientAssertion(idp, { key: (await otherKey).privateKey, kid: 'other' }),
      401,
      'unauthorized_client',
    ],
    [
      'HS256',
      () =>
        new SignJWT({
          iss: 'vault-signer',
          sub: 'vault-signer',
          aud: idp.endpoints.token,
          jti: 'h',
          exp: Math.floor(Date.now() / 1000) + 60,
        })
          .setProtectedHeader({ alg: 'HS256' })
          .sign(new Uint8Array(32)),
      401,
      'unauthorized_client',
    ],
    ['an unknown client', () => clientAssertion(idp, { clientId: 'ghost' }), 401, 'invalid_client'],
    ['a secret client', () => clientAssertion(idp, { clientId: 'ledger-sync' }), 401, 'unauthorized_client'],
    ['not a JWT', async () => 'not.a.jwt', 401, 'invalid_client'],
  ])('private_key_jwt rejects %s', async (_name, make, status, error) => {
    const answer = await postForm(idp.endpoints.token, {
      grant_type: 'client_credentials',
      client_assertion_type: ASSERTION_TYPE,
      client_assertion: await make(),
    });
    expectError(answer, status, error);
  });

  it('private_key_jwt with a client_id differing from the assertion: 400 invalid_request', async () => {
    const answer = await postForm(idp.endpoints.token, {
      grant_type: 'client_credentials',
      client_id: 'ledger-sync',
      client_assertion_type: ASSERTION_TYPE,
      client_assertion: await clientAssertion(idp),
    });
    expectError(answer, 400, 'invalid_request');
  });

  it('private_key_jwt needs the jwt-bearer client_assertion_type: 400 invalid_request', async () => {
    const answer = await postForm(idp.endpoints.token, {
      grant_type: 'client_credentials',
      client_assertion_type: 'urn:example:other',
      client_assertion: await clientAssertion(idp),
    });
    expectError(answer, 400, 'invalid_request');
  });

  it.each<[string, () => Promise<{ body: Record<string, string>; authorization?: string }>]>([
    [
      'Basic and client_secret',
      async () => ({
        body: { ...ccBody, client_secret: SECRETS['ledger-sync'] },
        authorization: basicFor('ledger-sync'),
      }),
    ],
    [
      'Basic and client_assertion',
      async () => ({
        body: {
          ...ccBody,
          client_assertion_type: ASSERTION_TYPE,
          client_assertion: await clientAssertion(idp),
        },
        authorization: basicFor('ledger-sync'),
      }),
    ],
    [
      'client_secret and client_assertion',
      async () => ({
        body: {
          ...ccBody,
          client_id: 'vault-signer',
          client_secret: 'x',
          client_assertion_type: ASSERTION_TYPE,
          client_assertion: await clientAssertion(idp),
        },
      }),
    ],
  ])('two methods at once (%s): 400 invalid_request', async (_name, make) => {
    const { body, authorization } = await make();
    expectError(
      await postForm(idp.endpoints.token, body, authorization !== undefined ? { authorization } : {}),
      400,
      'invalid_request',
    );
  });
});

describe('private_key_jwt while the mock clock is fixed away from real time', () => {
  const frozen = useIdp({ clock: '2030-01-01T00:00:00Z', frozen: true });

  const realNow = (): number => Math.floor(Date.now() / 1000);
  it.each<[string, () => number, number]>([
    ['stamped with the real clock', realNow, 200],
    ['stamped with the mock clock', () => 1_893_456_000, 200],
    ['expired under both clocks', () => realNow() - 600, 401],
  ])('an assertion %s: %i', async (_name, iat, status) => {
    const answer = await postForm(frozen.endpoints.token, {
      grant_type: 'client_credentials',
      client_assertion_type: ASSERTION_TYPE,
      client_assertion: await clientAssertion(frozen, { iat: iat() }),
    });
    expect(answer.status, answer.text).toBe(status);
  });
});
