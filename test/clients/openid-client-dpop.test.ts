// openid-client v6 with a DPoP handle (RFC 9449), as an application would use it: the code flow, client
// credentials, a public client's refresh and userinfo; the tokens checked with jose as a resource server would.
import { calculateJwkThumbprint, createRemoteJWKSet, exportJWK, jwtVerify } from 'jose';
import * as client from 'openid-client';
import { describe, expect, it } from 'vitest';
import { authorizeRedirect, SECRETS } from '../helpers/flows.js';
import { useIdp } from '../helpers/server.js';

const INGRID_SUB = '7f3e2a10-5b6c-4d7e-8f90-a1b2c3d4e5f6';
const insecure = { execute: [client.allowInsecureRequests] };

const idp = useIdp();

const discover = (clientId: string, auth: client.ClientAuth): Promise<client.Configuration> =>
  client.discovery(new URL(idp.issuer), clientId, undefined, auth, insecure);

/** openid-client's documented option that signs with an Ed25519 key as `alg: EdDSA` (not `Ed25519`). */
const remapEd25519: client.ModifyAssertionOptions = {
  [client.modifyAssertion]: (header) => {
    if (header.alg === 'Ed25519') header.alg = 'EdDSA';
  },
};

/** A DPoP key pair, its openid-client handle and its RFC 7638 thumbprint. */
async function dpopKey(
  config: client.Configuration,
  alg = 'ES256',
  options?: client.ModifyAssertionOptions,
): Promise<{ handle: client.DPoPHandle; jkt: string }> {
  const keyPair = await client.randomDPoPKeyPair(alg);
  const jkt = await calculateJwkThumbprint(await exportJWK(keyPair.publicKey));
  return { handle: client.getDPoPHandle(config, keyPair, options), jkt };
}

/** The access token's claims, verified with the realm's JWKS. */
async function accessClaims(token: string): Promise<Record<string, unknown>> {
  const jwks = createRemoteJWKSet(new URL(idp.endpoints.certs));
  return (await jwtVerify(token, jwks, { issuer: idp.issuer })).payload;
}

/** The code flow's browser part through the flow helpers: the callback URL the app receives. */
async function callback(
  config: client.Configuration,
  clientId: string,
  redirectUri: string,
  verifier: string,
): Promise<URL> {
  const params = await authorizeRedirect(idp, {
    client: clientId,
    redirectUri,
    scope: 'openid profile',
    state: 'dpop-state',
    codeChallenge: await client.calculatePKCECodeChallenge(verifier),
    codeChallengeMethod: 'S256',
  });
  expect(config.serverMetadata().issuer).toBe(idp.issuer);
  return new URL(`${redirectUri}?${params}`);
}

/**
 * A code bound to `handle`'s key: exchanged with `wrong` (none: no proof) it is refused with
 * invalid_dpop_proof; a fresh one exchanged with `handle` gives a DPoP token whose cnf names `jkt`.
 */
async function expectBoundCode(
  config: client.Configuration,
  callbackUrl: () => Promise<URL>,
  state: string,
  { handle, jkt }: { handle: client.DPoPHandle; jkt: string },
  wrong?: client.DPoPHandle,
): Promise<void> {
  const error = await client
    .authorizationCodeGrant(config, await callbackUrl(), { expectedState: state }, undefined, {
      ...(wrong !== undefined ? { DPoP: wrong } : {}),
    })
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(client.ResponseBodyError);
  expect((error as client.ResponseBodyError).error).toBe('invalid_dpop_proof');
  const tokens = await client.authorizationCodeGrant(
    config,
    await callbackUrl(),
    { expectedState: state },
    undefined,
    { DPoP: handle },
  );
  expect(tokens.token_type).toBe('dpop');
  expect((await accessClaims(tokens.access_token))['cnf']).toEqual({ jkt });
}

