// `mock-idp serve`: start the server, print the ready line, close cleanly on SIGINT/SIGTERM.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  serveMockIdp,
  type ListeningRealm,
  type ListeningServer,
  type MockIdp,
  type MockIdpOptions,
} from '../server.js';
import { createLogger, type LogLevel } from '../log.js';
import { CliError, EXIT } from './cli-error.js';
import { watchFixtures } from './watch.js';
import { realmBasePath } from '../realm/paths.js';

export interface ServeOptions {
  /** One file per realm (--fixtures may be given several times). */
  fixtures?: string[];
  port: number;
  host: string;
  issuer?: string;
  key?: string | string[];
  clock?: string;
  frozen?: boolean;
  seed?: string;
  watch?: boolean;
  logLevel: LogLevel;
  quiet?: boolean;
  qaToken?: string;
  /** false: `--no-qa-api` or `MOCK_IDP_QA_API=off`. */
  qaApi?: boolean;
  /** `--store` / `MOCK_IDP_STORE`: memory or a Redis URL. */
  store?: string;
  /** `--http-relative-path` / `KC_HTTP_RELATIVE_PATH`, normalised by the option's parser. */
  httpRelativePath?: string;
  /** `--hostname-backchannel-dynamic` / `KC_HOSTNAME_BACKCHANNEL_DYNAMIC=true`. */
  hostnameBackchannelDynamic?: boolean;
  /** `--tls` / `MOCK_IDP_TLS=true`: https with a certificate made at start. */
  tls?: boolean;
  /** `--tls-host` (repeatable): more names of the made certificate. */
  tlsHost?: string[];
  /** `--tls-cert` / `MOCK_IDP_TLS_CERT` and `--tls-key` / `MOCK_IDP_TLS_KEY`: serve this certificate. */
  tlsCert?: string;
  tlsKey?: string;
  /** `--tls-ca-out` / `MOCK_IDP_TLS_CA_OUT`: where the made CA's PEM is written (default: a temp file). */
  tlsCaOut?: string;
  /** `--admin-user` / `--admin-password` (or Keycloak's environment variables): realm master's admin user. */
  adminUser?: string;
  adminPassword?: string;
}

interface ServeIo {
  stdout: (line: string) => void;
  stderr: (line: string) => void;
}

function toMockIdpOptions(o: ServeOptions): MockIdpOptions {
  return {
    port: o.port,
    host: o.host,
    logger: createLogger(o.quiet ? 'warn' : o.logLevel),
    ...(o.fixtures !== undefined && o.fixtures.length > 0
      ? { fixtures: o.fixtures.length === 1 ? (o.fixtures[0] as string) : o.fixtures }
      : {}),
    ...(o.issuer !== undefined ? { issuer: o.issuer } : {}),
    ...(o.key !== undefined ? { keyFile: o.key } : {}),
    ...(o.clock !== undefined ? { clock: o.clock } : {}),
    ...(o.frozen !== undefined ? { frozen: o.frozen } : {}),
    ...(o.seed !== undefined ? { seed: o.seed } : {}),
    ...(o.qaToken !== undefined ? { qaToken: o.qaToken } : {}),
    ...(o.qaApi === false ? { qaApi: false } : {}),
    ...(o.store !== undefined ? { store: o.store } : {}),
    ...(o.httpRelativePath !== undefined ? { httpRelativePath: o.httpRelativePath } : {}),
    ...(o.hostnameBackchannelDynamic === true ? { hostnameBackchannelDynamic: true } : {}),
    ...tlsOption(o),
    ...(o.adminUser !== undefined ? { adminUser: o.adminUser } : {}),
    ...(o.adminPassword !== undefined ? { adminPassword: o.adminPassword } : {}),
  };
}

/** The `tls` option of the flags, refusing combinations that cannot mean anything (with the flags' names). */
function tlsOption(o: ServeOptions): Pick<MockIdpOptions, 'tls'> {
  const given = o.tlsCert !== undefined || o.tlsKey !== undefined;
  if (given) {
    if (o.tlsCert === undefined || o.tlsKey === undefined)
      throw new CliError(
        `${o.tlsCert === undefined ? '--tls-key needs --tls-cert' : '--tls-cert needs --tls-key'}: give the certificate and its key, or neither (--tls makes one at start)`,
        EXIT.usage,
      );
    for (const flag of ['tlsHost', 'tlsCaOut'] as const)
      if (o[flag] !== undefined)
        throw new CliError(
          `${flag === 'tlsHost' ? '--tls-host' : '--tls-ca-out'} is for a certificate made at start (--tls), not a given one (--tls-cert)`,
          EXIT.usage,
        );
    return { tls: { certFile: o.tlsCert, keyFile: o.tlsKey } };
  }
  if (!o.tls) {
    const without = o.tlsHost !== undefined ? '--tls-host' : o.tlsCaOut !== undefined ? '--tls-ca-out' : '';
    if (without !== '')
      throw new CliError(`${without} needs --tls (https with a certificate made at start)`, EXIT.usage);
    return {};
  }
  return { tls: o.tlsHost !== undefined ? { hosts: o.tlsHost } : true };
}

