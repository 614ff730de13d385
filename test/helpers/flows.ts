// Flow helpers over HTTP: drive authorize with login_hint, exchange codes, client credentials, refresh.
import { expect } from 'vitest';
import { basic, postForm, type Answer } from './http.js';
import type { TokenResponse } from '../../src/oauth/token-set.js';
import type { TestIdp } from './server.js';

/** Token response fields (interface document, "Token response"). */
export type { TokenResponse } from '../../src/oauth/token-set.js';

export interface ErrorResponse {
  error: string;
  error_description?: string;
}

/** Client secrets of the fjord fixtures. */
export const SECRETS = {
  'teller-web': 'teller-pass-7',
  'counter-app': 'counter-pass',
  'ledger-sync': 'sync:pa ss+w%rd/ø',
  'ledger-api': 'ledger-rs-pass',
  'statement-rs': 'stmt-rs-pass',
} as const;

export type SecretClient = keyof typeof SECRETS;

export const basicFor = (client: SecretClient): string => basic(client, SECRETS[client]);

/** Clients of the fjord fixtures that allow only client_secret_post. */
const POST_ONLY = new Set<string>(['counter-app']);

/** The client's credentials as it is registered to send them: a Basic header, or client_id + client_secret. */
export function credentialsFor(client: SecretClient): {
  authorization?: string;
  body: Record<string, string>;
} {
  return POST_ONLY.has(client)
    ? { body: { client_id: client, client_secret: SECRETS[client] } }
    : { authorization: basicFor(client), body: {} };
}

export interface AuthorizeParams {
  client?: string;
  redirectUri?: string;
  scope?: string;
  user?: string;
  state?: string;
  nonce?: string;
  responseType?: string;
  responseMode?: string;
  codeChallenge?: string;
  codeChallengeMethod?: string;
  extra?: Record<string, string>;
}

export function authorizeUrl(idp: TestIdp, a: AuthorizeParams = {}): string {
  const params = new URLSearchParams({
    response_type: a.responseType ?? 'code',
    client_id: a.client ?? 'teller-web',
    redirect_uri: a.redirectUri ?? 'http://app.fjord.test/cb',
    scope: a.scope ?? 'openid',
    state: a.state ?? 'st-1',
  });
  if (a.user !== undefined) params.set('login_hint', a.user);
  if (a.nonce !== undefined) params.set('nonce', a.nonce);
  if (a.responseMode !== undefined) params.set('response_mode', a.responseMode);
  if (a.codeChallenge !== undefined) params.set('code_challenge', a.codeChallenge);
  if (a.codeChallengeMethod !== undefined) params.set('code_challenge_method', a.codeChallengeMethod);
  for (const [k, v] of Object.entries(a.extra ?? {})) params.set(k, v);
  return `${idp.endpoints.auth}?${params}`;
}

/** Calls authorize (no redirect following) and returns the 302 Location's query parameters. */
export async function authorizeRedirect(idp: TestIdp, a: AuthorizeParams): Promise<URLSearchParams> {
  const response = await fetch(authorizeUrl(idp, { user: 'ingrid', ...a }), { redirect: 'manual' });
  const location = response.headers.get('location');
  expect(response.status, await response.text()).toBe(302);
  expect(location).not.toBeNull();
  const url = new URL(location as string);
  return url.hash.length > 1 ? new URLSearchParams(url.hash.slice(1)) : url.searchParams;
}

/** GET authorize with exactly `query` (no defaults added), without following the redirect. */
export function authorizeWith(idp: TestIdp, query: Record<string, string>): Promise<Response> {
  return fetch(`${idp.endpoints.auth}?${new URLSearchParams(query)}`, { redirect: 'manual' });
}

/** The query parameters a 302 carries, after checking it is one and goes to `base`. */
export async function redirectParams(response: Response, base: string): Promise<URLSearchParams> {
  expect(response.status, await response.clone().text()).toBe(302);
  const url = new URL(response.headers.get('location') as string);
  expect(`${url.origin}${url.pathname}`).toBe(base);
  return url.searchParams;
}

/** A fresh authorization code for `a` (default: teller-web, ingrid, scope openid). */
export async function codeFor(idp: TestIdp, a: AuthorizeParams = {}): Promise<string> {
  const params = await authorizeRedirect(idp, a);
  const code = params.get('code');
  expect(code, params.toString()).toBeTruthy();
  return code as string;
}

/** Exchanges a code (teller-web by Basic unless other params say otherwise). */
export async function exchangeCode<T = TokenResponse>(
  idp: TestIdp,
  code: string,
  options: {
    client?: SecretClient;
    redirectUri?: string;
    extra?: Record<string, string>;
    authorization?: string;
  } = {},
): Promise<Answer<T>> {
  const { authorization, body } = credentialsFor(options.client ?? 'teller-web');
  const header = options.authorization ?? authorization;
  return postForm<T>(
    idp.endpoints.token,
    {
      grant_type: 'authorization_code',
      code,
      redirect_uri: options.redirectUri ?? 'http://app.fjord.test/cb',
      ...(options.authorization === undefined ? body : {}),
      ...options.extra,
    },
    header !== undefined ? { authorization: header } : {},
  );
}

/** The whole code flow for teller-web: authorize with login_hint, exchange, expect 200. */
export async function loginTokens(idp: TestIdp, a: AuthorizeParams = {}): Promise<TokenResponse> {
  const code = await codeFor(idp, a);
  const answer = await exchangeCode(idp, code, {
    ...(a.client !== undefined ? { client: a.client as SecretClient } : {}),
    ...(a.redirectUri !== undefined ? { redirectUri: a.redirectUri } : {}),
  });
  expect(answer.status, answer.text).toBe(200);
  return answer.json;
}

export async function clientCredentials<T = TokenResponse>(
  idp: TestIdp,
  scope?: string,
  client: SecretClient = 'ledger-sync',
): Promise<Answer<T>> {
  return postForm<T>(
    idp.endpoints.token,
    { grant_type: 'client_credentials', ...(scope !== undefined ? { scope } : {}) },
    { authorization: basicFor(client) },
  );
}

export async function refresh<T = TokenResponse>(
  idp: TestIdp,
  refreshToken: string,
  options: { client?: SecretClient; scope?: string } = {},
): Promise<Answer<T>> {
  const { authorization, body } = credentialsFor(options.client ?? 'teller-web');
  return postForm<T>(
    idp.endpoints.token,
    {
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      ...(options.scope !== undefined ? { scope: options.scope } : {}),
      ...body,
    },
    authorization !== undefined ? { authorization } : {},
  );
}

export async function introspect(
  idp: TestIdp,
  token: string,
  caller: SecretClient = 'ledger-api',
): Promise<Answer> {
  const { authorization, body } = credentialsFor(caller);
  return postForm(
    idp.endpoints.introspect,
    { token, ...body },
    authorization !== undefined ? { authorization } : {},
  );
}
