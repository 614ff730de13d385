// The authorize request: validation steps and code issuance, apart from HTTP.
import type { Client, Subject } from '../fixtures/realm.js';
import type { Provider } from '../provider.js';
import { sessionStateFor } from './browser-session.js';
import type { Session } from './store.js';
import { buildIdClaims } from '../tokens/claims.js';
import { halfHash, signRs256 } from '../tokens/sign.js';
import { OAuthError, invalidRequest } from './errors.js';
import type { Params } from './params.js';
import { grantScopes, parseScope } from './scopes.js';

export type ResponseMode = 'query' | 'fragment' | 'form_post';

export interface AuthorizeRequest {
  client: Client;
  redirectUri: string;
  responseType: 'code' | 'code id_token';
  responseMode: ResponseMode;
  scopes: string[];
  state?: string;
  nonce?: string;
  codeChallenge?: string;
  codeChallengeMethod?: 'S256' | 'plain';
  /** `prompt` values: `none` (silent), `login` (the login page even with a session), `consent`, `select_account`. */
  prompt: Set<Prompt>;
  /** `max_age`, seconds: a session authenticated longer ago than this needs a new login. */
  maxAge?: number;
}

const PROMPTS = ['none', 'login', 'consent', 'select_account'] as const;
export type Prompt = (typeof PROMPTS)[number];

/** `prompt` (OIDC Core 3.1.2.1): space-separated known values; `none` stands alone. */
export function parsePrompt(value: string | undefined): Set<Prompt> {
  const prompt = new Set<Prompt>();
  for (const part of (value ?? '').split(' ')) {
    if (part === '') continue;
    if (!(PROMPTS as readonly string[]).includes(part))
      throw invalidRequest(`Invalid parameter: prompt "${part}" (none, login, consent or select_account)`);
    prompt.add(part as Prompt);
  }
  if (prompt.has('none') && prompt.size > 1)
    throw invalidRequest('Invalid parameter: prompt=none cannot be combined with other values');
  return prompt;
}

function parseMaxAge(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,10}$/.test(value))
    throw invalidRequest('Invalid parameter: max_age (seconds, a non-negative integer)');
  return Number(value);
}

/** Checks everything after client and redirect_uri; errors from here are sent to the redirect_uri. */
export function checkAuthorizeRequest(
  p: Provider,
  client: Client,
  redirectUri: string,
  params: Params,
): AuthorizeRequest {
  const responseType = params.get('response_type');
  if (responseType === undefined) throw invalidRequest('Missing parameter: response_type');
  const normalized = responseType.split(' ').sort().join(' ');
  if (normalized !== 'code' && normalized !== 'code id_token') {
    throw new OAuthError(
      'unsupported_response_type',
      `Unsupported response_type "${responseType}" (supported: code, code id_token)`,
    );
  }
  const type = normalized as AuthorizeRequest['responseType'];
  const mode = params.get('response_mode') ?? (type === 'code' ? 'query' : 'fragment');
  if (mode !== 'query' && mode !== 'fragment' && mode !== 'form_post')
    throw invalidRequest(`Invalid parameter: response_mode "${mode}"`);
  if (type !== 'code' && mode === 'query')
    throw invalidRequest(
      'Invalid parameter: response_mode query is not allowed with an ID token in the response',
    );
  if (!client.grants.includes('authorization_code')) {
    throw new OAuthError(
      'unauthorized_client',
      `Client "${client.id}" is not allowed the authorization_code grant`,
    );
  }
  const scopes = grantScopes(p.realm, client, parseScope(params.get('scope')));
  const nonce = params.get('nonce');
  if (type === 'code id_token' && nonce === undefined)
    throw invalidRequest('Missing parameter: nonce (required with an ID token in the response)');
  if (type === 'code id_token' && !scopes.includes('openid'))
    throw invalidRequest('The scope openid is required with response_type code id_token');
  const codeChallenge = params.get('code_challenge');
  const method = params.get('code_challenge_method') ?? (codeChallenge !== undefined ? 'plain' : undefined);
  if (method !== undefined && method !== 'S256' && method !== 'plain')
    throw invalidRequest(`Invalid parameter: code_challenge_method "${method}" (S256 or plain)`);
  if (method !== undefined && codeChallenge === undefined)
    throw invalidRequest('Missing parameter: code_challenge');
  if (codeChallenge !== undefined && !/^[A-Za-z0-9\-._~]{43,128}$/.test(codeChallenge))
    throw invalidRequest('Invalid parameter: code_challenge');
  if (client.pkce === 'required' && codeChallenge === undefined)
    throw invalidRequest(`Missing parameter: code_challenge_method (client "${client.id}" requires PKCE)`);
  if (client.pkce === 'required' && method !== 'S256')
    throw invalidRequest(`Invalid parameter: code_challenge_method (client "${client.id}" requires S256)`);
  const state = params.get('state');
  const prompt = parsePrompt(params.get('prompt'));
  const maxAge = parseMaxAge(params.get('max_age'));
  return {
    client,
    prompt,
    ...(maxAge !== undefined ? { maxAge } : {}),
    redirectUri,
    responseType: type,
    responseMode: mode,
    scopes,
    ...(state !== undefined ? { state } : {}),
    ...(nonce !== undefined ? { nonce } : {}),
    ...(codeChallenge !== undefined ? { codeChallenge } : {}),
    ...(method !== undefined ? { codeChallengeMethod: method } : {}),
  };
}

