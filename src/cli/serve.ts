// `mock-idp serve`: start the server, print the ready line, close cleanly on SIGINT/SIGTERM.
import { startMockIdp, type MockIdp, type MockIdpOptions } from '../server.js';
import { createLogger, type LogLevel } from '../log.js';
import { CliError, EXIT } from './exit.js';
import { watchFixtures } from './watch.js';

export interface ServeOptions {
  fixtures?: string;
  port: number;
  host: string;
  issuer?: string;
  key?: string;
  clock?: string;
  frozen?: boolean;
  seed?: string;
  watch?: boolean;
  logLevel: LogLevel;
  quiet?: boolean;
}

export interface ServeIo {
  stdout: (line: string) => void;
  stderr: (line: string) => void;
}

export function toMockIdpOptions(o: ServeOptions): MockIdpOptions {
  return {
    port: o.port,
    host: o.host,
    logger: createLogger(o.quiet ? 'warn' : o.logLevel),
    ...(o.fixtures !== undefined ? { fixtures: o.fixtures } : {}),
    ...(o.issuer !== undefined ? { issuer: o.issuer } : {}),
    ...(o.key !== undefined ? { keyFile: o.key } : {}),
    ...(o.clock !== undefined ? { clock: o.clock } : {}),
    ...(o.frozen !== undefined ? { frozen: o.frozen } : {}),
    ...(o.seed !== undefined ? { seed: o.seed } : {}),
  };
}

/** The ready line: the realm base URL to reach the server, and the issuer when one is fixed elsewhere. */
export function readyLine(idp: MockIdp): string {
  const local = `${idp.url}/realms/${idp.provider.realm.name}`;
  return `mock-idp listening on ${local}${idp.issuer !== local ? ` (issuer ${idp.issuer})` : ''}`;
}

export async function serve(options: ServeOptions, io: ServeIo): Promise<MockIdp> {
  if (options.watch && options.fixtures === undefined)
    throw new CliError('--watch needs --fixtures FILE (the bundled fixtures do not change)', EXIT.usage);
  const idp = await startMockIdp(toMockIdpOptions(options));
  const unwatch =
    options.watch && options.fixtures !== undefined
      ? watchFixtures(options.fixtures, idp.provider, io)
      : () => undefined;
  io.stdout(readyLine(idp));
  const stop = (signal: string): void => {
    io.stderr(`mock-idp: ${signal}, closing`);
    unwatch();
    idp.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
  return idp;
}
