// `mock-idp token`: mint one token from a running server (--server URL) or offline (--key FILE), print it.
import type { MintedToken, MintRequest, MintSignature, MintTokenType } from '../qa/mint-request.js';
import { Minter } from '../qa/mint.js';
import type { ApiVersion } from '../tokens/versions.js';
import { createProvider } from '../server.js';
import { realmBasePath } from '../realm/paths.js';
import { CliError, EXIT } from './cli-error.js';

/** Offline tokens name this origin unless an issuer is fixed: the default `serve` address, as its ready line shows it. */
const OFFLINE_ORIGIN = 'http://127.0.0.1:8080';

export interface TokenOptions {
  type: MintTokenType;
  client: string;
  user?: string;
  scope?: string;
  claim?: [string, unknown][];
  remove?: string[];
  header?: [string, unknown][];
  expiresIn?: number;
  issuedAt?: string;
  notBefore?: string;
  signature?: MintSignature;
  /** `--api-version`: the interface version to mint in. */
  apiVersion?: ApiVersion;
  /** `--dpop-jwk`: the public JWK the token is DPoP-bound to. */
  dpopJwk?: Record<string, unknown>;
  /** A running server: its realm base URL, or its origin (then realm `mock`). */
  server?: string;
  /** The running server's QA token (`--qa-token`, env MOCK_IDP_QA_TOKEN). */
  qaToken?: string;
  key?: string;
  fixtures?: string;
  clock?: string;
  seed?: string;
  issuer?: string;
  /** Print `{token, header, claims}` instead of the bare token. */
  json?: boolean;
}

/** The mint request body the flags describe (`--remove k` is a `null` claim). */
export function toMintRequest(o: TokenOptions): MintRequest {
  const claims: Record<string, unknown> = Object.fromEntries(o.claim ?? []);
  for (const name of o.remove ?? []) claims[name] = null;
  const header: Record<string, unknown> = Object.fromEntries(o.header ?? []);
  return {
    type: o.type,
    client: o.client,
    ...(o.user !== undefined ? { user: o.user } : {}),
    ...(o.scope !== undefined ? { scope: o.scope } : {}),
    ...(Object.keys(claims).length > 0 ? { claims } : {}),
    ...(Object.keys(header).length > 0 ? { header } : {}),
    ...(o.expiresIn !== undefined ? { expiresIn: o.expiresIn } : {}),
    ...(o.issuedAt !== undefined ? { issuedAt: o.issuedAt } : {}),
    ...(o.notBefore !== undefined ? { notBefore: o.notBefore } : {}),
    ...(o.signature !== undefined ? { signature: o.signature } : {}),
    ...(o.apiVersion !== undefined ? { apiVersion: o.apiVersion } : {}),
    ...(o.dpopJwk !== undefined ? { dpopJwk: o.dpopJwk } : {}),
  };
}

/**
 * `--server`: a realm base URL (…/realms/NAME) is used as is; an origin means realm `mock`; an origin with
 * a path (`http://host:port/auth`) is a server run with that `--http-relative-path`, realm `mock` under it,
 * as Keycloak clients take a server URL with its context path.
 */
function realmBaseOf(server: string): string {
  const url = new URL(server);
  const path = url.pathname.replace(/\/+$/, '');
  if (/\/realms\/[^/]+$/.test(path)) return `${url.origin}${path}`;
  if (!/\/realms(\/|$)/.test(path)) return `${url.origin}${realmBasePath('mock', path)}`;
  throw new CliError(
    `--server ${server}: give the realm base URL (http://host:port/realms/NAME) or the origin ` +
      '(http://host:port, or http://host:port/auth for a server run with --http-relative-path /auth)',
    EXIT.usage,
  );
}

/** Node's codes for a certificate chain it cannot trust (a self-signed one, or one signed by an unknown CA). */
const UNTRUSTED = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
]);

/**
 * How to trust a server run with `--tls`, when the TLS handshake refused its certificate: its mock CA is
 * made at start and written where its ready line says, and Node's fetch trusts it only through
 * NODE_EXTRA_CA_CERTS.
 */
