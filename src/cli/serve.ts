// `mock-idp serve`: start the server, print the ready line, close cleanly on SIGINT/SIGTERM.
import { startMockIdp, type MockIdp, type MockIdpOptions } from '../server.js';
import { createLogger, type LogLevel } from '../log.js';
import type { AppHooks } from '../http/app.js';

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
  hooks?: AppHooks;
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

export async function serve(options: ServeOptions, io: ServeIo): Promise<MockIdp> {
  const idp = await startMockIdp(toMockIdpOptions(options), io.hooks);
  io.stdout(`mock-idp listening on ${idp.issuer}`);
  const stop = (signal: string): void => {
    io.stderr(`mock-idp: ${signal}, closing`);
    idp.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
  return idp;
}
