// The authorize request: validation steps and the front-channel response (code, tokens), apart from HTTP.
import type { Client, Subject } from '../fixtures/realm.js';
import type { RealmContext } from '../realm/context.js';
import type { Session } from '../store/state-store.js';
import { buildAccessClaims, buildIdClaims, type Grant, type Stamp } from '../tokens/claims.js';
import { accessTokenHeader, halfHash, signFor } from '../tokens/sign.js';
import { OAuthError, inKeycloakWords, invalidRequest } from './errors.js';
import type { Params } from './params.js';
import { grantScopes, parseScope } from './scopes.js';
import { methodFor, parseAcrValues, requestedVersion } from './api-version.js';
import { tokenTypeOf, type ApiVersion, type Method } from '../tokens/versions.js';
import { checkVersion4Request, type RequestVia } from './version-rules.js';

export type ResponseMode = 'query' | 'fragment' | 'form_post';

/**
 * The response types discovery advertises, words in this (alphabetical) order: `code` and `none` (the code
 * flow), `id_token`, `token`, `id_token token` (implicit), `code id_token`, `code token`,
 * `code id_token token` (hybrid; OIDC Core 3.3, OAuth 2.0 Multiple Response Types).
 */
export const RESPONSE_TYPES = [
  'code',
  'none',
  'id_token',
  'token',
  'id_token token',
  'code id_token',
  'code token',
  'code id_token token',
] as const;
type ResponseType = (typeof RESPONSE_TYPES)[number];

/** The words of a response_type in canonical order, or undefined for a combination that is not supported. */
export function parseResponseType(value: string): ResponseType | undefined {
  // Already canonical (as clients send `code`): nothing to sort.
  if (WORDS.has(value as ResponseType)) return value as ResponseType;
  const words = value.split(' ');
  if (new Set(words).size !== words.length) return undefined;
  const normalized = words.sort().join(' ');
  return (RESPONSE_TYPES as readonly string[]).includes(normalized)
    ? (normalized as ResponseType)
    : undefined;
}

/**
 * Whether the response carries a token (access or ID token): then never in the query (fragment or form_post).
 * It reads the request's own words, so that an error about an unsupported combination such as `token foo`
 * still goes to the fragment.
 */
export function returnsToken(type: string | undefined): boolean {
  return type !== undefined && type.split(' ').some((w) => w === 'token' || w === 'id_token');
}

/** The words of each response type, split once. */
const WORDS = new Map<ResponseType, ReadonlySet<string>>(
  RESPONSE_TYPES.map((t) => [t, new Set(t.split(' '))]),
);

const hasWord = (type: ResponseType, word: 'code' | 'id_token' | 'token'): boolean =>
  WORDS.get(type)?.has(word) === true;

export interface AuthorizeRequest {
  client: Client;
  redirectUri: string;
  responseType: ResponseType;
  responseMode: ResponseMode;
  scopes: string[];
  state?: string;
  nonce?: string;
  codeChallenge?: string;
  codeChallengeMethod?: 'S256' | 'plain';
  /** `dpop_jkt` (RFC 9449): the thumbprint of the key the code's exchange must prove. */
  dpopJkt?: string;
  /** `prompt` values: `none` (silent), `login` (the login page even with a session), `consent`, `select_account`. */
  prompt: Set<Prompt>;
  /** `max_age`, seconds: a session authenticated longer ago than this needs a new login. */
  maxAge?: number;
  /** The interface version of this sign-in: `api_version`, else the client's. */
  apiVersion: ApiVersion;
  /** The methods `acr_values` asks for, first choice first (unknown values left out). */
  acrValues: Method[];
}

const PROMPTS = ['none', 'login', 'consent', 'select_account'] as const;
type Prompt = (typeof PROMPTS)[number];