/**
 * Whether `session` may sign this request in without the login page: no `prompt=login`, and within
 * `max_age` of its last real login.
 */
export function sessionSatisfies(req: AuthorizeRequest, session: Session, now: number): boolean {
  if (req.prompt.has('login')) return false;
  return req.maxAge === undefined || now - session.authTime <= req.maxAge;
}

/** Stores a code for `session` and returns the response parameters (with an ID token for `code id_token`). */
export async function issueCode(
  p: Provider,
  req: AuthorizeRequest,
  session: Session,
  user: Subject,
  issuer: string,
): Promise<Record<string, string>> {
  const now = p.clock.nowSeconds();
  const sessionId = session.id;
  const username = user.username;
  const sessionState = sessionStateFor(req.client.id, req.redirectUri, sessionId, p.ids.opaque('salt', 12));
  const code = `${p.ids.opaque('code', 24)}.${sessionId}`;
  p.store.addCode({
    code,
    clientId: req.client.id,
    redirectUri: req.redirectUri,
    scopes: req.scopes,
    sessionId,
    sessionState,
    username,
    expiresAt: now + p.realm.tokens.codeLifespan,
    ...(req.nonce !== undefined ? { nonce: req.nonce } : {}),
    ...(req.codeChallenge !== undefined ? { codeChallenge: req.codeChallenge } : {}),
    ...(req.codeChallengeMethod !== undefined ? { codeChallengeMethod: req.codeChallengeMethod } : {}),
  });
  const out: Record<string, string> = {};
  if (req.state !== undefined) out['state'] = req.state;
  out['session_state'] = sessionState;
  out['iss'] = issuer;
  out['code'] = code;
  if (req.responseType === 'code id_token') {
    const grant = {
      client: req.client,
      subject: user,
      serviceAccount: false,
      scopes: req.scopes,
      sessionId,
      sessionState,
      authTime: session.authTime,
      ...(req.nonce !== undefined ? { nonce: req.nonce } : {}),
    };
    const stamp = { issuer, jti: p.ids.uuid('jti'), iat: now, exp: now + p.realm.tokens.accessTokenLifespan };
    out['id_token'] = await signRs256(
      p.keys.active,
      buildIdClaims(p.realm, grant, stamp, { cHash: halfHash(code) }),
    );
  }
  return out;
}
