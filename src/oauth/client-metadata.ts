// RFC 7591 client metadata: checked and turned into what a registered client is made of (no HTTP here).
import { importJWK, type JSONWebKeySet, type JWK } from 'jose';
import type { Realm } from '../fixtures/realm.js';
import {
  AUTH_METHODS,
  GRANT_TYPES,
  defaultGrants,
  isRequestObjectAlg,
  type AuthMethod,
  type GrantType,
  type RequestObjectAlg,
} from '../fixtures/schema.js';
import type { ClientMetadata, SigningAlg } from '../fixtures/registered-client.js';
import { signsEs256 } from '../tokens/versions.js';
import { parseResponseType, RESPONSE_TYPES } from './authorize.js';
import { OAuthError } from './errors.js';

/** Most redirect URIs (and post-logout redirect URIs) one client may register. */
const MAX_REDIRECT_URIS = 100;

/** Informational metadata kept and echoed as given (strings). */
const INFO_FIELDS = [
  'client_name',
  'client_uri',
  'logo_uri',
  'tos_uri',
  'policy_uri',
  'software_id',
  'software_version',
] as const;

export const invalidMetadata = (d: string): OAuthError => new OAuthError('invalid_client_metadata', d);
const invalidRedirect = (d: string): OAuthError => new OAuthError('invalid_redirect_uri', d);

type Body = Record<string, unknown>;

function stringList(body: Body, field: string): string[] | undefined {
  const value = body[field];
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string'))
    throw invalidMetadata(`${field} must be an array of strings`);
  return value as string[];
}

function optionalString(body: Body, field: string): string | undefined {
  const value = body[field];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length > 2000)
    throw invalidMetadata(`${field} must be a string (at most 2000 characters)`);
  return value;
}

function optionalBoolean(body: Body, field: string): boolean | undefined {
  const value = body[field];
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean') throw invalidMetadata(`${field} must be true or false`);
  return value;
}

/** A redirect URI as RFC 6749 §3.1.2 and OIDC Registration §2 want it: absolute, no fragment, no user info. */
function checkRedirectUris(field: string, uris: string[]): string[] {
  if (uris.length > MAX_REDIRECT_URIS)
    throw invalidRedirect(`${field}: at most ${MAX_REDIRECT_URIS} URIs (got ${uris.length})`);
  for (const uri of uris) {
    const shown = JSON.stringify(uri.length > 100 ? `${uri.slice(0, 100)}…` : uri);
    const url = URL.canParse(uri) ? new URL(uri) : undefined;
    if (url === undefined) throw invalidRedirect(`${field}: ${shown} is not an absolute URI`);
    if (uri.includes('#')) throw invalidRedirect(`${field}: ${shown} has a fragment`);
    if (url.username !== '' || url.password !== '') throw invalidRedirect(`${field}: ${shown} has user info`);
    if (['javascript:', 'data:', 'vbscript:', 'file:'].includes(url.protocol))
      throw invalidRedirect(`${field}: ${shown} has the scheme ${url.protocol} (not allowed)`);
    if (uri.endsWith('*'))
      throw invalidRedirect(`${field}: ${shown}: wildcards are for fixture clients, register exact URIs`);
  }
  return [...new Set(uris)];
}

function httpUri(body: Body, field: string): string | undefined {
  const value = optionalString(body, field);
  if (value === undefined) return undefined;
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:') || value.includes('#'))
    throw invalidMetadata(`${field} must be an absolute http(s) URI without fragment`);
  return value;
}

function checkGrants(body: Body, redirectUris: string[]): GrantType[] {
  const given = stringList(body, 'grant_types');
  if (given === undefined) return defaultGrants(redirectUris);
  for (const grant of given) {
    if (!(GRANT_TYPES as readonly string[]).includes(grant))
      throw invalidMetadata(
        `grant_types: unknown grant type "${grant}" (supported: ${GRANT_TYPES.join(', ')})`,
      );
  }
  return [...new Set(given as GrantType[])];
}

/**
 * Response types (OIDC Registration §2): each one authorize supports, backed by its grant as authorize
 * checks it (a code or `none` needs authorization_code, a token from the front channel implicit).
 */