/**
 * Writes the made CA's PEM where --tls-ca-out says, else to a new temp directory (removed when the process
 * exits); returns the path.
 */
function writeCaCertificate(pem: string, out: string | undefined): string {
  let path = out;
  if (path === undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'mock-idp-tls-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    path = join(dir, 'ca.pem');
  }
  try {
    writeFileSync(path, pem);
  } catch (err) {
    throw new CliError(`--tls-ca-out ${path}: cannot write the CA certificate: ${(err as Error).message}`);
  }
  return path;
}

/** A realm's ready line: the realm base URL to reach it, and the issuer when one is fixed elsewhere. */
function readyLine(realm: ListeningRealm, relativePath: string, caFile: string | undefined): string {
  const local = `${realm.url}${realmBasePath(realm.name, relativePath)}`;
  const notes = [
    ...(realm.issuer !== local ? [`issuer ${realm.issuer}`] : []),
    ...(caFile !== undefined ? [`CA certificate ${caFile}`] : []),
  ];
  return `mock-idp listening on ${local}${notes.length > 0 ? ` (${notes.join('; ')})` : ''}`;
}

/** A store option as the ready line names it: `memory`, or the Redis URL without its password. */
function storeName(store: string | undefined): string {
  if (store === undefined || store === 'memory') return 'memory';
  try {
    const url = new URL(store);
    if (url.password !== '') url.password = '***';
    return url.toString();
  } catch {
    return store;
  }
}

/**
 * The line after the realms' ready lines: where a person goes next (the start page, the first realm's
 * inspector) and which store holds the state. The ready lines themselves stay as scripts parse them.
 */
function nextLine(realms: readonly ListeningRealm[], options: ServeOptions): string | undefined {
  const first = realms[0];
  if (first === undefined) return undefined;
  const relativePath = options.httpRelativePath ?? '';
  const inspector =
    options.qaApi === false
      ? 'inspector off (--no-qa-api)'
      : `inspector ${first.url}${realmBasePath(first.name, relativePath)}/mock/ui`;
  return `mock-idp start page ${first.url}${relativePath}/ · ${inspector} · store ${storeName(options.store)}`;
}

/** How long SIGINT/SIGTERM lets requests in flight finish before their connections are closed. */
const DRAIN_MS = 10_000;

/**
 * Starts the server and prints the ready line. The signal handlers and the file watcher are in place
 * before the ready line (and before the fixtures are read): a signal or an edit at any moment counts.
 * SIGINT/SIGTERM stop accepting, let requests in flight finish (up to DRAIN_MS), then exit 0; a second
 * signal closes what is left at once.
 */
export async function serve(options: ServeOptions, io: ServeIo): Promise<MockIdp> {
  const files = options.fixtures ?? [];
  if (options.watch && files.length === 0)
    throw new CliError('--watch needs --fixtures FILE (the bundled fixtures do not change)', EXIT.usage);
  let idp: MockIdp | undefined;
  let stopping = false;
  // Every file is watched from before it is read, so an edit at any moment counts.
  const watchers = options.watch ? files.map((file) => watchFixtures(file, io)) : [];
  const closeWatchers = (): void => {
    for (const watcher of watchers) watcher.close();
  };
  const shutdown = (graceMs: number): void => {
    closeWatchers();
    if (idp === undefined) return; // still starting: shut down once started
    idp.close({ graceMs }).then(
      () => process.exit(EXIT.ok),
      () => process.exit(EXIT.ok),
    );
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopping) {
      io.stderr(`mock-idp: ${signal} again, closing the remaining connections now`);
      shutdown(0);
      return;
    }
    stopping = true;
    io.stderr(`mock-idp: ${signal}, closing (requests in flight may take up to ${DRAIN_MS / 1000} s)`);
    shutdown(DRAIN_MS);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    // The ready lines as soon as the server listens (with an ephemeral key, before it is made).
    // A CA file that cannot be written stops the start: the ready line would name a file that is not there.
    let unwritable: unknown;
    idp = await serveMockIdp(toMockIdpOptions(options), (realms, server: ListeningServer) => {
      let caFile: string | undefined;
      try {
        caFile =
          server.caCertificate !== undefined
            ? writeCaCertificate(server.caCertificate, options.tlsCaOut)
            : undefined;
      } catch (err) {
        unwritable = err;
        return;
      }
      for (const realm of realms) io.stdout(readyLine(realm, options.httpRelativePath ?? '', caFile));
      const next = nextLine(realms, options);
      if (next !== undefined) io.stdout(next);
    });
    if (unwritable !== undefined) {
      await idp.close();
      throw unwritable;
    }
  } catch (err) {
    closeWatchers();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    if (stopping) process.exit(EXIT.ok);
    throw err;
  }
  if (stopping) {
    shutdown(0);
    return idp;
  }
  const providers = Object.values(idp.realms).map((realm) => realm.provider);
  watchers.forEach((watcher, index) => {
    const provider = providers[index];
    if (provider !== undefined) watcher.attach(provider);
  });
  return idp;
}
