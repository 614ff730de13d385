// startMockIdp(): the library entry used by the CLI, in-process tests and the container.
import { createServer, IncomingMessage, ServerResponse, type RequestListener, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { Clock } from './clock.js';
import { ListenError } from './errors.js';
import { fixturesFromObject, loadFixturesFile, type LoadedFixtures } from './fixtures/load.js';
import { FixturesError, logWarnings } from './fixtures/errors.js';
import { buildRealm, type Realm } from './fixtures/realm.js';
import type { FixturesInput } from './fixtures/schema.js';
import type { KeycloakRealmInput } from './fixtures/keycloak/schema.js';
import { createApp, type ServedRealm } from './http/app.js';
import { addAdmin, adminUserOf, masterFixtures, MASTER, type AdminUser } from './admin/master.js';
import { createLogger, type Logger, type LogLevel } from './log.js';
import { buildProvider } from './realm/build.js';
import { realmIssuer, type Provider } from './realm/provider.js';
import { normaliseRelativePath, realmBasePath } from './realm/paths.js';
import type { MintedToken, MintRequest } from './qa/mint-request.js';
import { createQaApi, type QaApi } from './qa/router.js';
import { checkTokenRequest, runTokenFlow, unknownClient, type TokenFlowRequest } from './flows/token-flow.js';
import type { TokenResponse } from './oauth/token-set.js';
import { parseJournalFilter } from './qa/journal.js';
import type { JournalRecord } from './store/journal.js';
import { ENDPOINT_NAMES } from './endpoint-names.js';
import { BackchannelLogout } from './oauth/backchannel-logout.js';
import { OAuthError } from './oauth/errors.js';
import type { StoreBackend } from './store/backend.js';
import { openStore } from './store/open.js';
import { refuseUnknownOptions } from './unknown-options.js';
import { fetchTrusting, type FlowFetch } from './flows/ca-fetch.js';
import { tlsMaterial, type TlsMaterial, type TlsOptions } from './keys/tls.js';

/** The fixtures bundled with the package. */
export const DEFAULT_FIXTURES = fileURLToPath(new URL('../fixtures/default.yaml', import.meta.url));

/** A fixtures file path, or fixtures as an object (mock-idp's format, or a Keycloak realm representation). */
type FixturesSource = string | FixturesInput | KeycloakRealmInput;

export interface MockIdpOptions {
  /**
   * Fixtures file path, or the fixtures as an object; several (an array) serve one realm each, side by side.
   * Default: the bundled fixtures/default.yaml.
   */
  fixtures?: FixturesSource | readonly FixturesSource[];
  /** Port to listen on; 0 picks a free one. Default: 0. */
  port?: number;
  /** Bind address. Default: 127.0.0.1. */
  host?: string;
  /**
   * Fixed public realm base URL. Default: the fixtures' `issuer`, else derived per request. One realm only
   * (with several, each file's `issuer` fixes its own).
   */
  issuer?: string;
  /**
   * Private key file (PEM or JWK). Default: the fixtures' `keys`, else an ephemeral RSA-2048 key. One realm
   * only (with several, each file's `keys` gives its own). Two files: an RSA key and an EC P-256 key.
   */
  keyFile?: string | string[];
  /** Start instant: ISO-8601, epoch seconds or a Date. Default: the fixtures' `clock.start`, else real time. */
  clock?: string | number | Date;
  /** Time stands still until advanced. Default: the fixtures' `clock.frozen`, else false. */
  frozen?: boolean;
  /**
   * Makes jti, session ids and codes reproducible. Default: the fixtures' `seed`, else random. With several
   * realms each realm's ids derive from the seed and its realm name, so two realms never share ids or secrets.
   */
  seed?: string;
  /**
   * Every QA API request (`{realm}/mock/...`) must carry `Authorization: Bearer {qaToken}`. Default: none;
   * then the QA API refuses only browsers from other origins.
   */
  qaToken?: string;
  /** false: the QA API answers 404 (the in-process `mint()` still works). Default: true. */
  qaApi?: boolean;
  /**
   * Where sessions, codes, revocations and used assertion ids live: `memory` (the process; default) or
   * `redis://[:password@]host:port[/db]` / `rediss://...`, shared by every process on that Redis.
   * An unusable store rejects before anything listens.
   */
  store?: string;
  /**
   * Serve everything under this path, as Keycloak's `--http-relative-path`: `/auth` gives
   * `/auth/realms/{realm}/...` and `/auth/health`. A leading slash is added, a trailing one dropped; `/` is
   * none. Default: none.
   */
  httpRelativePath?: string;
  /**
   * Serve https: `true` with a certificate made at start for `localhost`, `127.0.0.1` and `::1`, signed by a
   * mock CA made at start (its PEM is {@link MockIdp.caCertificate}); `{ hosts }` adds names to it;
   * `{ certFile, keyFile }` serves a given PEM certificate and key instead. The URLs and issuer become https.
   * A certificate or key that cannot be read or does not fit rejects with a TlsError. Default: http.
   */
  tls?: boolean | TlsOptions;
  /**
   * With a fixed issuer (`issuer`, or the fixtures' `issuer`): discovery names the back-channel endpoints
   * (token, introspection, certs, userinfo, revocation, PAR, registration) under the request's own origin,
   * and the browser-facing ones (authorization, end-session, session iframe) under the issuer, as Keycloak's
   * `--hostname-backchannel-dynamic`; `iss` stays the issuer. Without a fixed issuer every URL already
   * follows the request. Default: false.
   */
  hostnameBackchannelDynamic?: boolean;
  /** Log level. Default: 'silent' for the library (the CLI uses 'info'). */
  logLevel?: LogLevel;
  /** Custom logger; wins over logLevel. */
  logger?: Logger;
  /**
   * The admin user of realm master (served beside the fixtures' realms), who may use the admin REST API.
   * Default: env KC_BOOTSTRAP_ADMIN_USERNAME (or KEYCLOAK_ADMIN), else `admin`.
   */
  adminUser?: string;
  /** The admin user's password. Default: env KC_BOOTSTRAP_ADMIN_PASSWORD (or KEYCLOAK_ADMIN_PASSWORD), else `admin`. */
  adminPassword?: string;
}

/** One realm of a running server. */
interface MockIdpRealm {
  /** The realm name (the fixtures' `realm`). */
  name: string;
  /** Realm base URL (the issuer for requests to `url`). */
  issuer: string;
  /** Origin the server listens on (the same for every realm). */
  url: string;
  /** This realm's own clock: set, freeze or advance it from the test. */
  clock: Clock;
  provider: Provider;
  /** Mints one token, as POST {realm}/mock/tokens does; a bad request rejects with an OAuthError. */
  mint(request: MintRequest): Promise<MintedToken>;
  /**
   * A real token response from a real flow over HTTP: client_credentials, or with `user` the code flow
   * (login_hint, PKCE S256). The client's secret comes from the fixtures.
   */
  token(request: TokenFlowRequest): Promise<TokenResponse>;
  /**
   * The request journal, as GET {realm}/mock/requests answers it (newest last); a bad filter throws. With a
   * shared store (Redis) it is this process's requests, read synchronously; GET /mock/requests answers every
   * replica's.
   */
  requests(filter?: RequestFilter): JournalRecord[];
}

/** The running server: the first realm's fields (see {@link MockIdpRealm}), every realm, and the listener. */
export interface MockIdp extends Omit<MockIdpRealm, 'name'> {
  /** Every realm served, by name, the first one first. */
  realms: Record<string, MockIdpRealm>;
  port: number;
  /**
   * With `tls` and a made certificate: the PEM of the mock CA that signed it, for a client to trust
   * (`NODE_EXTRA_CA_CERTS`, curl's `--cacert`, undici's `connect.ca`). Otherwise undefined.
   */
  caCertificate: string | undefined;
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
  /** Only the newest this many of the records that match (1 to 10,000). */
  limit?: number;
}

/** The filter as GET /mock/requests's query, every field passed on (one it does not know is refused there). */
function filterQuery(filter: RequestFilter): Record<string, string> {
  return Object.fromEntries(
    Object.entries(filter)
      .filter(([, value]: [string, unknown]) => value !== undefined)
      .map(([name, value]: [string, unknown]) => [
        name,
        value instanceof Date ? value.toISOString() : String(value),
      ]),
  );
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

async function loadAnyFixtures(fixtures: FixturesSource | undefined): Promise<LoadedFixtures> {
  if (fixtures === undefined) return loadFixturesFile(DEFAULT_FIXTURES);
  return typeof fixtures === 'string' ? loadFixturesFile(fixtures) : fixturesFromObject(fixtures);
}

/** The fixtures sources of the options: one or several, the bundled file when none is given. */
function sourcesOf(options: MockIdpOptions): readonly (FixturesSource | undefined)[] {
  const { fixtures } = options;
  if (Array.isArray(fixtures)) return fixtures.length > 0 ? fixtures : [undefined];
  return [fixtures as FixturesSource | undefined];
}

/**
 * Loads every source, and refuses two sources of one realm name (naming both). A source of realm master gets
 * the admin user and admin-cli; with none, `master` is realm master as Keycloak starts it.
 */
async function loadRealms(
  sources: readonly (FixturesSource | undefined)[],
  admin: AdminUser,
): Promise<{ realms: Realm[]; master?: Realm }> {
  const loaded = (await Promise.all(sources.map((source) => loadAnyFixtures(source)))).map((l) =>
    l.fixtures.realm === MASTER ? addAdmin(l, admin) : l,
  );
  const nameOf = (i: number): string =>
    typeof sources[i] === 'string' ? (loaded[i]?.source ?? '') : `fixtures[${i}]`;
  const seen = new Map<string, number>();
  for (const [index, l] of loaded.entries()) {
    const name = l.fixtures.realm;
    const firstIndex = seen.get(name);
    if (firstIndex !== undefined) {
      throw new FixturesError(nameOf(index), [
        {
          path: ['realm'],
          message: `realm "${name}" is already served from ${nameOf(firstIndex)}: each fixtures file must name its own realm`,
          ...l.locate(['realm']),
        },
      ]);
    }
    seen.set(name, index);
  }
  const realms = await Promise.all(loaded.map((l) => buildRealm(l)));
  if (seen.has(MASTER)) return { realms };
  return { realms, master: await buildRealm(masterFixtures(admin)) };
}

/**
 * The server's request and response classes: node:http's, whose prototypes become the ones express gives
 * every request and response once the app exists. express's app.handle sets `Object.setPrototypeOf(req,
 * app.request)` (and the response's) per request; a request born with that prototype makes it a no-op, where
 * changing it moved every request and response to a new hidden class and left express's, the router's and
 * the handlers' property accesses missing their inline caches: ~120 µs of CPU per request.
 */
function expressMessages(): {
  IncomingMessage: typeof IncomingMessage;
  ServerResponse: typeof ServerResponse;
  adopt(app: { request: object; response: object }): void;
} {
  class ExpressRequest extends IncomingMessage {}
  class ExpressResponse extends ServerResponse {}
  return {
    IncomingMessage: ExpressRequest,
    ServerResponse: ExpressResponse as typeof ServerResponse,
    adopt: (app) => {
      // Each class's prototype now inherits express's, and express hands out the class's prototype.
      Object.setPrototypeOf(ExpressRequest.prototype, app.request);
      Object.setPrototypeOf(ExpressResponse.prototype, app.response);
      app.request = ExpressRequest.prototype;
      app.response = ExpressResponse.prototype;
    },
  };
}

/** Builds the providers of every realm of the options (the first first), without listening. */
async function createProviders(options: MockIdpOptions, backend?: StoreBackend): Promise<Provider[]> {
  const { realms, several } = await loadRealmsOf(options, adminOf(options));
  return Promise.all(realms.map((realm) => buildProvider(realm, options, several, backend)));
}

/** The admin user of realm master: the options', else Keycloak's environment variables', else admin/admin. */
function adminOf(options: MockIdpOptions): AdminUser {
  return adminUserOf(options, process.env);
}

/**
 * Loads the realms of the options (refusing --key or --issuer with several), and realm master when none of
 * them is (it takes neither: its own ephemeral key, its issuer from the request).
 */
async function loadRealmsOf(
  options: MockIdpOptions,
  admin: AdminUser,
): Promise<{ realms: Realm[]; several: boolean; master?: Realm }> {
  const sources = sourcesOf(options);
  const several = sources.length > 1;
  if (several && options.keyFile !== undefined)
    throw new Error(
      'a key file (--key) signs for one realm: with several fixtures files, give each realm its key in its `keys`',
    );
  if (several && options.issuer !== undefined)
    throw new Error(
      'a fixed issuer (--issuer) names one realm: with several fixtures files, give each realm its `issuer`',
    );
  return { ...(await loadRealms(sources, admin)), several };
}

/** Builds the provider of the (first) realm, without listening. */
export async function createProvider(options: MockIdpOptions): Promise<Provider> {
  const [first] = await createProviders(options);
  if (first === undefined) throw new Error('no fixtures');
  return first;
}

/** A request that meets a failure of the store answers 503, as the real provider answers while degraded. */
function storeUnavailable(): OAuthError {
  return new OAuthError(
    'temporarily_unavailable',
    'The state store (Redis) is unavailable; retry later',
    503,
  );
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
      const why =
        err.code === 'EADDRINUSE' ? 'in-use' : err.code === 'EADDRNOTAVAIL' ? 'unavailable' : 'other';
      reject(new ListenError(`cannot listen on ${host}:${port}: ${reason}`, why));
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
/** A served realm's running parts: its QA API and back-channel logout. */
interface RunningRealm {
  provider: Provider;
  qa: QaApi;
  backchannel: BackchannelLogout;
}

function runRealm(provider: Provider, options: MockIdpOptions, log: Logger): RunningRealm {
  const qa = createQaApi(provider, {
    enabled: options.qaApi ?? true,
    ...(options.qaToken !== undefined ? { token: options.qaToken } : {}),
  });
  // Sessions that end (logout, QA API, idle expiry) are told to their clients' back-channel logout URIs.
  const backchannel = new BackchannelLogout(provider, log);
  // A change at run time (PUT /mock/fixtures, --watch, the admin API, a replica's) logs what it brings.
  provider.log = log;
  provider.store.onSessionEnd((session) => backchannel.notify(session));
  return { provider, qa, backchannel };
}

function realmHandle({ provider, qa }: RunningRealm, url: string, send: FlowFetch): MockIdpRealm {
  const base = `${url}${realmBasePath(provider.realm.name, provider.relativePath)}`;
  return {
    name: provider.realm.name,
    issuer: provider.issuerFor(url),
    url,
    clock: provider.clock,
    provider,
    mint: (request) => qa.mint(provider.issuerFor(url), request),
    token: async (request) => {
      checkTokenRequest('idp.token', request);
      const client = provider.realm.clients.get(request.client);
      if (client === undefined) throw unknownClient(request.client, [...provider.realm.clients.keys()]);
      return runTokenFlow(
        base,
        { ...client, apiVersion: client.apiVersion ?? provider.realm.apiVersion },
        request,
        // A DPoP proof is made on the realm's mock clock, as the server checks it.
        { send, nowSeconds: () => provider.clock.nowSeconds() },
      );
    },
    requests: (filter = {}) => provider.journal.list(parseJournalFilter(filterQuery(filter), ENDPOINT_NAMES)),
  };
}

/**
 * Starts a mock IdP with the QA API under `{realm}/mock`, one realm per fixtures source. Rejects (and
 * listens on nothing) when the fixtures, key or flags are bad.
 */
export async function startMockIdp(options: MockIdpOptions = {}): Promise<MockIdp> {
  refuseUnknownOptions('startMockIdp', Object.keys(OPTION_NAMES), options);
  return serveMockIdp(options);
}

/** Every option of {@link MockIdpOptions}, checked complete by the compiler: any other name is a typo. */
const OPTION_NAMES = {
  fixtures: true,
  port: true,
  host: true,
  issuer: true,
  keyFile: true,
  clock: true,
  frozen: true,
  seed: true,
  qaToken: true,
  qaApi: true,
  store: true,
  httpRelativePath: true,
  tls: true,
  hostnameBackchannelDynamic: true,
  logLevel: true,
  logger: true,
  adminUser: true,
  adminPassword: true,
} satisfies Record<keyof MockIdpOptions, true>;

/** What a realm's ready line names (the CLI's `listening on`). */
export type ListeningRealm = Pick<MockIdpRealm, 'name' | 'issuer' | 'url'>;

/** What the ready lines name beside the realms: the CA to trust when the server made its certificate. */
export interface ListeningServer {
  caCertificate: string | undefined;
}

/** The https material of the options (made or read before anything listens), or undefined for http. */
async function tlsOf(options: MockIdpOptions): Promise<TlsMaterial | undefined> {
  if (options.tls === undefined || options.tls === false) return undefined;
  return tlsMaterial(options.tls, options.seed);
}

/**
 * startMockIdp, telling `onListening` once the server listens (the CLI prints its ready line there). When
 * what is left cannot fail on the user's input — every realm signs with an ephemeral key made in this
 * process, on the memory store — that is before the key exists: RSA key generation (0.1–0.5 s) then
 * overlaps the wait for the first request, and a request arriving meanwhile waits for it. Otherwise (a key
 * file, fixture keys, a Redis store) it is once everything is ready, as startMockIdp resolves.
 */
export async function serveMockIdp(
  given: MockIdpOptions,
  onListening?: (realms: ListeningRealm[], server: ListeningServer) => void,
): Promise<MockIdp> {
  const relativePath = normaliseRelativePath(given.httpRelativePath ?? '');
  const log = given.logger ?? createLogger(given.logLevel ?? 'silent');
  // One logger for the server and every realm's parts (a replica's sharing of QA state logs through it).
  const options: MockIdpOptions = { ...given, httpRelativePath: relativePath, logger: log };
  const tls = await tlsOf(options);
  const backend = await openStore(options.store, log, storeUnavailable);
  let realms: Realm[];
  let several: boolean;
  let master: Realm | undefined;
  const admin = adminOf(options);
  try {
    ({ realms, several, master } = await loadRealmsOf(options, admin));
  } catch (err) {
    await backend.close();
    throw err;
  }
  // Keycloak refuses to start; here the flag is harmless (every URL follows the request already): said once.
  if (options.hostnameBackchannelDynamic === true)
    for (const realm of realms)
      if ((several ? undefined : options.issuer) === undefined && realm.issuer === undefined)
        log.warn(
          `realm "${realm.name}": --hostname-backchannel-dynamic does nothing without a fixed issuer (--issuer URL or the fixtures' issuer): every URL already follows the request`,
        );
  // What a Keycloak realm file asks for and cannot be honoured, and what Keycloak would read past in it (an
  // unknown field where it ignores one, an undefined scope); a change at run time tells what it adds.
  for (const realm of realms) logWarnings(log, realm);
  const early =
    onListening !== undefined &&
    backend.kind === 'memory' &&
    realms.every((realm) => realm.keys === undefined && (several || options.keyFile === undefined));
  const build = (): Promise<Provider[]> =>
    Promise.all(realms.map((realm) => buildProvider(realm, options, several, backend))).catch(async (err) => {
      await backend.close();
      throw err;
    });
  let providers = early ? undefined : await build();

  // Requests wait for the app (built once the keys exist); afterwards they go straight to it.
  let openGate: (app: RequestListener) => void = () => undefined;
  let failGate: () => void = () => undefined;
  const gate = new Promise<RequestListener>((resolve, reject) => {
    openGate = resolve;
    failGate = reject;
  });
  gate.catch(() => undefined);
  let handle: RequestListener = (req, res) => {
    gate.then(
      (ready) => ready(req, res),
      () => res.destroy(),
    );
  };
  const messages = expressMessages();
  const serverOptions = {
    IncomingMessage: messages.IncomingMessage,
    ServerResponse: messages.ServerResponse,
  };
  const server: Server =
    tls === undefined
      ? createServer(serverOptions, (req, res) => handle(req, res))
      : createHttpsServer({ ...serverOptions, cert: tls.cert, key: tls.key }, (req, res) => handle(req, res));
  server.keepAliveTimeout = 65_000;
  const host = options.host ?? '127.0.0.1';
  const address = await listen(server, options.port ?? 0, host).catch(async (err: unknown) => {
    for (const provider of providers ?? []) provider.qaShare?.close();
    await backend.close();
    throw err;
  });
  const shownHost =
    address.family === 'IPv6'
      ? `[${address.address}]`
      : address.address === '0.0.0.0'
        ? '127.0.0.1'
        : address.address;
  const url = `${tls === undefined ? 'http' : 'https'}://${shownHost}:${address.port}`;
  const fixed = several ? undefined : options.issuer;
  const listening = (): void =>
    onListening?.(
      realms.map((realm) => ({
        name: realm.name,
        url,
        issuer: realmIssuer(fixed, realm, url, relativePath),
      })),
      { caCertificate: tls?.caCertificate },
    );
  if (providers === undefined) {
    listening();
    try {
      providers = await build();
    } catch (err) {
      failGate();
      await closeServer(server, 0);
      throw err;
    }
  }

  const running = providers.map((provider) => runRealm(provider, options, log));
  // Realm master (when no fixtures file is it) is built when first asked for (its URLs, the admin API): its
  // key is not made at start, so a start is as quick as without it.
  let closing = false;
  const buildMaster = async (): Promise<ServedRealm | undefined> => {
    if (master === undefined) return undefined;
    try {
      const made = runRealm(await buildProvider(master, options, true, backend), options, log);
      running.push(made);
      if (closing) {
        made.backchannel.close();
        made.provider.qaShare?.close();
      }
      return { provider: made.provider, hooks: made.qa.hooks };
    } catch (err) {
      log.warn(`mock-idp: realm master could not start: ${err instanceof Error ? err.message : String(err)}`);
      return undefined;
    }
  };
  // Idle sessions end on each realm's mock clock: look once a second (and the clock may jump when moved).
  const stops: (() => void)[] = [];
  const expiry = setInterval(() => {
    for (const { provider } of running) provider.store.expireSessions().catch(() => undefined);
  }, 1000);
  expiry.unref();
  const app = createApp(
    running.map(({ provider, qa }) => ({ provider, hooks: qa.hooks })),
    log,
    async () => {
      // A shared store is asked whether it came back empty (then DOWN while the replicas re-seed it).
      await Promise.all(running.map(({ provider }) => provider.qaShare?.probe()));
      return backend.health();
    },
    relativePath,
    {
      // A realm made through the admin API (here or at another replica): its own key and ids, as a realm of
      // several; shared by the replicas of a shared store.
      create: async (rep) => {
        const realm = await buildRealm(fixturesFromObject(rep, `realm ${rep.realm}`));
        logWarnings(log, realm);
        const made = runRealm(await buildProvider(realm, options, true, backend), options, log);
        running.push(made);
        return { provider: made.provider, hooks: made.qa.hooks };
      },
      removed: (provider) => {
        const index = running.findIndex((r) => r.provider === provider);
        const [gone] = index >= 0 ? running.splice(index, 1) : [];
        gone?.backchannel.close();
        gone?.provider.qaShare?.close();
        // Deleted: what it shared is forgotten (unless another of its name serves: two made at once).
        const name = gone?.provider.realm.name;
        if (name !== undefined && !running.some((r) => r.provider.realm.name === name))
          backend.forget?.(name);
      },
      ...(backend.sharedRealms !== undefined ? { shared: backend.sharedRealms } : {}),
      onClose: (stop) => stops.push(stop),
    },
    master !== undefined ? { name: MASTER, build: buildMaster } : undefined,
  );
  messages.adopt(app);
  handle = app;
  openGate(app);
  if (!early) listening();
  // The flows of `token()` trust the mock CA that signed a made certificate.
  const send = tls?.caCertificate !== undefined ? fetchTrusting(tls.caCertificate) : fetch;
  const handles = running.map((r) => realmHandle(r, url, send));
  const first = handles[0] as MockIdpRealm;
  return {
    realms: Object.fromEntries(handles.map((h) => [h.name, h])),
    issuer: first.issuer,
    url,
    port: address.port,
    caCertificate: tls?.caCertificate,
    clock: first.clock,
    provider: first.provider,
    mint: first.mint,
    token: first.token,
    requests: first.requests,
    close: (closeOptions = {}) => {
      closing = true;
      clearInterval(expiry);
      for (const stop of stops) stop();
      for (const r of running) r.backchannel.close();
      for (const r of running) r.provider.qaShare?.close();
      return closeServer(server, closeOptions.graceMs ?? 0).finally(() => backend.close());
    },
  };
}