/** `prompt` (OIDC Core 3.1.2.1): space-separated known values; `none` stands alone. */
function parsePrompt(value: string | undefined): Set<Prompt> {
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

/** response_type: present, and one of the supported combinations. */
function checkResponseType(params: Params): ResponseType {
  const responseType = params.get('response_type');
  if (responseType === undefined) throw invalidRequest('Missing parameter: response_type');
  const type = parseResponseType(responseType);
  if (type === undefined) {
    throw new OAuthError(
      'unsupported_response_type',
      `Unsupported response_type "${responseType}" (supported: ${RESPONSE_TYPES.join(', ')})`,
    );
  }
  return type;
}

/** response_mode: a known one, never the query for tokens; by default the fragment for tokens, else the query. */
function checkResponseMode(params: Params, type: ResponseType): ResponseMode {
  const tokens = returnsToken(type);
  const mode = params.get('response_mode') ?? (tokens ? 'fragment' : 'query');
  if (mode !== 'query' && mode !== 'fragment' && mode !== 'form_post')
    throw invalidRequest(`Invalid parameter: response_mode "${mode}"`);
  if (tokens && mode === 'query')
    throw invalidRequest(
      `Invalid parameter: response_mode query is not allowed with response_type ${type} (tokens go in the fragment or a form_post)`,
    );
  return mode;
}

/**
 * As Keycloak's "standard flow" and "implicit flow" switches: a code needs the code grant, a token from
 * the front channel the implicit grant. `code id_token` is the code flow's hybrid.
 */
function checkClientGrant(client: Client, type: ResponseType): void {
  if ((hasWord(type, 'code') || type === 'none') && !client.grants.includes('authorization_code')) {
    throw new OAuthError(
      'unauthorized_client',
      `Client "${client.id}" is not allowed the authorization_code grant (response_type ${type})`,
    );
  }
  if ((hasWord(type, 'token') || type === 'id_token') && !client.grants.includes('implicit')) {
    throw new OAuthError(
      'unauthorized_client',
      `Client "${client.id}" is not allowed the implicit grant (response_type ${type})`,
    );
  }
}

/** An ID token from the front channel needs a nonce and the openid scope. */
function checkIdTokenRequest(type: ResponseType, nonce: string | undefined, scopes: string[]): void {
  if (hasWord(type, 'id_token') && nonce === undefined)
    throw invalidRequest(`Missing parameter: nonce (required with response_type ${type})`);
  if (hasWord(type, 'id_token') && !scopes.includes('openid'))
    throw invalidRequest(`The scope openid is required with response_type ${type}`);
}

/** Checks everything after client and redirect_uri, step by step; errors from here go to the redirect_uri. */
export function checkAuthorizeRequest(
  p: RealmContext,
  client: Client,
  redirectUri: string,
  params: Params,
  via: RequestVia = { pushed: false },
): AuthorizeRequest {
  const responseType = checkResponseType(params);
  const responseMode = checkResponseMode(params, responseType);
  checkClientGrant(client, responseType);
  const scopes = grantScopes(p.realm, client, parseScope(params.get('scope')));
  const nonce = params.get('nonce');
  checkIdTokenRequest(responseType, nonce, scopes);
  // PKCE protects a code: a response without one (implicit) ignores it, as Keycloak does.
  const pkce = hasWord(responseType, 'code')
    ? { ...checkPkce(client, params, p.realm.keycloak !== undefined), ...checkDPoPJkt(params) }
    : {};
  const state = params.get('state');
  const prompt = parsePrompt(params.get('prompt'));
  const maxAge = parseMaxAge(params.get('max_age'));
  const apiVersion = requestedVersion(p.realm, client, params.get('api_version'));
  checkVersion4Request(p.realm, apiVersion, params, scopes, via);
  return {
    client,
    apiVersion,
    acrValues: parseAcrValues(params.get('acr_values'), p.realm.brand.word),
    prompt,
    ...(maxAge !== undefined ? { maxAge } : {}),
    redirectUri,
    responseType,
    responseMode,
    scopes,
    ...(state !== undefined ? { state } : {}),
    ...(nonce !== undefined ? { nonce } : {}),
    ...pkce,
  };
}

/** `dpop_jkt`: a base64url SHA-256 JWK thumbprint (RFC 7638), which binds the code to that key. */
function checkDPoPJkt(params: Params): Pick<AuthorizeRequest, 'dpopJkt'> {
  const dpopJkt = params.get('dpop_jkt');
  if (dpopJkt === undefined) return {};
  if (!/^[A-Za-z0-9_-]{43}$/.test(dpopJkt))
    throw invalidRequest(
      'Invalid parameter: dpop_jkt must be the base64url SHA-256 thumbprint of a JWK (43 characters)',
    );
  return { dpopJkt };
}

/** code_challenge and its method: well-formed, and S256 where the client requires PKCE. */
function checkPkce(
  client: Client,
  params: Params,
  keycloakRealm: boolean,
): Pick<AuthorizeRequest, 'codeChallenge' | 'codeChallengeMethod'> {
  const codeChallenge = params.get('code_challenge');
  const method = params.get('code_challenge_method') ?? (codeChallenge !== undefined ? 'plain' : undefined);
  if (method !== undefined && method !== 'S256' && method !== 'plain')
    throw invalidRequest(`Invalid parameter: code_challenge_method "${method}" (S256 or plain)`);
  if (method !== undefined && codeChallenge === undefined)
    throw invalidRequest('Missing parameter: code_challenge');
  if (codeChallenge !== undefined && !/^[A-Za-z0-9\-._~]{43,128}$/.test(codeChallenge))
    throw invalidRequest(
      `Invalid parameter: code_challenge (43 to 128 characters of A-Z, a-z, 0-9 and -._~; got ${codeChallenge.length})`,
    );
  if (client.pkce === 'required' && codeChallenge === undefined)
    throw inKeycloakWords(keycloakRealm, invalidRequest, {
      keycloak: 'Missing parameter: code_challenge_method',
      mock: `Missing parameter: code_challenge_method (client "${client.id}" requires PKCE)`,
    });
  if (client.pkce === 'required' && method !== 'S256')
    throw invalidRequest(`Invalid parameter: code_challenge_method (client "${client.id}" requires S256)`);
  return {
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

/**
 * The authorize response for `session`, as its response type asks: a stored code, a front-channel access
 * token (no refresh token), an ID token with c_hash, at_hash and s_hash; always session_state (the session
 * id, as Keycloak writes it: the same for every sign-in of one browser session) and iss.
 */
export async function issueAuthorizeResponse(
  p: RealmContext,
  req: AuthorizeRequest,
  session: Session,
  user: Subject,
  issuer: string,
): Promise<Record<string, string>> {
  const now = p.clock.nowSeconds();
  const { tokens } = p.realm;
  const sessionId = session.id;
  const method = methodFor(req.acrValues, user);
  const out: Record<string, string> = {};
  if (req.state !== undefined) out['state'] = req.state;
  out['session_state'] = sessionId;
  out['iss'] = issuer;
  let code: string | undefined;
  if (hasWord(req.responseType, 'code')) {
    code = `${p.ids.opaque('code', 24)}.${sessionId}`;
    await p.store.addCode({
      code,
      clientId: req.client.id,
      redirectUri: req.redirectUri,
      scopes: req.scopes,
      sessionId,
      username: user.username,
      expiresAt: now + tokens.codeLifespan,
      apiVersion: req.apiVersion,
      ...(method !== undefined ? { method } : {}),
      ...(req.nonce !== undefined ? { nonce: req.nonce } : {}),
      ...(req.codeChallenge !== undefined ? { codeChallenge: req.codeChallenge } : {}),
      ...(req.codeChallengeMethod !== undefined ? { codeChallengeMethod: req.codeChallengeMethod } : {}),
      ...(req.dpopJkt !== undefined ? { dpopJkt: req.dpopJkt } : {}),
    });
    out['code'] = code;
  }
  // The code flow's answer ends here: a code carries no token (no claims to build).
  if (!hasWord(req.responseType, 'token') && !hasWord(req.responseType, 'id_token')) return out;
  const grant: Grant = p.subjectIds.forClient({
    client: req.client,
    subject: user,
    serviceAccount: false,
    scopes: req.scopes,
    sessionId,
    authTime: session.authTime,
    ...(req.nonce !== undefined ? { nonce: req.nonce } : {}),
    apiVersion: req.apiVersion,
    ...(method !== undefined ? { method } : {}),
  });
  const stamp = (): Stamp => ({
    issuer,
    jti: p.ids.uuid('jti'),
    iat: now,
    exp: now + tokens.accessTokenLifespan,
  });
  const sign = signFor(p.keys, req.apiVersion);
  let accessToken: string | undefined;
  if (hasWord(req.responseType, 'token')) {
    // Front channel: no refresh token. token_type is the token endpoint's (the realm's tokenType before
    // version 3), as the real provider builds this answer from the same token response its token endpoint sends.
    accessToken = await sign(
      buildAccessClaims(p.realm, grant, stamp()),
      accessTokenHeader(p.realm.tokens.accessTokenType),
    );
    out['access_token'] = accessToken;
    out['token_type'] = tokenTypeOf(req.apiVersion, tokens.tokenType);
    out['expires_in'] = String(tokens.accessTokenLifespan);
  }
  if (hasWord(req.responseType, 'id_token')) {
    out['id_token'] = await sign(
      buildIdClaims(p.realm, grant, stamp(), {
        ...(accessToken !== undefined ? { atHash: halfHash(accessToken) } : {}),
        ...(code !== undefined ? { cHash: halfHash(code) } : {}),
        // s_hash (FAPI 1.0 Advanced 5.2.2.1, as Keycloak sets it): the state is bound to the ID token too.
        ...(req.state !== undefined ? { sHash: halfHash(req.state) } : {}),
      }),
    );
  }
  return out;
}