function certificateHint(code: unknown, host: string): string {
  if (typeof code !== 'string') return '';
  if (UNTRUSTED.has(code))
    return (
      ' (a server run with --tls serves a certificate of a mock CA made at start: trust the CA with ' +
      'NODE_EXTRA_CA_CERTS=FILE mock-idp token ..., FILE being the CA certificate its ready line names ' +
      '("CA certificate FILE"; --tls-ca-out FILE says where it is written), or the CA of a certificate ' +
      'served with --tls-cert; see docs/tls.md)'
    );
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID')
    return ` (the server's certificate does not name ${host}: start it with --tls-host ${host})`;
  return '';
}

async function mintOnline(
  server: string,
  request: MintRequest,
  qaToken: string | undefined,
): Promise<MintedToken> {
  const url = `${realmBaseOf(server)}/mock/tokens`;
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(qaToken !== undefined ? { authorization: `Bearer ${qaToken}` } : {}),
      },
      body: JSON.stringify(request),
    });
  } catch (err) {
    const cause = (err as { cause?: { message?: string; code?: unknown } }).cause;
    const hint = certificateHint(cause?.code, new URL(url).hostname.replace(/^\[(.*)\]$/, '$1'));
    let reason = cause?.message ?? (err as Error).message;
    // Node 24 adds its own advice (--use-system-ca), which does not help with a mock CA: ours says what does.
    if (hint !== '') reason = reason.replace(/; if the root CA is installed locally, .*$/, '');
    throw new CliError(`mock-idp: cannot reach ${url}: ${reason}${hint}`, EXIT.unavailable);
  }
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (!response.ok) {
    const { error, error_description: description } = (body ?? {}) as Record<string, unknown>;
    const detail = error !== undefined ? `${String(error)}: ${String(description)}` : text.slice(0, 200);
    // No such path: most often a server run with --http-relative-path, or another realm.
    const hint =
      response.status === 404 && error === 'not_found'
        ? ' (a server run with --http-relative-path /auth is reached as --server http://host:port/auth; ' +
          'another realm as --server http://host:port/realms/NAME)'
        : '';
    throw new CliError(`mock-idp: POST ${url} answered ${response.status}: ${detail}${hint}`, EXIT.failure);
  }
  if (typeof (body as MintedToken | undefined)?.token !== 'string')
    throw new CliError(`mock-idp: POST ${url} answered no token (is this a mock-idp server?)`, EXIT.failure);
  return body as MintedToken;
}

async function mintOffline(o: TokenOptions, request: MintRequest): Promise<MintedToken> {
  const p = await createProvider({
    ...(o.fixtures !== undefined ? { fixtures: o.fixtures } : {}),
    ...(o.key !== undefined ? { keyFile: o.key } : {}),
    ...(o.clock !== undefined ? { clock: o.clock } : {}),
    ...(o.seed !== undefined ? { seed: o.seed } : {}),
    ...(o.issuer !== undefined ? { issuer: o.issuer } : {}),
  });
  if (o.key === undefined && p.realm.keys === undefined)
    throw new CliError(
      'mock-idp token: offline minting needs the signing key: --key FILE (or `keys` in the fixtures)',
      EXIT.usage,
    );
  return new Minter(p).mint(p.issuerFor(OFFLINE_ORIGIN), request);
}

export async function token(o: TokenOptions, stdout: (text: string) => void): Promise<void> {
  if (o.server === undefined && o.key === undefined && o.fixtures === undefined)
    throw new CliError(
      'mock-idp token: give --server URL (a running mock-idp) or --key FILE [--fixtures FILE] (offline)',
      EXIT.usage,
    );
  const request = toMintRequest(o);
  const minted =
    o.server !== undefined ? await mintOnline(o.server, request, o.qaToken) : await mintOffline(o, request);
  stdout(o.json ? JSON.stringify(minted, null, 2) : minted.token);
}
