// startMockIdp(): the library entry used by the CLI, in-process tests and the container.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Clock, parseInstant } from './clock.js';
import { fixturesFromObject, loadFixturesFile, type LoadedFixtures } from './fixtures/load.js';
import { buildRealm } from './fixtures/realm.js';
import type { FixturesInput } from './fixtures/schema.js';
import { createApp } from './http/app.js';
import { Ids } from './ids.js';
import { loadRealmKeys } from './keys/realm-keys.js';
import { createLogger, type Logger, type LogLevel } from './log.js';
import { Provider } from './provider.js';
import type { MintedToken, MintRequest } from './qa/mint-request.js';
import { createQaApi } from './qa/router.js';
import { runTokenFlow, TokenFlowError, type TokenFlowRequest } from './flows/token-flow.js';
import type { TokenResponse } from './oauth/token-set.js';
import { parseJournalFilter, type JournalRecord } from './qa/journal.js';
import { ENDPOINT_NAMES } from './http/paths.js';
import { BackchannelLogout } from './oauth/backchannel-logout.js';

/** The fixtures bundled with the package. */
export const DEFAULT_FIXTURES = fileURLToPath(new URL('../fixtures/default.yaml', import.meta.url));

export interface MockIdpOptions {
  /** Fixtures file path, or the fixtures as an object. Default: the bundled fixtures/default.yaml. */
  fixtures?: string | FixturesInput;
  /** Port to listen on; 0 picks a free one. Default: 0. */
  port?: number;
  /** Bind address. Default: 127.0.0.1. */
  host?: string;
  /** Fixed public realm base URL. Default: the fixtures' `issuer`, else derived per request. */
  issuer?: string;
  /** Private key file (PEM or JWK). Default: the fixtures' `keys`, else an ephemeral RSA-2048 key. */
  keyFile?: string;
  /** Start instant: ISO-8601, epoch seconds or a Date. Default: the fixtures' `clock.start`, else real time. */
  clock?: string | number | Date;
  /** Time stands still until advanced. Default: the fixtures' `clock.frozen`, else false. */
  frozen?: boolean;
  /** Makes jti, session ids and codes reproducible. Default: the fixtures' `seed`, else random. */
  seed?: string;
  /**
   * Every QA API request (`{realm}/mock/...`) must carry `Authorization: Bearer {qaToken}`. Default: none;
   * then the QA API refuses only browsers from other origins.
   */
  qaToken?: string;
  /** false: the QA API answers 404 (the in-process `mint()` still works). Default: true. */
  qaApi?: boolean;
  /** Log level. Default: 'silent' for the library (the CLI uses 'info'). */
  logLevel?: LogLevel;
  /** Custom logger; wins over logLevel. */
  logger?: Logger;
}

export interface MockIdp {
  /** Realm base URL (the issuer for requests to `url`). */
  issuer: string;
  /** Origin the server listens on, e.g. http://127.0.0.1:34567. */
  url: string;
  port: number;
  /** The one clock of this server: set, freeze or advance it from the test. */
  clock: Clock;
  provider: Provider;
  /** Mints one token, as POST {realm}/mock/tokens does; a bad request rejects with an OAuthError. */
  mint(request: MintRequest): Promise<MintedToken>;
  /**
   * A real token response from a real flow over HTTP: client_credentials, or with `user` the code flow
   * (login_hint, PKCE S256). The client's secret comes from the fixtures.
   */
  token(request: TokenFlowRequest): Promise<TokenResponse>;
  /** The request journal, as GET {realm}/mock/requests answers it (newest last); a bad filter throws. */
  requests(filter?: RequestFilter): JournalRecord[];
  /** Stops listening and closes every connection (see {@link CloseOptions} to let requests finish). */
  close(options?: CloseOptions): Promise<void>;
}

export interface CloseOptions {
  /**
   * How long requests in flight may take to finish before their connections are closed, in ms; idle
   * connections close at once. Default: 0 (close everything now).
   */
  graceMs?: number;
}

/** Filters of {@link MockIdp.requests}, as the query of GET /mock/requests takes them. */
export interface RequestFilter {
  /** An endpoint name: token, introspect, discovery, certs, userinfo, auth, logout, revoke, registration. */
  endpoint?: string;
  /** A client id. */
  client?: string;
  /** A status (400) or a class ('4xx'). */
  status?: number | string;
  /** Records at or after this instant (ISO-8601, epoch seconds or a Date). */
  since?: string | number | Date;
}

