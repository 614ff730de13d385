// client_secret_jwt: an HS256 client assertion keyed by the client secret, checked as private_key_jwt's are
// (iss/sub the client, aud, exp, single-use jti); openid-client's ClientSecretJwt through a code flow.
import { generateKeyPair, SignJWT } from 'jose';
import * as oidc from 'openid-client';
import { describe, expect, it } from 'vitest';
import { grantsFixtures } from '../helpers/grants.js';
import { call, postForm, type Answer } from '../helpers/http.js';
import { ASSERTION_TYPE, verifyToken } from '../helpers/jwt.js';
import { codeFlow } from '../helpers/openid-client.js';
import { useIdp } from '../helpers/server.js';

const CB = 'http://hmac.fjord.test/cb';
const idp = useIdp(() => ({
  fixtures: grantsFixtures({
    'hmac-app': {
      secret: 'hmac-app-secret-0123456789abcdef',
      authMethods: ['client_secret_jwt'],
      redirectUris: [CB],
      grants: ['authorization_code', 'refresh_token', 'client_credentials'],
      scopes: ['openid', 'profile', 'ledger.read'],
    },
  }),
}));

const now = (): number => Math.floor(Date.now() / 1000);

/** An HMAC client assertion (iss = sub = `client`), keyed by `secret`; `claims` set or (undefined) remove. */
async function hmacAssertion(
  client = 'hmac-app',
  secret = 'hmac-app-secret-0123456789abcdef',
  claims: Record<string, unknown> = {},
  alg = 'HS256',
): Promise<string> {
  const payload: Record<string, unknown> = {
    iss: client,
    sub: client,
    aud: idp.endpoints.token,
    jti: crypto.randomUUID(),
    iat: now(),
    exp: now() + 60,
  };
  for (const [k, v] of Object.entries(claims)) {
    if (v === undefined) delete payload[k];
    else payload[k] = v;
  }
  return new SignJWT(payload).setProtectedHeader({ alg }).sign(new TextEncoder().encode(secret));
}

const clientCredentials = (assertion: string): Promise<Answer> =>
  postForm(idp.endpoints.token, {
    grant_type: 'client_credentials',
    client_assertion_type: ASSERTION_TYPE,
    client_assertion: assertion,
  });