function checkResponseTypes(body: Body, grants: GrantType[]): string[] {
  const given = stringList(body, 'response_types');
  const has = (g: GrantType): boolean => grants.includes(g);
  if (given === undefined) return has('authorization_code') ? ['code'] : [];
  const out: string[] = [];
  for (const value of given) {
    const type = parseResponseType(value);
    if (type === undefined)
      throw invalidMetadata(
        `response_types: unknown response type "${value}" (supported: ${RESPONSE_TYPES.join(', ')})`,
      );
    const words = type.split(' ');
    if ((words.includes('code') || type === 'none') && !has('authorization_code'))
      throw invalidMetadata(`response_types: "${type}" needs the grant type authorization_code`);
    if ((words.includes('token') || type === 'id_token') && !has('implicit'))
      throw invalidMetadata(`response_types: "${type}" needs the grant type implicit`);
    if (!out.includes(type)) out.push(type);
  }
  return out;
}

/** Public keys that verify the client's JWTs (client assertions, request objects): RSA for RS256, P-256 for ES256. */
async function checkJwks(body: Body): Promise<JSONWebKeySet | undefined> {
  if (body['jwks_uri'] !== undefined)
    throw invalidMetadata('jwks_uri is not supported: send the keys as jwks');
  const jwks = body['jwks'];
  if (jwks === undefined) return undefined;
  const keys = (jwks as { keys?: unknown } | null)?.keys;
  if (typeof jwks !== 'object' || jwks === null || Array.isArray(jwks) || !Array.isArray(keys))
    throw invalidMetadata('jwks must be a JWK Set ({"keys": [...]})');
  for (const [i, key] of keys.entries()) {
    const jwk = key as JWK | null;
    const isRsa = jwk?.kty === 'RSA';
    if (typeof jwk !== 'object' || jwk === null || !(isRsa || (jwk.kty === 'EC' && jwk.crv === 'P-256')))
      throw invalidMetadata(`jwks.keys[${i}]: only RSA keys (RS256) and EC P-256 keys (ES256) are supported`);
    if (jwk.d !== undefined)
      throw invalidMetadata(`jwks.keys[${i}] is a private key: register the public key`);
    let bits = 0;
    try {
      const key = await importJWK(jwk, isRsa ? 'RS256' : 'ES256');
      bits = 'algorithm' in key ? ((key.algorithm as { modulusLength?: number }).modulusLength ?? 0) : 0;
    } catch {
      throw invalidMetadata(`jwks.keys[${i}] is not a valid ${isRsa ? 'RSA' : 'EC P-256'} public key`);
    }
    // jose verifies RS256 only with keys of 2048 bits or more.
    if (isRsa && bits < 2048)
      throw invalidMetadata(`jwks.keys[${i}]: an RSA key of at least 2048 bits is needed`);
  }
  return { keys: keys as JWK[] };
}

/**
 * `id_token_signed_response_alg` and `userinfo_signed_response_alg`: the algorithm follows the interface
 * version (RS256 in versions 1 and 2, ES256 from 3), so a client may register the one its realm's version
 * signs with, and that one only.
 */
function checkSigningAlg(body: Body, field: string, realm: Realm): SigningAlg | undefined {
  const alg = optionalString(body, field);
  if (alg === undefined) return undefined;
  const version = realm.apiVersion ?? 1;
  const signs: SigningAlg = signsEs256(version) ? 'ES256' : 'RS256';
  if (alg === signs) return signs;
  const other = signs === 'RS256' ? 'ES256 is used from interface version 3' : 'RS256 in versions 1 and 2';
  throw invalidMetadata(
    `${field}: "${alg}" is not supported: this realm (interface version ${version}) signs with ${signs}; ${other}`,
  );
}

/** `request_object_signing_alg` (OIDC Registration 2): one of the algs request objects are verified with. */
function checkRequestObjectAlg(body: Body): RequestObjectAlg | undefined {
  const alg = optionalString(body, 'request_object_signing_alg');
  if (alg === undefined || isRequestObjectAlg(alg)) return alg;
  throw invalidMetadata(`request_object_signing_alg: "${alg}" is not supported (none, RS256 or ES256)`);
}

function checkScope(body: Body, realm: Realm): string {
  const scope = optionalString(body, 'scope');
  if (scope === undefined) return [...realm.scopes.keys()].join(' ');
  const scopes = [...new Set(scope.split(' ').filter((s) => s !== ''))];
  for (const s of scopes) {
    if (!realm.scopes.has(s))
      throw invalidMetadata(`scope: unknown scope "${s}" (known: ${[...realm.scopes.keys()].join(', ')})`);
  }
  return scopes.join(' ');
}

/**
 * `subject_type` (OIDC Registration §2): pairwise takes its sector (OIDC Core 8.1) from the host of
 * `sector_identifier_uri` (https; not fetched), else from the one host all redirect URIs share.
 */
