// openid-client v6 registers a client at the advertised registration_endpoint (RFC 7591) and uses it at
// once: the code flow with a client secret, and with private_key_jwt plus a signed request object.
import { readFileSync } from 'node:fs';
import * as client from 'openid-client';
import { describe, expect, it } from 'vitest';
import { vaultSignerKey } from '../helpers/jwt.js';
import { codeFlow } from '../helpers/openid-client.js';
import { useIdp, VAULT_SIGNER_KEY } from '../helpers/server.js';

const CB = 'http://rp.example.test/cb';
const INGRID_SUB = '7f3e2a10-5b6c-4d7e-8f90-a1b2c3d4e5f6';
const insecure = { execute: [client.allowInsecureRequests] };

const idp = useIdp();

/** Authorize as a browser would (login_hint) and return the redirect the app receives. */
async function callbackOf(url: URL): Promise<URL> {
  const response = await fetch(url, { redirect: 'manual' });
  expect(response.status, await response.text()).toBe(302);
  return new URL(response.headers.get('location') as string);
}

describe('openid-client dynamicClientRegistration', () => {
  it('registers a confidential client, then the code flow, refresh and introspection with it', async () => {
    const config = await client.dynamicClientRegistration(
      new URL(idp.issuer),
      { redirect_uris: [CB], client_name: 'openid-client app', scope: 'openid profile ledger.read' },
      undefined,
      insecure,
    );
    const meta = config.clientMetadata();
    expect(meta.client_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(typeof meta.client_secret).toBe('string');
    expect(meta['registration_client_uri']).toBe(
      `${idp.issuer}/clients-registrations/openid-connect/${meta.client_id}`,
    );

    const tokens = await codeFlow(config, {
      redirect_uri: CB,
      scope: 'openid profile ledger.read',
      login_hint: 'ingrid',
    });
    expect(tokens.claims()).toMatchObject({ iss: idp.issuer, aud: meta.client_id, sub: INGRID_SUB });
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token as string);
    expect(refreshed.claims()?.sub).toBe(INGRID_SUB);
    const introspected = await client.tokenIntrospection(config, refreshed.access_token);
    expect(introspected).toMatchObject({ active: true, client_id: meta.client_id, username: 'ingrid' });
  });

  it('registers a private_key_jwt client with jwks, then a signed request object (JAR) and the code flow', async () => {
    const key = await vaultSignerKey();
    const { kty, n, e } = JSON.parse(readFileSync(VAULT_SIGNER_KEY, 'utf8')) as Record<string, string>;
    const config = await client.dynamicClientRegistration(
      new URL(idp.issuer),
      {
        redirect_uris: [CB],
        token_endpoint_auth_method: 'private_key_jwt',
        jwks: { keys: [{ kty, n, e, kid: 'rp-key' }] },
      },
      client.PrivateKeyJwt({ key, kid: 'rp-key' }),
      insecure,
    );
    expect(config.clientMetadata().client_secret).toBeUndefined();
    const nonce = client.randomNonce();
    const url = await client.buildAuthorizationUrlWithJAR(
      config,
      { redirect_uri: CB, scope: 'openid', nonce, state: 'jar', login_hint: 'ingrid' },
      { key, kid: 'rp-key' },
    );
    const tokens = await client.authorizationCodeGrant(config, await callbackOf(url), {
      expectedNonce: nonce,
      expectedState: 'jar',
      idTokenExpected: true,
    });
    expect(tokens.claims()?.aud).toBe(config.clientMetadata().client_id);
  });

  it('surfaces a bad registration as a ResponseBodyError (invalid_redirect_uri)', async () => {
    const error = await client
      .dynamicClientRegistration(
        new URL(idp.issuer),
        { redirect_uris: [`${CB}#fragment`] },
        undefined,
        insecure,
      )
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(client.ResponseBodyError);
    expect((error as client.ResponseBodyError).error).toBe('invalid_redirect_uri');
    expect((error as client.ResponseBodyError).status).toBe(400);
  });
});