describe('client_secret_jwt', () => {
  it('openid-client ClientSecretJwt: code flow with PKCE, ID token validated, then refresh', async () => {
    const config = await oidc.discovery(
      new URL(idp.issuer),
      'hmac-app',
      undefined,
      oidc.ClientSecretJwt('hmac-app-secret-0123456789abcdef'),
      { execute: [oidc.allowInsecureRequests] },
    );
    const tokens = await codeFlow(config, {
      redirect_uri: CB,
      scope: 'openid profile',
      login_hint: 'ingrid',
    });
    expect(tokens.claims()).toMatchObject({ aud: 'hmac-app', name: 'Ingrid Fjeld' });
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token as string);
    expect(refreshed.claims()?.sub).toBe(tokens.claims()?.sub);
  });

  it('openid-client ClientSecretJwt: client_credentials', async () => {
    const config = await oidc.discovery(
      new URL(idp.issuer),
      'hmac-app',
      undefined,
      oidc.ClientSecretJwt('hmac-app-secret-0123456789abcdef'),
      { execute: [oidc.allowInsecureRequests] },
    );
    const tokens = await oidc.clientCredentialsGrant(config, { scope: 'ledger.read' });
    const { claims } = await verifyToken(idp, tokens.access_token, 'ledger-api');
    expect(claims).toMatchObject({ azp: 'hmac-app', client_id: 'hmac-app' });
  });

  it('a client registered with token_endpoint_auth_method client_secret_jwt gets a secret to sign with', async () => {
    const registered = await call<{ client_id: string; client_secret: string }>(
      'POST',
      idp.endpoints.registration,
      {
        grant_types: ['client_credentials'],
        token_endpoint_auth_method: 'client_secret_jwt',
        scope: 'ledger.read',
      },
    );
    expect(registered.status, registered.text).toBe(201);
    const config = await oidc.discovery(
      new URL(idp.issuer),
      registered.json.client_id,
      undefined,
      oidc.ClientSecretJwt(registered.json.client_secret),
      { execute: [oidc.allowInsecureRequests] },
    );
    const tokens = await oidc.clientCredentialsGrant(config, { scope: 'ledger.read' });
    expect((await verifyToken(idp, tokens.access_token)).claims['azp']).toBe(registered.json.client_id);
    const basic = await postForm(
      idp.endpoints.token,
      { grant_type: 'client_credentials' },
      {
        authorization: `Basic ${Buffer.from(`${registered.json.client_id}:${registered.json.client_secret}`).toString('base64')}`,
      },
    );
    expect(basic.status).toBe(401);
  });

  it.each(['HS256', 'HS384', 'HS512'])(
    'an assertion signed %s with the secret authenticates',
    async (alg) => {
      const answer = await clientCredentials(await hmacAssertion(undefined, undefined, {}, alg));
      expect(answer.status, answer.text).toBe(200);
      const { claims } = await verifyToken(idp, answer.json['access_token'] as string);
      expect(claims).toMatchObject({ azp: 'hmac-app', client_id: 'hmac-app' });
    },
  );

  it('an assertion is single-use', async () => {
    const assertion = await hmacAssertion();
    expect((await clientCredentials(assertion)).status).toBe(200);
    const again = await clientCredentials(assertion);
    expect(again.status).toBe(401);
    expect(again.json).toEqual({
      error: 'unauthorized_client',
      error_description: 'Invalid client assertion: jti was already used (assertions are single-use)',
    });
  });

  it.each<[string, () => Promise<string>, Record<string, string>]>([
    [
      'keyed by another secret',
      () => hmacAssertion('hmac-app', 'not-the-secret-0123456789abcdefgh'),
      {
        error: 'unauthorized_client',
        error_description: 'Invalid client assertion: signature verification failed',
      },
    ],
    [
      'a client that does not allow client_secret_jwt',
      () => hmacAssertion('teller-web', 'teller-pass-7'),
      {
        error: 'unauthorized_client',
        error_description:
          'Client "teller-web" may not authenticate with client_secret_jwt (allowed: client_secret_basic, client_secret_post)',
      },
    ],
    [
      'signed RS256 by a client with no jwks (client_secret_jwt only)',
      async () => {
        const { privateKey } = await generateKeyPair('RS256');
        return new SignJWT({ jti: crypto.randomUUID() })
          .setProtectedHeader({ alg: 'RS256' })
          .setIssuer('hmac-app')
          .setSubject('hmac-app')
          .setAudience(idp.endpoints.token)
          .setIssuedAt()
          .setExpirationTime('1m')
          .sign(privateKey);
      },
      {
        error: 'unauthorized_client',
        error_description:
          'Client "hmac-app" may not authenticate with private_key_jwt (allowed: client_secret_jwt): the client_assertion is signed RS256, but a client_secret_jwt assertion is signed HS256, HS384, HS512 with the client secret',
      },
    ],
    [
      'aud neither the issuer nor the token endpoint',
      () => hmacAssertion(undefined, undefined, { aud: 'http://elsewhere.test' }),
      {
        error: 'unauthorized_client',
        error_description: 'Invalid client assertion: aud check failed: unexpected "aud" claim value',
      },
    ],
    [
      'expired',
      () => hmacAssertion(undefined, undefined, { iat: now() - 600, exp: now() - 300 }),
      {
        error: 'unauthorized_client',
        error_description: 'Invalid client assertion: "exp" claim timestamp check failed',
      },
    ],
    [
      'no jti',
      () => hmacAssertion(undefined, undefined, { jti: undefined }),
      {
        error: 'unauthorized_client',
        error_description: 'Invalid client assertion: jti missing: missing required "jti" claim',
      },
    ],
    [
      'iss another client',
      () => hmacAssertion(undefined, undefined, { iss: 'teller-web' }),
      {
        error: 'unauthorized_client',
        error_description: 'Invalid client assertion: iss check failed: unexpected "iss" claim value',
      },
    ],
  ])('refused with 401: %s', async (_name, make, body) => {
    const answer = await clientCredentials(await make());
    expect(answer.status, answer.text).toBe(401);
    expect(answer.json).toEqual(body);
  });
});