describe('openid-client with getDPoPHandle', () => {
  it('discovery advertises the proof algorithms', async () => {
    const config = await discover('teller-web', client.ClientSecretBasic(SECRETS['teller-web']));
    expect(config.serverMetadata().dpop_signing_alg_values_supported).toEqual(
      expect.arrayContaining(['ES256', 'RS256', 'PS256', 'EdDSA']),
    );
  });

  it('authorization code: a DPoP-bound access token, userinfo with the same key, introspection shows cnf', async () => {
    const config = await discover('teller-web', client.ClientSecretBasic(SECRETS['teller-web']));
    const { handle, jkt } = await dpopKey(config);
    const verifier = client.randomPKCECodeVerifier();
    const tokens = await client.authorizationCodeGrant(
      config,
      await callback(config, 'teller-web', 'http://app.fjord.test/cb', verifier),
      { pkceCodeVerifier: verifier, expectedState: 'dpop-state' },
      undefined,
      { DPoP: handle },
    );
    expect(tokens.token_type).toBe('dpop');
    expect((await accessClaims(tokens.access_token))['cnf']).toEqual({ jkt });

    const userinfo = await client.fetchUserInfo(config, tokens.access_token, INGRID_SUB, { DPoP: handle });
    expect(userinfo).toMatchObject({ sub: INGRID_SUB, preferred_username: 'ingrid' });

    const rs = await discover('ledger-api', client.ClientSecretBasic(SECRETS['ledger-api']));
    expect(await client.tokenIntrospection(rs, tokens.access_token)).toMatchObject({
      active: true,
      cnf: { jkt },
      token_type: 'DPoP',
    });
  });

  it('userinfo refuses the bound token without its proof (fetchUserInfo without the handle)', async () => {
    const config = await discover('teller-web', client.ClientSecretBasic(SECRETS['teller-web']));
    const { handle } = await dpopKey(config);
    const verifier = client.randomPKCECodeVerifier();
    const tokens = await client.authorizationCodeGrant(
      config,
      await callback(config, 'teller-web', 'http://app.fjord.test/cb', verifier),
      { pkceCodeVerifier: verifier, expectedState: 'dpop-state' },
      undefined,
      { DPoP: handle },
    );
    const error = await client
      .fetchUserInfo(config, tokens.access_token, INGRID_SUB)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(client.WWWAuthenticateChallengeError);
    const [challenge] = (error as client.WWWAuthenticateChallengeError).cause;
    expect(challenge?.scheme).toBe('dpop');
    expect(challenge?.parameters.error).toBe('invalid_token');
  });

  it.each<[string, string, client.ModifyAssertionOptions | undefined]>([
    ['ES256', 'ES256', undefined],
    ['RS256', 'RS256', undefined],
    ['PS256', 'PS256', undefined],
    ['Ed25519', 'Ed25519', undefined],
    ['EdDSA', 'Ed25519', remapEd25519],
  ])('client_credentials with a proof signed %s', async (_alg, keyAlg, options) => {
    const config = await discover('ledger-sync', client.ClientSecretBasic(SECRETS['ledger-sync']));
    const { handle, jkt } = await dpopKey(config, keyAlg, options);
    const tokens = await client.clientCredentialsGrant(config, { scope: 'ledger.read' }, { DPoP: handle });
    expect(tokens.token_type).toBe('dpop');
    expect((await accessClaims(tokens.access_token))['cnf']).toEqual({ jkt });
  });

  it("a public client's refresh token is bound: refreshTokenGrant with the same key works, with another it does not", async () => {
    const config = await discover('kiosk-spa', client.None());
    const { handle, jkt } = await dpopKey(config);
    const verifier = client.randomPKCECodeVerifier();
    const tokens = await client.authorizationCodeGrant(
      config,
      await callback(config, 'kiosk-spa', 'http://kiosk.fjord.test/cb', verifier),
      { pkceCodeVerifier: verifier, expectedState: 'dpop-state' },
      undefined,
      { DPoP: handle },
    );
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token as string, undefined, {
      DPoP: handle,
    });
    expect(refreshed.token_type).toBe('dpop');
    expect((await accessClaims(refreshed.access_token))['cnf']).toEqual({ jkt });

    const other = await dpopKey(config);
    const error = await client
      .refreshTokenGrant(config, refreshed.refresh_token as string, undefined, { DPoP: other.handle })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(client.ResponseBodyError);
    expect((error as client.ResponseBodyError).error).toBe('invalid_dpop_proof');
    expect((error as client.ResponseBodyError).status).toBe(400);
  });

  it("dpop_jkt: buildAuthorizationUrl with the handle's thumbprint binds the code; only that key exchanges it", async () => {
    const config = await discover('teller-web', client.ClientSecretBasic(SECRETS['teller-web']));
    const { handle, jkt } = await dpopKey(config);
    const other = await dpopKey(config);
    const codeCallback = async (): Promise<URL> => {
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: 'http://app.fjord.test/cb',
        scope: 'openid',
        state: 'jkt-state',
        login_hint: 'ingrid',
        dpop_jkt: await handle.calculateThumbprint(),
      });
      const response = await fetch(url, { redirect: 'manual' });
      expect(response.status).toBe(302);
      return new URL(response.headers.get('location') as string);
    };
    await expectBoundCode(config, codeCallback, 'jkt-state', { handle, jkt }, other.handle);
  });

  it('PAR with the DPoP handle (buildAuthorizationUrlWithPAR) binds the code to its key', async () => {
    const config = await discover('teller-web', client.ClientSecretBasic(SECRETS['teller-web']));
    const { handle, jkt } = await dpopKey(config);
    const pushedCallback = async (): Promise<URL> => {
      const url = await client.buildAuthorizationUrlWithPAR(
        config,
        {
          redirect_uri: 'http://app.fjord.test/cb',
          scope: 'openid',
          state: 'par-state',
          login_hint: 'ingrid',
        },
        { DPoP: handle },
      );
      const response = await fetch(url, { redirect: 'manual' });
      expect(response.status).toBe(302);
      return new URL(response.headers.get('location') as string);
    };
    await expectBoundCode(config, pushedCallback, 'par-state', { handle, jkt });
  });
});
