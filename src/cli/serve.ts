// `mock-idp serve`: start the server, print the ready line, close cleanly on SIGINT/SIGTERM.
import { serveMockIdp, type ListeningRealm, type MockIdp, type MockIdpOptions } from '../server.js';
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
  };
}

/** A realm's ready line: the realm base URL to reach it, and the issuer when one is fixed elsewhere. */
function readyLine(realm: ListeningRealm, relativePath: string): string {
  const local = `${realm.url}${realmBasePath(realm.name, relativePath)}`;
  return `mock-idp listening on ${local}${realm.issuer !== local ? ` (issuer ${realm.issuer})` : ''}`;
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
    idp = await serveMockIdp(toMockIdpOptions(options), (realms) => {
      for (const realm of realms) io.stdout(readyLine(realm, options.httpRelativePath ?? ''));
    });
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