function filterQuery(filter: RequestFilter): Record<string, string> {
  const query: Record<string, string> = {};
  if (filter.endpoint !== undefined) query['endpoint'] = filter.endpoint;
  if (filter.client !== undefined) query['client'] = filter.client;
  if (filter.status !== undefined) query['status'] = String(filter.status);
  if (filter.since !== undefined)
    query['since'] = filter.since instanceof Date ? filter.since.toISOString() : String(filter.since);
  return query;
}

/** Stops accepting, lets requests in flight finish for up to `graceMs`, then closes what is left. */
function closeServer(server: Server, graceMs: number): Promise<void> {
  const closed = new Promise<void>((resolve, reject) => {
    server.close((err) => (err ? reject(err) : resolve()));
  });
  if (graceMs <= 0) {
    server.closeAllConnections();
    return closed;
  }
  // A keep-alive connection whose request just finished is idle: close it rather than wait for the client.
  server.closeIdleConnections();
  const idle = setInterval(() => server.closeIdleConnections(), 25);
  const force = setTimeout(() => server.closeAllConnections(), graceMs);
  const stop = (): void => {
    clearInterval(idle);
    clearTimeout(force);
  };
  return closed.finally(stop);
}

export async function loadAnyFixtures(fixtures: string | FixturesInput | undefined): Promise<LoadedFixtures> {
  if (fixtures === undefined) return loadFixturesFile(DEFAULT_FIXTURES);
  return typeof fixtures === 'string' ? loadFixturesFile(fixtures) : fixturesFromObject(fixtures);
}

/** Builds a provider from options and fixtures, without listening. */
export async function createProvider(options: MockIdpOptions): Promise<Provider> {
  const realm = await buildRealm(await loadAnyFixtures(options.fixtures));
  const start = options.clock ?? realm.clock?.start;
  const clock = new Clock({
    ...(start !== undefined ? { startMs: parseInstant(start) } : {}),
    frozen: options.frozen ?? realm.clock?.frozen ?? false,
  });
  const seed = options.seed ?? realm.seed;
  const keys = await loadRealmKeys(realm, options.keyFile);
  const issuer = options.issuer;
  return new Provider({
    realm,
    clock,
    ids: new Ids(seed),
    keys,
    ...(issuer !== undefined ? { fixedIssuer: issuer } : {}),
  });
}

function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException): void => {
      const reason =
        err.code === 'EADDRINUSE'
          ? `port ${port} is already in use`
          : err.code === 'EADDRNOTAVAIL'
            ? `address ${host} is not available`
            : err.message;
      reject(new Error(`cannot listen on ${host}:${port}: ${reason}`));
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve(server.address() as AddressInfo);
    });
  });
}

/**
 * Starts a mock IdP with the QA API under `{realm}/mock`. Rejects (and listens on nothing) when the
 * fixtures, key or flags are bad.
 */
export async function startMockIdp(options: MockIdpOptions = {}): Promise<MockIdp> {
  const provider = await createProvider(options);
  const log = options.logger ?? createLogger(options.logLevel ?? 'silent');
  const qa = createQaApi(provider, {
    enabled: options.qaApi ?? true,
    ...(options.qaToken !== undefined ? { token: options.qaToken } : {}),
  });
  // Sessions that end (logout, QA API, idle expiry) are told to their clients' back-channel logout URIs.
  const backchannel = new BackchannelLogout(provider, log);
  provider.store.onSessionEnd((session) => backchannel.notify(session));
  // Idle sessions end on the mock clock: look once a second (and the clock may jump when moved).
  const expiry = setInterval(() => provider.store.expireSessions(), 1000);
  expiry.unref();
  const app = createApp([{ provider, hooks: qa.hooks }], log);
  const server = createServer(app);
  server.keepAliveTimeout = 65_000;
  const host = options.host ?? '127.0.0.1';
  const address = await listen(server, options.port ?? 0, host);
  const shownHost =
    address.family === 'IPv6'
      ? `[${address.address}]`
      : address.address === '0.0.0.0'
        ? '127.0.0.1'
        : address.address;
  const url = `http://${shownHost}:${address.port}`;
  return {
    issuer: provider.issuerFor(url),
    url,
    port: address.port,
    clock: provider.clock,
    provider,
    mint: (request) => qa.mint(provider.issuerFor(url), request),
    token: (request) => {
      const client = provider.realm.clients.get(request.client);
      if (client === undefined)
        return Promise.reject(new TokenFlowError(`unknown client "${request.client}"`));
      return runTokenFlow(`${url}/realms/${provider.realm.name}`, client, request);
    },
    requests: (filter = {}) => provider.journal.list(parseJournalFilter(filterQuery(filter), ENDPOINT_NAMES)),
    close: (closeOptions = {}) => {
      clearInterval(expiry);
      backchannel.close();
      return closeServer(server, closeOptions.graceMs ?? 0);
    },
  };
}
