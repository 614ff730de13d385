// One call, one real token response: the flow a client would run, over HTTP against a running realm —
// client_credentials, or the code flow with login_hint and PKCE (S256) for a user. Used by the library's
// `idp.token()` and the Testcontainers module's `getTokenResponse()`.
import { createHash } from 'node:crypto';
import { exportJWK, SignJWT, type CryptoKey } from 'jose';
import { Clock } from '../clock.js';
import { uniqueId } from '../ids.js';
import type { TokenResponse } from '../oauth/token-set.js';
import { didYouMean } from '../suggest.js';
import { refuseUnknownOptions } from '../unknown-options.js';
import type { FlowFetch } from './ca-fetch.js';

/** What the flow needs to know of a fixture client. */
export interface FlowClient {
  id: string;
  secret?: string;
  /** Registered methods; the first usable of client_secret_basic, client_secret_post, none is used. */
  authMethods: readonly string[];
  redirectUris: readonly string[];
  /** The interface version its sign-ins follow (the client's, else the realm's); from 4 a nonce is sent too. */
  apiVersion?: number | undefined;
}

export interface TokenFlowRequest {
  /** Client id of the fixtures. */
  client: string;
  /** A fixture username (or a `login_hint` form): the code flow signs this user in. Default: client_credentials. */
  user?: string;
  /** Requested scope. Default: the client's defaults (client_credentials), `openid` (code flow). */
  scope?: string;
  /** The client secret, when the fixtures' one is not known here. */
  secret?: string;
  /**
   * A key pair (jose's `generateKeyPair`, WebCrypto's `generateKey`, openid-client's `randomDPoPKeyPair`):
   * the token request carries a DPoP proof signed with it, so the tokens are bound to its public key.
   * ECDSA P-256/384/521, Ed25519, RSASSA-PKCS1-v1_5 or RSA-PSS.
   */
  dpop?: { privateKey: CryptoKey; publicKey: CryptoKey };
}

const REQUEST_FIELDS = [
  'client',
  'user',
  'scope',
  'secret',
  'dpop',
] as const satisfies readonly (keyof TokenFlowRequest)[];

/**
 * Throws a TypeError when `request` is not a token request `call` (`idp.token`, `getTokenResponse`) can run:
 * an unknown field (a typo must not be ignored), no client id, or a text field that is not a string.
 */
export function checkTokenRequest(call: string, request: unknown): asserts request is TokenFlowRequest {
  if (typeof request !== 'object' || request === null || Array.isArray(request))
    throw new TypeError(`${call}: expected { client, user?, scope?, secret?, dpop? }`);
  refuseUnknownOptions(call, REQUEST_FIELDS, request);
  const fields = request as Record<string, unknown>;
  if (typeof fields['client'] !== 'string' || fields['client'] === '')
    throw new TypeError(`${call}: "client" is required: the id of a client of the fixtures`);
  for (const name of ['user', 'scope', 'secret'] as const) {
    const value = fields[name];
    if (value !== undefined && typeof value !== 'string')
      throw new TypeError(`${call}: "${name}" must be a string (got ${typeof value})`);
  }
}

/** The refusal of a client id the fixtures do not have, naming the ones they do. */
export function unknownClient(id: string, known: readonly string[]): TokenFlowError {
  return new TokenFlowError(`unknown client "${id}"${didYouMean(id, known)} (clients: ${known.join(', ')})`);
}

/**
 * How the flow runs: `send` makes the requests (default: fetch); `nowSeconds` is the server's time for DPoP
 * proofs' iat (default: the real clock), asked only when a proof is made.
 */
interface TokenFlowOptions {
  send?: FlowFetch;
  nowSeconds?: () => number | Promise<number>;
}

/** A flow that could not run, or an answer that was not a token response. */
export class TokenFlowError extends Error {
  readonly code = 'ERR_TOKEN_FLOW' as const;
  readonly status: number | undefined;
  constructor(message: string, status?: number) {
    super(message);
    this.name = 'TokenFlowError';
    this.status = status;
  }
}

const PATH = '/protocol/openid-connect';

/** The JWS algorithm a DPoP proof is signed with by this key, from its WebCrypto algorithm. */
function proofAlg(key: CryptoKey): string {
  const algorithm = key.algorithm as { name: string; namedCurve?: string; hash?: { name: string } };
  const bits = algorithm.hash?.name.replace('SHA-', '');
  const curves: Record<string, string> = { 'P-256': 'ES256', 'P-384': 'ES384', 'P-521': 'ES512' };
  if (algorithm.name === 'ECDSA' && algorithm.namedCurve !== undefined && algorithm.namedCurve in curves)
    return curves[algorithm.namedCurve] as string;
  if (algorithm.name === 'Ed25519') return 'EdDSA';
  if (algorithm.name === 'RSASSA-PKCS1-v1_5' && bits !== undefined) return `RS${bits}`;
  if (algorithm.name === 'RSA-PSS' && bits !== undefined) return `PS${bits}`;
  throw new TokenFlowError(
    `dpop: the key (${algorithm.name}) cannot sign a DPoP proof (use ECDSA, Ed25519, RSASSA-PKCS1-v1_5 or RSA-PSS)`,
  );
}