function checkSubjectType(
  body: Body,
  redirectUris: string[],
): Pick<ClientMetadata, 'subject_type' | 'sector_identifier_uri'> {
  const type = optionalString(body, 'subject_type') ?? 'public';
  if (type !== 'public' && type !== 'pairwise')
    throw invalidMetadata(`subject_type: "${type}" is not supported (public or pairwise)`);
  const sector = optionalString(body, 'sector_identifier_uri');
  if (sector !== undefined) {
    const url = URL.canParse(sector) ? new URL(sector) : undefined;
    if (url?.protocol !== 'https:' || url.hostname === '')
      throw invalidMetadata('sector_identifier_uri must be an absolute https URI');
    if (type !== 'pairwise') throw invalidMetadata('sector_identifier_uri is for subject_type pairwise');
    return { subject_type: 'pairwise', sector_identifier_uri: sector };
  }
  if (type === 'pairwise') {
    const hosts = new Set(redirectUris.map((uri) => new URL(uri).hostname));
    if (hosts.size !== 1 || hosts.has(''))
      throw invalidMetadata(
        'subject_type pairwise needs sector_identifier_uri, or redirect_uris that share one host (the sector)',
      );
  }
  return { subject_type: type };
}

/** Checks an RFC 7591 registration request; unknown fields are ignored, as §2 says. */
export async function checkClientMetadata(body: Body, realm: Realm): Promise<ClientMetadata> {
  const redirectUris = checkRedirectUris('redirect_uris', stringList(body, 'redirect_uris') ?? []);
  const grants = checkGrants(body, redirectUris);
  if (redirectUris.length === 0 && grants.some((g) => g === 'authorization_code' || g === 'implicit'))
    throw invalidRedirect(
      'redirect_uris: at least one is required for the authorization_code and implicit grants',
    );
  const responseTypes = checkResponseTypes(body, grants);
  const method = optionalString(body, 'token_endpoint_auth_method') ?? 'client_secret_basic';
  if (!(AUTH_METHODS as readonly string[]).includes(method))
    throw invalidMetadata(
      `token_endpoint_auth_method: "${method}" is not supported (supported: ${AUTH_METHODS.join(', ')})`,
    );
  const jwks = await checkJwks(body);
  if (method === 'private_key_jwt' && (jwks === undefined || jwks.keys.length === 0))
    throw invalidMetadata('token_endpoint_auth_method private_key_jwt needs jwks with the public key');
  const alg = checkSigningAlg(body, 'id_token_signed_response_alg', realm);
  const userinfoAlg = checkSigningAlg(body, 'userinfo_signed_response_alg', realm);
  const subject = checkSubjectType(body, redirectUris);
  const postLogout = stringList(body, 'post_logout_redirect_uris');
  const frontchannel = httpUri(body, 'frontchannel_logout_uri');
  const backchannel = httpUri(body, 'backchannel_logout_uri');
  const contacts = stringList(body, 'contacts');
  // RFC 9449 §5.2: true makes every token request of the client need a DPoP proof.
  const dpopBound = optionalBoolean(body, 'dpop_bound_access_tokens');
  const objectAlg = checkRequestObjectAlg(body);
  const info: Partial<Record<(typeof INFO_FIELDS)[number], string>> = {};
  for (const field of INFO_FIELDS) {
    const value = optionalString(body, field);
    if (value !== undefined) info[field] = value;
  }
  return {
    redirect_uris: redirectUris,
    grant_types: grants,
    response_types: responseTypes,
    token_endpoint_auth_method: method as AuthMethod,
    scope: checkScope(body, realm),
    ...(jwks !== undefined ? { jwks } : {}),
    ...(postLogout !== undefined
      ? { post_logout_redirect_uris: checkRedirectUris('post_logout_redirect_uris', postLogout) }
      : {}),
    ...(frontchannel !== undefined ? { frontchannel_logout_uri: frontchannel } : {}),
    ...(backchannel !== undefined ? { backchannel_logout_uri: backchannel } : {}),
    ...(alg !== undefined ? { id_token_signed_response_alg: alg } : {}),
    ...subject,
    ...(userinfoAlg !== undefined ? { userinfo_signed_response_alg: userinfoAlg } : {}),
    ...(contacts !== undefined ? { contacts } : {}),
    ...(dpopBound !== undefined ? { dpop_bound_access_tokens: dpopBound } : {}),
    ...(objectAlg !== undefined ? { request_object_signing_alg: objectAlg } : {}),
    ...info,
  };
}
