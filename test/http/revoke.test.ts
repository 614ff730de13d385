// Revocation (RFC 7009) over HTTP: refresh tokens end their session, access tokens stop being active.
import { describe, expect, it } from 'vitest';
import { expectOAuthError } from '../helpers/assert.js';
import { basicFor, credentialsFor, introspect, loginTokens, refresh } from '../helpers/flows.js';
import { postForm } from '../helpers/http.js';
import { useIdp } from '../helpers/server.js';

const idp = useIdp();

/** Revokes as teller-web (Basic) unless another Authorization header, or null for none, is given. */
const revoke = (body: Record<string, string>, authorization: string | null = basicFor('teller-web')) =>
  postForm(idp.endpoints.revoke, body, authorization !== null ? { authorization } : {});

describe('revocation', () => {
  it('a refresh token: 200, the session ends (refresh fails, access token inactive)', async () => {
    const t = await loginTokens(idp);
    const answer = await revoke({ token: t.refresh_token, token_type_hint: 'refresh_token' });
    expect(answer.status).toBe(200);
    expect(answer.text).toBe('');
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expectOAuthError(await refresh(idp, t.refresh_token), 400, 'invalid_grant');
    expect((await introspect(idp, t.access_token)).json).toEqual({ active: false });
  });

  it('an access token: 200, that token inactive, the refresh token still works', async () => {
    const t = await loginTokens(idp);
    expect((await revoke({ token: t.access_token })).status).toBe(200);
    expect((await introspect(idp, t.access_token)).json).toEqual({ active: false });
    expect((await refresh(idp, t.refresh_token)).status).toBe(200);
  });

  it('ignores a wrong token_type_hint', async () => {
    const t = await loginTokens(idp);
    expect((await revoke({ token: t.access_token, token_type_hint: 'refresh_token' })).status).toBe(200);
    expect((await introspect(idp, t.access_token)).json).toEqual({ active: false });
  });

  it('an unknown or invalid token: 200 (RFC 7009 §2.2)', async () => {
    expect((await revoke({ token: 'not-a-token' })).status).toBe(200);
  });

  it("another client's token: 400 unauthorized_client, the token stays active", async () => {
    const t = await loginTokens(idp);
    const { body } = credentialsFor('counter-app');
    expectOAuthError(await revoke({ token: t.access_token, ...body }, null), 400, 'unauthorized_client');
    expect((await introspect(idp, t.access_token)).json.active).toBe(true);
  });

  it.each<[string, Record<string, string>, string | null, number, string]>([
    ['no client authentication', { token: 'x' }, null, 401, 'invalid_client'],
    [
      'a wrong secret',
      { token: 'x' },
      `Basic ${Buffer.from('teller-web:nope').toString('base64')}`,
      401,
      'unauthorized_client',
    ],
    ['a missing token', {}, basicFor('teller-web'), 400, 'invalid_request'],
  ])('%s', async (_name, body, authorization, status, error) => {
    expectOAuthError(await revoke(body, authorization), status, error);
  });

  it('answers GET with 405', async () => {
    expect((await fetch(idp.endpoints.revoke)).status).toBe(405);
  });
});
