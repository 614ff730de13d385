// openid-client v6 with request objects: a signed JAR (buildAuthorizationUrlWithJAR), an unsigned (alg none)
// object and a request_uri, each through a whole code flow against a real server.
import { UnsecuredJWT } from 'jose';
import * as client from 'openid-client';
import { describe, expect, it } from 'vitest';
import { SECRETS } from '../helpers/flows.js';
import { vaultSignerKey, verifyToken } from '../helpers/jwt.js';
import { codeFlow } from '../helpers/openid-client.js';
import { useIdp, useLocalServer } from '../helpers/server.js';

const INGRID_SUB = '7f3e2a10-5b6c-4d7e-8f90-a1b2c3d4e5f6';
const insecure = { execute: [client.allowInsecureRequests] };

const idp = useIdp();
let served = '';
const objects = useLocalServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/oauth-authz-req+jwt' }).end(served);
});

/** The browser part: authorize with login_hint in the object, and the redirect the app receives. */
async function callbackOf(url: URL): Promise<URL> {
  const response = await fetch(url, { redirect: 'manual' });
  expect(response.status, await response.text()).toBe(302);
  return new URL(response.headers.get('location') as string);
}

describe('openid-client request objects', () => {
  it('buildAuthorizationUrlWithJAR (RS256, the client key) then the code flow with private_key_jwt', async () => {
    const key = await vaultSignerKey();
    const config = await client.discovery(
      new URL(idp.issuer),
      'vault-signer',
      { token_endpoint_auth_method: 'private_key_jwt' },
      client.PrivateKeyJwt({ key, kid: 'vault-signer-2024' }),
      insecure,
    );
    expect(config.serverMetadata().request_parameter_supported).toBe(true);
    const nonce = client.randomNonce();
    const tokens = await codeFlow(
      config,
      { redirect_uri: 'http://vault.fjord.test/cb', scope: 'openid profile', nonce, login_hint: 'ingrid' },
      {
        build: async (c, params) => {
          const url = await client.buildAuthorizationUrlWithJAR(c, params, { key, kid: 'vault-signer-2024' });
          // Everything but client_id travels inside the signed object.
          expect([...url.searchParams.keys()].sort()).toEqual(['client_id', 'request']);
          return url;
        },
      },
    );
    expect(tokens.claims()).toMatchObject({ iss: idp.issuer, aud: 'vault-signer', sub: INGRID_SUB, nonce });
    expect(tokens.scope).toBe('openid profile');
  });

  it.each<[string, (object: string) => Record<string, string>]>([
    ['request (alg none)', (object) => ({ request: object })],
    [
      'request_uri (served by a local server)',
      (object) => {
        served = object;
        return { request_uri: `${objects.url}/ro` };
      },
    ],
  ])('%s then the code flow with client_secret_basic', async (_name, carry) => {
    const config = await client.discovery(
      new URL(idp.issuer),
      'teller-web',
      SECRETS['teller-web'],
      undefined,
      insecure,
    );
    const nonce = client.randomNonce();
    const object = new UnsecuredJWT({
      client_id: 'teller-web',
      response_type: 'code',
      redirect_uri: 'http://app.fjord.test/cb',
      scope: 'openid ledger.read',
      state: 'jar-state',
      nonce,
      login_hint: 'ingrid',
    })
      .setIssuer('teller-web')
      .setAudience(idp.issuer)
      .setIssuedAt()
      .setExpirationTime('1m')
      .encode();
    const url = new URL(idp.endpoints.auth);
    for (const [k, v] of Object.entries({ client_id: 'teller-web', ...carry(object) }))
      url.searchParams.set(k, v);
    const tokens = await client.authorizationCodeGrant(config, await callbackOf(url), {
      expectedNonce: nonce,
      expectedState: 'jar-state',
      idTokenExpected: true,
    });
    expect(tokens.scope).toBe('openid ledger.read');
    const { claims } = await verifyToken(idp, tokens.access_token);
    expect(claims).toMatchObject({ azp: 'teller-web', sub: INGRID_SUB });
  });
});
