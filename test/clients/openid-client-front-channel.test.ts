// openid-client v6 on the front-channel response types discovery advertises: the implicit id_token flow
// (implicitAuthentication) and the hybrid code id_token flow (c_hash and s_hash checked by the library).
import * as client from 'openid-client';
import { describe, expect, it } from 'vitest';
import type { FixturesInput } from '../../src/fixtures/schema.js';
import { useIdp } from '../helpers/server.js';

const FIXTURES: FixturesInput = {
  realm: 'front',
  clients: {
    spa: { authMethods: ['none'], redirectUris: ['http://spa.test/cb'], grants: ['implicit'] },
    classic: { secret: 'classic-secret', redirectUris: ['http://classic.test/cb'] },
    web: {
      secret: 'web-secret',
      redirectUris: ['http://web.test/cb'],
      grants: ['authorization_code', 'refresh_token', 'implicit'],
    },
  },
  users: { kari: { claims: { name: 'Kari Nordmann' } } },
};

/** mock-idp listens on http://; openid-client refuses that unless told otherwise. */
const insecure = { execute: [client.allowInsecureRequests] };

const idp = useIdp({ fixtures: FIXTURES });

/** What the browser does: follow authorize (login_hint signs in at once) to the URL the app is sent to. */
async function callbackOf(url: URL): Promise<URL> {
  const response = await fetch(url, { redirect: 'manual' });
  expect(response.status, await response.text()).toBe(302);
  return new URL(response.headers.get('location') as string);
}

/** A form_post page's hidden fields, moved into the fragment as openid-client's docs show for form_post. */
async function formPostAsUrl(url: URL): Promise<URL> {
  const response = await fetch(url, { redirect: 'manual' });
  const html = await response.text();
  expect(response.status, html).toBe(200);
  const action = /<form method="post" action="([^"]*)"/.exec(html)?.[1] as string;
  const fields = new URLSearchParams();
  for (const m of html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g))
    fields.set(
      m[1] as string,
      (m[2] as string).replace(/&#(\d+);/g, (_m, n: string) => String.fromCharCode(Number(n))),
    );
  const target = new URL(action);
  target.hash = fields.toString();
  return target;
}

describe('openid-client: implicit flow (response_type=id_token)', () => {
  it.each(['fragment', 'form_post'])('implicitAuthentication validates the ID token (%s)', async (mode) => {
    const config = await client.discovery(new URL(idp.issuer), 'spa', undefined, client.None(), {
      execute: [client.allowInsecureRequests, client.useIdTokenResponseType],
    });
    const nonce = client.randomNonce();
    const state = client.randomState();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: 'http://spa.test/cb',
      scope: 'openid profile',
      nonce,
      state,
      login_hint: 'kari',
      ...(mode === 'form_post' ? { response_mode: 'form_post' } : {}),
    });
    expect(url.searchParams.get('response_type')).toBe('id_token');
    const callback = mode === 'form_post' ? await formPostAsUrl(url) : await callbackOf(url);
    const claims = await client.implicitAuthentication(config, callback, nonce, { expectedState: state });
    expect(claims).toMatchObject({ iss: idp.issuer, aud: 'spa', nonce, name: 'Kari Nordmann' });
  });

  it('implicitAuthentication refuses the answer for another nonce', async () => {
    const config = await client.discovery(new URL(idp.issuer), 'spa', undefined, client.None(), {
      execute: [client.allowInsecureRequests, client.useIdTokenResponseType],
    });
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: 'http://spa.test/cb',
      scope: 'openid',
      nonce: 'the-real-nonce',
      login_hint: 'kari',
    });
    const error = await client
      .implicitAuthentication(config, await callbackOf(url), 'another-nonce')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(client.ClientError);
    expect((error as client.ClientError).cause).toMatchObject({
      cause: { claim: 'nonce', expected: 'another-nonce', claims: { nonce: 'the-real-nonce' } },
    });
  });

  it('surfaces unauthorized_client for a client without the implicit grant', async () => {
    const config = await client.discovery(new URL(idp.issuer), 'classic', 'classic-secret', undefined, {
      execute: [client.allowInsecureRequests, client.useIdTokenResponseType],
    });
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: 'http://classic.test/cb',
      scope: 'openid',
      nonce: 'n',
      login_hint: 'kari',
    });
    const error = await client
      .implicitAuthentication(config, await callbackOf(url), 'n')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(client.AuthorizationResponseError);
    expect((error as client.AuthorizationResponseError).error).toBe('unauthorized_client');
  });
});

describe('openid-client: hybrid flow (response_type=code id_token)', () => {
  it.each(['fragment', 'form_post'])(
    'authorizationCodeGrant checks c_hash and s_hash, then exchanges the code (%s)',
    async (mode) => {
      const config = await client.discovery(new URL(idp.issuer), 'web', 'web-secret', undefined, insecure);
      client.useCodeIdTokenResponseType(config);
      const nonce = client.randomNonce();
      const state = client.randomState();
      const verifier = client.randomPKCECodeVerifier();
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: 'http://web.test/cb',
        scope: 'openid profile',
        nonce,
        state,
        code_challenge: await client.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        login_hint: 'kari',
        ...(mode === 'form_post' ? { response_mode: 'form_post' } : {}),
      });
      expect(url.searchParams.get('response_type')).toBe('code id_token');
      const callback = mode === 'form_post' ? await formPostAsUrl(url) : await callbackOf(url);
      const tokens = await client.authorizationCodeGrant(config, callback, {
        expectedNonce: nonce,
        expectedState: state,
        pkceCodeVerifier: verifier,
      });
      expect(tokens.claims()).toMatchObject({ aud: 'web', nonce, name: 'Kari Nordmann' });
      expect(tokens.refresh_token).toEqual(expect.any(String));
    },
  );
});
