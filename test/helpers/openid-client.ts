// openid-client v6 as an application drives it: the authorization-code flow with PKCE S256, nonce and state.
import * as client from 'openid-client';
import { expect } from 'vitest';

/** The token response of openid-client's code grant, with its helpers (`claims()` and the like). */
export type CodeFlowTokens = client.TokenEndpointResponse & client.TokenEndpointResponseHelpers;

interface CodeFlowOptions {
  /** The browser's GET of the authorize URL; it must not follow the redirect. Default: fetch, redirect manual. */
  get?: (url: URL) => Promise<Response>;
  /** How the app builds the authorize URL from its parameters (PAR, JAR…). Default: buildAuthorizationUrl. */
  build?: (config: client.Configuration, params: Record<string, string>) => URL | Promise<URL>;
}

/**
 * openid-client's code flow as an app runs it (PKCE S256, nonce, state): the authorize URL with `params`
 * (redirect_uri, scope, login_hint…; a `nonce` or `state` among them is used instead of a random one), built by
 * `build` and fetched by `get` without following redirects, its 302 to the callback, and the code exchange
 * openid-client verifies (ID token expected, nonce and state checked).
 */
export async function codeFlow(
  config: client.Configuration,
  params: Record<string, string>,
  options: CodeFlowOptions = {},
): Promise<CodeFlowTokens> {
  const { get = (url: URL) => fetch(url, { redirect: 'manual' }), build = client.buildAuthorizationUrl } =
    options;
  const verifier = client.randomPKCECodeVerifier();
  const nonce = params['nonce'] ?? client.randomNonce();
  const state = params['state'] ?? client.randomState();
  const url = await build(config, {
    ...params,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    nonce,
    state,
  });
  const response = await get(url);
  expect(response.status, await response.text()).toBe(302);
  return client.authorizationCodeGrant(config, new URL(response.headers.get('location') as string), {
    pkceCodeVerifier: verifier,
    expectedNonce: nonce,
    expectedState: state,
    idTokenExpected: true,
  });
}
