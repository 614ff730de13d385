// One call, one real token response: the flow a client would run, over HTTP against a running realm —
// client_credentials, or the code flow with login_hint and PKCE (S256) for a user. Used by the library's
// `idp.token()` and the Testcontainers module's `getTokenResponse()`.
import { createHash } from 'node:crypto';
import type { TokenResponse } from '../oauth/token-set.js';
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
): Promise<TokenResponse> {
  const response = await send(`${base}${PATH}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form),
  });
  const text = await response.text();
  if (!response.ok)
    throw new TokenFlowError(`token request answered ${response.status}: ${text}`, response.status);
  return JSON.parse(text) as TokenResponse;
}

let flows = 0;

/** Runs the flow at the realm base URL `base` and returns the token response; `send` makes the requests. */
export async function runTokenFlow(
  base: string,
  client: FlowClient,
  request: TokenFlowRequest,
  send: FlowFetch = fetch,
): Promise<TokenResponse> {
  const secret = request.secret ?? client.secret;
  const { headers, body } = credentials(client, secret);
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
  );
}
