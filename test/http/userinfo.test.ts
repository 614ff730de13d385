// Userinfo over HTTP: the bearer's claims (userinfo placement, scopes, nnin eligibility), and bearer errors.
import { beforeAll, describe, expect, it } from 'vitest';
import { expectOAuthError } from '../helpers/assert.js';
import {
  basicFor,
  clientCredentials,
  codeFor,
  exchangeCode,
  loginTokens,
  type TokenResponse,
} from '../helpers/flows.js';
import { get, postForm } from '../helpers/http.js';
import { decode } from '../helpers/jwt.js';
import { startIdp, useIdp } from '../helpers/server.js';

const INGRID_SUB = '7f3e2a10-5b6c-4d7e-8f90-a1b2c3d4e5f6';

const idp = useIdp();

const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

describe('claims of the bearer', () => {
  let t: TokenResponse;
  beforeAll(async () => {
    t = await loginTokens(idp, { scope: 'openid profile email nnin_altsub' });
  });

  it('GET answers sub and the user claims released to userinfo', async () => {
    const answer = await get(idp.endpoints.userinfo, bearer(t.access_token));
    expect(answer.status, answer.text).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.json).toEqual({
      sub: INGRID_SUB,
      preferred_username: 'ingrid',
      name: 'Ingrid Fjeld',
      given_name: 'Ingrid',
      family_name: 'Fjeld',
      birthdate: '1979-03-17',
      updated_at: 1712345678901,
      email: 'ingrid@fjord.test',
      idp_altsub: '9578-6000-4-246810',
      nnin_altsub: '17037912345',
      tid: 'fjord-tenant',
      originator:
        'CN=IdP - Fjord Bank - Bank CA 2,OU=555555555,O=Fjord Bank ASA,C=NO;OriginatorId=7001;OriginatorName=FJORD',
      branch_code: 'NO-0150',
      additionalCertInfo: decode(t.id_token as string).claims.additionalCertInfo,
    });
  });

  it.each<[string, () => Promise<{ status: number; json: Record<string, unknown> }>]>([
    [
      'POST with the Authorization header',
      () => postForm(idp.endpoints.userinfo, {}, { authorization: `Bearer ${t.access_token}` }),
    ],
    [
      'POST with access_token in the body',
      () => postForm(idp.endpoints.userinfo, { access_token: t.access_token }),
    ],
    [
      'GET with a lower-case scheme',
      () => get(idp.endpoints.userinfo, { authorization: `bearer ${t.access_token}` }),
    ],
  ])('%s', async (_name, call) => {
    const answer = await call();
    expect(answer.status).toBe(200);
    expect(answer.json.sub).toBe(INGRID_SUB);
  });

  it('follows the granted scopes: no profile or email claims without them', async () => {
    const plain = await loginTokens(idp, { scope: 'openid' });
    const answer = await get(idp.endpoints.userinfo, bearer(plain.access_token));
    expect(answer.json).toEqual({
      sub: INGRID_SUB,
      preferred_username: 'ingrid',
      idp_altsub: '9578-6000-4-246810',
      tid: 'fjord-tenant',
      originator:
        'CN=IdP - Fjord Bank - Bank CA 2,OU=555555555,O=Fjord Bank ASA,C=NO;OriginatorId=7001;OriginatorName=FJORD',
      branch_code: 'NO-0150',
      additionalCertInfo: decode(t.id_token as string).claims.additionalCertInfo,
    });
  });

  it('gives no nnin_altsub to a client that is not eligible', async () => {
    const redirectUri = 'http://counter.fjord.test/return';
    const code = await codeFor(idp, { client: 'counter-app', redirectUri, scope: 'openid nnin_altsub' });
    const tokens = await exchangeCode(idp, code, { client: 'counter-app', redirectUri });
    const answer = await get(idp.endpoints.userinfo, bearer(tokens.json.access_token));
    expect(answer.status).toBe(200);
    expect(answer.json).not.toHaveProperty('nnin_altsub');
  });

  it("answers a service account's token with the service account", async () => {
    const { json } = await clientCredentials(idp, 'ledger.read');
    const answer = await get(idp.endpoints.userinfo, bearer(json.access_token));
    expect(answer.json).toEqual({
      sub: decode(json.access_token).claims.sub,
      preferred_username: 'service-account-ledger-sync',
    });
  });
});

describe('bearer errors', () => {
  it.each<[string, () => Promise<Record<string, string>>]>([
    ['no token', async () => ({})],
    ['a Basic header', async () => ({ authorization: basicFor('teller-web') })],
    ['garbage', async () => bearer('garbage')],
    ['an ID token', async () => bearer((await loginTokens(idp)).id_token as string)],
    ['a refresh token', async () => bearer((await loginTokens(idp)).refresh_token)],
    [
      'a revoked access token',
      async () => {
        const t = await loginTokens(idp);
        await postForm(
          idp.endpoints.revoke,
          { token: t.access_token },
          { authorization: basicFor('teller-web') },
        );
        return bearer(t.access_token);
      },
    ],
    [
      'an access token after logout',
      async () => {
        const t = await loginTokens(idp);
        await postForm(
          idp.endpoints.logout,
          { refresh_token: t.refresh_token },
          { authorization: basicFor('teller-web') },
        );
        return bearer(t.access_token);
      },
    ],
  ])('%s: 401 invalid_token with WWW-Authenticate', async (_name, headers) => {
    const answer = await get(idp.endpoints.userinfo, await headers());
    expectOAuthError(answer, 401, 'invalid_token');
    expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer .*error="invalid_token"/);
  });

  it('an expired access token: 401 invalid_token', async () => {
    const frozen = await startIdp({ clock: '2030-01-01T00:00:00Z', frozen: true });
    try {
      const { json } = await clientCredentials(frozen, 'ledger.read');
      frozen.clock.advance(600);
      expectOAuthError(await get(frozen.endpoints.userinfo, bearer(json.access_token)), 401, 'invalid_token');
    } finally {
      await frozen.close();
    }
  });

  it('a token in the header and the body: 400 invalid_request', async () => {
    const t = await loginTokens(idp);
    const answer = await postForm(
      idp.endpoints.userinfo,
      { access_token: t.access_token },
      { authorization: `Bearer ${t.access_token}` },
    );
    expectOAuthError(answer, 400, 'invalid_request');
  });
});
