// tokens.accessTokenType: the access token's header typ, `JWT` (the default, as every token has it) or RFC 9068's
// `at+jwt`, which a resource server checks as Nimbus does (jose jwtVerify with typ). Other tokens keep `JWT`.
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { ACCESS_TOKEN_TYPE, grantsFixtures, TOKEN_EXCHANGE } from '../helpers/grants.js';
import { authorizeRedirect, basicFor, clientCredentials, introspect, loginTokens } from '../helpers/flows.js';
import { call, get, postForm } from '../helpers/http.js';
import { useIdp, type TestIdp } from '../helpers/server.js';

/** The header segment as JSON text, byte for byte. */
const headerText = (token: string): string =>
  Buffer.from(token.split('.')[0] as string, 'base64url').toString('utf8');

/** A resource server's check: signature by the JWKS, issuer, and (when given) the header typ. */
const resourceServerVerify = (idp: TestIdp, token: string, typ?: string) =>
  jwtVerify(token, createRemoteJWKSet(new URL(idp.endpoints.certs)), {
    issuer: idp.issuer,
    currentDate: idp.clock.now(),
    ...(typ !== undefined ? { typ } : {}),
  });

describe('tokens.accessTokenType JWT (default)', () => {
  const idp = useIdp(() => ({ fixtures: grantsFixtures() }));

  it('the access token header is {"alg":"RS256","typ":"JWT","kid"} as before', async () => {
    const tokens = await loginTokens(idp, { scope: 'openid' });
    const { kid } = decodeProtectedHeader(tokens.access_token);
    expect(headerText(tokens.access_token)).toBe(`{"alg":"RS256","typ":"JWT","kid":"${String(kid)}"}`);
    await expect(resourceServerVerify(idp, tokens.access_token, 'at+jwt')).rejects.toThrow(
      'unexpected "typ" JWT header value',
    );
  });
});

describe('tokens.accessTokenType at+jwt', () => {
  const idp = useIdp(() => ({
    fixtures: grantsFixtures(
      {
        'teller-web': {
          secret: 'teller-pass-7',
          redirectUris: ['http://app.fjord.test/cb'],
          grants: ['authorization_code', 'refresh_token', 'implicit'],
          scopes: ['openid', 'profile', 'ledger.read'],
        },
      },
      { accessTokenType: 'at+jwt' },
    ),
  }));

  it.each<[string, () => Promise<string>]>([
    ['the code flow', async () => (await loginTokens(idp, { scope: 'openid ledger.read' })).access_token],
    [
      'client_credentials',
      async () => {
        const answer = await clientCredentials(idp, 'ledger.read');
        expect(answer.status, answer.text).toBe(200);
        return answer.json.access_token;
      },
    ],
    [
      'the implicit flow (response_type token)',
      async () =>
        (await authorizeRedirect(idp, { responseType: 'token', scope: 'openid' })).get(
          'access_token',
        ) as string,
    ],
  ])('%s: header typ at+jwt, accepted by a typ-checking resource server', async (_name, accessToken) => {
    const token = await accessToken();
    const { kid } = decodeProtectedHeader(token);
    expect(headerText(token)).toBe(`{"alg":"RS256","typ":"at+jwt","kid":"${String(kid)}"}`);
    const { payload } = await resourceServerVerify(idp, token, 'at+jwt');
    expect(payload['typ']).toBe('Bearer');
  });

  it('POST /mock/tokens mints access tokens with the same header (typ still overridable)', async () => {
    const mint = async (header?: Record<string, unknown>): Promise<string> => {
      const minted = await call<{ token: string }>('POST', `${idp.issuer}/mock/tokens`, {
        type: 'access',
        client: 'teller-web',
        user: 'ingrid',
        ...(header !== undefined ? { header } : {}),
      });
      expect(minted.status, minted.text).toBe(200);
      return minted.json.token;
    };
    const token = await mint();
    expect(decodeProtectedHeader(token).typ).toBe('at+jwt');
    await resourceServerVerify(idp, token, 'at+jwt');
    expect(decodeProtectedHeader(await mint({ typ: 'JWT' })).typ).toBe('JWT');
  });

  it('ID and refresh tokens keep typ JWT', async () => {
    const tokens = await loginTokens(idp, { scope: 'openid' });
    expect(decodeProtectedHeader(tokens.id_token as string).typ).toBe('JWT');
    expect(decodeProtectedHeader(tokens.refresh_token).typ).toBe('JWT');
  });

  it('an at+jwt access token serves userinfo, introspection and token exchange', async () => {
    const tokens = await loginTokens(idp, { scope: 'openid profile ledger.read' });
    const userinfo = await get(idp.endpoints.userinfo, { authorization: `Bearer ${tokens.access_token}` });
    expect(userinfo.status, userinfo.text).toBe(200);
    expect(userinfo.json['name']).toBe('Ingrid Fjeld');
    expect((await introspect(idp, tokens.access_token)).json['active']).toBe(true);
    const exchanged = await postForm(
      idp.endpoints.token,
      {
        grant_type: TOKEN_EXCHANGE,
        subject_token: tokens.access_token,
        subject_token_type: ACCESS_TOKEN_TYPE,
      },
      { authorization: basicFor('ledger-api') },
    );
    expect(exchanged.status, exchanged.text).toBe(200);
    expect(decodeProtectedHeader(exchanged.json['access_token'] as string).typ).toBe('at+jwt');
  });
});
