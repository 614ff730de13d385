// Client authentication: client_secret_basic, client_secret_post, private_key_jwt (RS256, ES256),
// client_secret_jwt (HS256, HS384 or HS512 keyed by the client secret) and public clients.
import { timingSafeEqual } from 'node:crypto';
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, type JWTPayload } from 'jose';
import type { Client } from '../fixtures/realm.js';
import type { AuthMethod } from '../fixtures/schema.js';
import type { RealmContext } from '../realm/context.js';
import { explained, invalidClient, invalidRequest, OAuthError } from './errors.js';
import type { Params } from './params.js';
import { CLIENT_KEY_ALGS, ClientJwtRefusal, verifyClientJwt, type ClientJwtCheck } from './client-jwt.js';

const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const INVALID_CREDENTIALS = 'Invalid client or Invalid client credentials';

interface ClientAuthInput {
  authorization: string | undefined;
  params: Params;
  /** Audiences an assertion may name: the issuer, the token endpoint, the endpoint called. */
  audiences: string[];
}

export interface AuthenticatedClient {
  client: Client;
  method: AuthMethod;
}

function parseBasic(header: string): { id: string; secret: string } {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  const decoded = match?.[1] !== undefined ? Buffer.from(match[1], 'base64').toString('utf8') : '';
  const colon = decoded.indexOf(':');
  if (colon < 0)
    throw invalidRequest('Malformed Authorization header: expected Basic base64(client_id:client_secret)');
  try {
    // RFC 6749 §2.3.1: both parts are form-urlencoded before base64.
    const decode = (s: string): string => decodeURIComponent(s.replace(/\+/g, ' '));
    return { id: decode(decoded.slice(0, colon)), secret: decode(decoded.slice(colon + 1)) };
  } catch {
    throw invalidRequest('Malformed Authorization header: client id or secret is not form-urlencoded');
  }
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The client `id` names. With a shared store, a client registered or deleted at another replica moments ago
 * counts at once: the request caught up with the store before its endpoint ran (with its fault check).
 */
async function lookup(p: RealmContext, id: string): Promise<Client> {
  const client = p.realm.clients.get(id);
  if (client === undefined)
    throw explained(invalidClient(INVALID_CREDENTIALS), {
      why: `unknown client "${id}" (not in the fixtures)`,
      event: { error: 'client_not_found' },
    });
  return client;
}

/** The 401 for a secret that does not match; the log (at debug) says which case it was. */
function wrongSecret(client: Client, method: AuthMethod): OAuthError {
  return explained(invalidClient(INVALID_CREDENTIALS, 'unauthorized_client'), {
    why:
      client.secret === undefined
        ? `client "${client.id}" has no secret in the fixtures`
        : `wrong client secret for "${client.id}" (${method})`,
    event: { error: 'invalid_client_credentials', clientId: client.id },
  });
}

/** The client id a request names (Basic user, client_id, or an assertion's sub/iss), for the log. */
function namedClient(input: ClientAuthInput): string | undefined {
  if (input.authorization !== undefined && /^Basic\s/i.test(input.authorization)) {
    try {
      return parseBasic(input.authorization).id;
    } catch {
      return undefined;
    }
  }
  const assertion = input.params.get('client_assertion');
  if (assertion !== undefined) {
    try {
      const { sub, iss } = decodeJwt(assertion);
      return sub ?? iss;
    } catch {
      return undefined;
    }
  }
  return input.params.get('client_id');
}

function requireMethod(client: Client, method: AuthMethod): void {
  if (!client.authMethods.includes(method)) {
    throw invalidClient(
      `Client "${client.id}" may not authenticate with ${method} (allowed: ${client.authMethods.join(', ')})`,
      'unauthorized_client',
    );
  }
}

/**
 * Keycloak refuses a bearer-only client at its token, revocation and CIBA endpoints once it has authenticated
 * (TokenEndpoint.checkClient and its like): 400 invalid_client "Bearer-only not allowed".
 */
export function refuseBearerOnly(p: RealmContext, client: Client): void {
  if (p.realm.keycloak?.clients.get(client.id)?.bearerOnly === true)
    throw new OAuthError('invalid_client', 'Bearer-only not allowed', 400);
}

/**
 * Authenticates the calling client; 401 invalid_client / unauthorized_client on failure, carrying the
 * client id the request named for the log line.
 */
export async function authenticateClient(
  p: RealmContext,
  input: ClientAuthInput,
): Promise<AuthenticatedClient> {
  try {
    return await authenticate(p, input);
  } catch (err) {
    if (err instanceof OAuthError) explained(err, { clientId: namedClient(input) });
    throw err;
  }
}

async function authenticate(p: RealmContext, input: ClientAuthInput): Promise<AuthenticatedClient> {
  const { params } = input;
  const assertion = params.get('client_assertion');
  const bodySecret = params.get('client_secret');
  const basic = input.authorization !== undefined && /^Basic\s/i.test(input.authorization);
  if (Number(basic) + Number(assertion !== undefined) + Number(bodySecret !== undefined) > 1)
    throw invalidRequest('More than one client authentication method was used');

  if (basic) {
    const { id, secret } = parseBasic(input.authorization as string);
    const client = await lookup(p, id);
    const bodyId = params.get('client_id');
    if (bodyId !== undefined && bodyId !== id)
      throw invalidRequest('client_id in the body differs from the Authorization header');
    requireMethod(client, 'client_secret_basic');
    if (client.secret === undefined || !sameSecret(secret, client.secret))
      throw wrongSecret(client, 'client_secret_basic');
    return { client, method: 'client_secret_basic' };
  }
  if (assertion !== undefined) return verifyAssertion(p, input, assertion);

  const id = params.get('client_id');
  if (id === undefined)
    throw invalidClient(
      'Missing client authentication: send client credentials (Basic, client_secret, or client_assertion)',
    );
  const client = await lookup(p, id);
  if (bodySecret !== undefined) {
    requireMethod(client, 'client_secret_post');
    if (client.secret === undefined || !sameSecret(bodySecret, client.secret))
      throw wrongSecret(client, 'client_secret_post');
    return { client, method: 'client_secret_post' };
  }
  if (!client.authMethods.includes('none')) {
    throw invalidClient(
      `Client "${id}" is confidential: client credentials are required (${client.authMethods.join(', ')})`,
      'unauthorized_client',
    );
  }
  return { client, method: 'none' };
}

/**
 * The HMAC algorithms of client_secret_jwt, keyed by the client secret (as Keycloak's client-secret JWT
 * authenticator takes them when the client pins none).
 */
const CLIENT_SECRET_ALGS = ['HS256', 'HS384', 'HS512'];

/** The `alg` of an assertion's header, when it has one. */
function assertionAlg(assertion: string): string | undefined {
  try {
    const { alg } = decodeProtectedHeader(assertion);
    return typeof alg === 'string' ? alg : undefined;
  } catch {
    return undefined;
  }
}

/** The method an assertion signed `alg` stands for; a client that does not allow it gets words saying why. */
function assertionMethod(client: Client, alg: string | undefined): 'private_key_jwt' | 'client_secret_jwt' {
  const method =
    alg !== undefined && CLIENT_SECRET_ALGS.includes(alg) ? 'client_secret_jwt' : 'private_key_jwt';
  if (method === 'private_key_jwt' && !client.authMethods.includes(method))
    throw invalidClient(
      `Client "${client.id}" may not authenticate with private_key_jwt (allowed: ${client.authMethods.join(', ')}): the client_assertion is signed ${alg ?? 'with no alg'}${client.authMethods.includes('client_secret_jwt') ? `, but a client_secret_jwt assertion is signed ${CLIENT_SECRET_ALGS.join(', ')} with the client secret` : ''}`,
      'unauthorized_client',
    );
  requireMethod(client, method);
  return method;
}

async function verifyAssertion(
  p: RealmContext,
  input: ClientAuthInput,
  assertion: string,
): Promise<AuthenticatedClient> {
  const type = input.params.get('client_assertion_type');
  if (type !== ASSERTION_TYPE) throw invalidRequest(`client_assertion_type must be ${ASSERTION_TYPE}`);
  let unverified: JWTPayload;
  try {
    unverified = decodeJwt(assertion);
  } catch {
    throw invalidClient('client_assertion is not a JWT');
  }
  const id = unverified.sub ?? unverified.iss;
  if (typeof id !== 'string') throw invalidClient('client_assertion has no sub/iss naming the client');
  const client = await lookup(p, id);
  const bodyId = input.params.get('client_id');
  if (bodyId !== undefined && bodyId !== id)
    throw invalidRequest('client_id differs from the client_assertion subject');
  const method = assertionMethod(client, assertionAlg(assertion));
  let key: ClientJwtCheck['key'];
  if (method === 'client_secret_jwt') {
    if (client.secret === undefined)
      throw invalidClient(`Client "${id}" has no secret for client_secret_jwt`, 'unauthorized_client');
    key = new TextEncoder().encode(client.secret);
  } else {
    if (client.jwks === undefined)
      throw invalidClient(`Client "${id}" has no jwks for private_key_jwt`, 'unauthorized_client');
    key = createLocalJWKSet(client.jwks);
  }
  try {
    await verifyClientJwt(p, assertion, {
      key,
      algorithms: method === 'client_secret_jwt' ? CLIENT_SECRET_ALGS : CLIENT_KEY_ALGS,
      issuer: id,
      subject: id,
      audiences: input.audiences,
    });
  } catch (err) {
    if (!(err instanceof ClientJwtRefusal)) throw err;
    throw invalidClient(`Invalid client assertion: ${err.message}`, 'unauthorized_client');
  }
  return { client, method };
}