/** A DPoP proof (RFC 9449) of a POST to `url`, made now on the server's clock. */
async function dpopProof(
  keys: NonNullable<TokenFlowRequest['dpop']>,
  url: string,
  nowSeconds: () => number | Promise<number>,
): Promise<string> {
  const jwk = await exportJWK(keys.publicKey);
  return new SignJWT({ htm: 'POST', htu: url, jti: uniqueId() })
    .setProtectedHeader({ alg: proofAlg(keys.privateKey), typ: 'dpop+jwt', jwk })
    .setIssuedAt(await nowSeconds())
    .sign(keys.privateKey);
}
/** A redirect URI to receive the code: the first exact one, else a `*` prefix that is a whole URL. */
function redirectUriOf(client: FlowClient): string {
  for (const uri of client.redirectUris) if (!uri.endsWith('*') && URL.canParse(uri)) return uri;
  for (const uri of client.redirectUris) {
    const prefix = uri.slice(0, -1);
    if (uri.endsWith('*') && URL.canParse(prefix) && new URL(prefix).href === prefix) return prefix;
  }
  throw new TokenFlowError(`client "${client.id}" has no redirect URI a code could be sent to`);
}

function credentials(
  client: FlowClient,
  secret: string | undefined,
): {
  headers: Record<string, string>;
  body: Record<string, string>;
} {
  const methods = client.authMethods;
  if (secret !== undefined && methods.includes('client_secret_basic')) {
    // RFC 6749 §2.3.1: id and secret are form-urlencoded before they are joined.
    const enc = (s: string): string => new URLSearchParams({ s }).toString().slice(2);
    const basic = Buffer.from(`${enc(client.id)}:${enc(secret)}`).toString('base64');
    return { headers: { authorization: `Basic ${basic}` }, body: {} };
  }
  if (secret !== undefined && methods.includes('client_secret_post'))
    return { headers: {}, body: { client_id: client.id, client_secret: secret } };
  if (methods.includes('none')) return { headers: {}, body: { client_id: client.id } };
  throw new TokenFlowError(
    `client "${client.id}" authenticates with ${methods.join(', ')}: give its secret, or use mint() for a private_key_jwt client`,
  );
}

async function postToken(
  send: FlowFetch,
  base: string,
  form: Record<string, string>,
  headers: Record<string, string>,
  dpop: (url: string) => Promise<string | undefined>,
): Promise<TokenResponse> {
  const url = `${base}${PATH}/token`;
  const proof = await dpop(url);
  const response = await send(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...headers,
      ...(proof !== undefined ? { dpop: proof } : {}),
    },
    body: new URLSearchParams(form),
  });
  const text = await response.text();
  if (!response.ok)
    throw new TokenFlowError(`token request answered ${response.status}: ${text}`, response.status);
  return JSON.parse(text) as TokenResponse;
}

let flows = 0;

/** Runs the flow at the realm base URL `base` and returns the token response. */
export async function runTokenFlow(
  base: string,
  client: FlowClient,
  request: TokenFlowRequest,
  options: TokenFlowOptions = {},
): Promise<TokenResponse> {
  const send = options.send ?? fetch;
  const secret = request.secret ?? client.secret;
  const { headers, body } = credentials(client, secret);
  const nowSeconds = options.nowSeconds ?? ((): number => Math.floor(Clock.realMs() / 1000));
  const keys = request.dpop;
  const dpop = async (url: string): Promise<string | undefined> =>
    keys !== undefined ? dpopProof(keys, url, nowSeconds) : undefined;
  if (request.user === undefined) {
    return postToken(
      send,
      base,
      {
        grant_type: 'client_credentials',
        ...(request.scope !== undefined ? { scope: request.scope } : {}),
        ...body,
      },
      headers,
      dpop,
    );
  }
  const redirectUri = redirectUriOf(client);
  // Our own client's PKCE verifier: unguessable is not needed here, only well-formed and matching.
  const verifier = createHash('sha256')
    .update(`mock-idp token flow ${++flows} ${client.id}`)
    .digest('base64url');
  const authorize = new URL(`${base}${PATH}/auth`);
  authorize.search = new URLSearchParams({
    response_type: 'code',
    client_id: client.id,
    redirect_uri: redirectUri,
    scope: request.scope ?? 'openid',
    state: `flow-${flows}`,
    login_hint: request.user,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    // Version 4 requires a nonce; before it, none is sent, so the tokens stay what they were.
    ...((client.apiVersion ?? 1) >= 4 ? { nonce: `flow-${flows}` } : {}),
  }).toString();
  const answer = await send(authorize, { redirect: 'manual' });
  const location = answer.headers.get('location');
  await answer.body?.cancel();
  if (answer.status !== 302 || location === null)
    throw new TokenFlowError(
      answer.status === 200
        ? `user "${request.user}" is not a fixture user (the login page was shown)`
        : `authorize answered ${answer.status}`,
      answer.status,
    );
  const back = new URL(location);
  const code = back.searchParams.get('code');
  if (code === null)
    throw new TokenFlowError(
      `authorize refused: ${back.searchParams.get('error') ?? 'no code'}: ${back.searchParams.get('error_description') ?? ''}`,
    );
  return postToken(
    send,
    base,
    { grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier, ...body },
    headers,
    dpop,
  );
}
