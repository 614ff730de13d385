// Starts and stops the servers of tests on 127.0.0.1:0: mock-idp in process, the real binary in a child,
// and small local HTTP servers (apps, redirect targets, request_uri hosts).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { PATHS } from '../../src/realm/paths.js';
import { startMockIdp, type MockIdp, type MockIdpOptions } from '../../src/server.js';
import { ensureBuilt, spawnServer, startServe, type ServeProcess } from './cli.js';

/** The realm most tests use: written for these tests in the PRODUCT.md §3 format, not the bundled one. */
export const FJORD_FIXTURES = fileURLToPath(new URL('../fixtures-data/fjord.yaml', import.meta.url));
/** Private JWK of the fixture client `vault-signer` (private_key_jwt). */
export const VAULT_SIGNER_KEY = fileURLToPath(
  new URL('../fixtures-data/vault-signer.private.jwk.json', import.meta.url),
);

/** The 2030-01-01T00:00:00Z instant tests freeze the clock at, in epoch seconds. */
export const Y2030 = 1_893_456_000;

/** Every URL under a realm base, by its name in src/realm/paths.ts. */
export type Endpoints = { [name in keyof typeof PATHS]: string };

export interface TestIdp extends MockIdp {
  endpoints: Endpoints;
}

/** The realm's URLs for a realm base URL (the issuer), built from src/realm/paths.ts. */
export function endpointsOf(issuer: string): Endpoints {
  return Object.fromEntries(Object.entries(PATHS).map(([name, path]) => [name, issuer + path])) as Endpoints;
}

/**
 * A server known only by its realm base URL (a child process), seen as a TestIdp by the flow and JWT
 * helpers, which need no more than its issuer and endpoints.
 */
export function idpAt(base: string): TestIdp {
  return { issuer: base, endpoints: endpointsOf(base) } as unknown as TestIdp;
}

/** Starts a server (default: the fjord fixtures, 127.0.0.1, port 0). The caller closes it. */
export async function startIdp(options: MockIdpOptions = {}): Promise<TestIdp> {
  const idp = await startMockIdp({ fixtures: FJORD_FIXTURES, host: '127.0.0.1', port: 0, ...options });
  return Object.assign(idp, { endpoints: endpointsOf(idp.issuer) });
}

/** A value, or a function giving it once the beforeAll hooks registered before have run. */
export type Later<T> = T | (() => T);

export const valueNow = <T>(value: Later<T>): T =>
  typeof value === 'function' ? (value as () => T)() : value;

/**
 * Something the tests of the calling file or describe block share: started in beforeAll, stopped in
 * afterAll. The returned object stands for it once it has started.
 */
export function useStarted<T extends object>(
  what: string,
  start: () => Promise<T>,
  stop: (started: T) => Promise<unknown>,
): T {
  let current: T | undefined;
  beforeAll(async () => {
    current = await start();
  });
  afterAll(async () => {
    const started = current;
    current = undefined;
    if (started !== undefined) await stop(started);
  });
  return new Proxy({} as T, {
    get(_target, name) {
      if (current === undefined) throw new Error(`${what}: it starts in beforeAll`);
      const value: unknown = Reflect.get(current, name);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(current) : value;
    },
  });
}

/** A mock-idp server for the tests of the calling file or describe block (options as for startIdp). */
export function useIdp(options: Later<MockIdpOptions> = {}): TestIdp {
  return useStarted(
    'useIdp()',
    () => startIdp(valueNow(options)),
    (idp) => idp.close(),
  );
}

/**
 * `mock-idp serve --host 127.0.0.1 --port 0 ...args` in a child process for the tests of the calling file
 * or describe block; stopped with SIGTERM.
 */
export function useCli(args: Later<string[]>, env: Later<Record<string, string>> = {}): ServeProcess {
  return useStarted(
    'useCli()',
    () => {
      ensureBuilt();
      return spawnServer(valueNow(args), valueNow(env));
    },
    (server) => server.stop(),
  );
}

/**
 * For tests that each start `mock-idp [...defaults, ...args]` in a child process with their own flags: the
 * returned function starts one; every one still running after a test is killed then.
 */
export function useCliPerTest(
  defaults: string[] = [],
): (args: string[], env?: Record<string, string>) => Promise<ServeProcess> {
  const running = new Set<ServeProcess>();
  beforeAll(() => {
    ensureBuilt();
  });
  afterEach(async () => {
    await Promise.all([...running].map((s) => s.stop('SIGKILL')));
    running.clear();
  });
  return async (args, env = {}) => {
    const s = await startServe([...defaults, ...args], env);
    running.add(s);
    return s;
  };
}

/** A port free on 127.0.0.1 a moment ago, for a server that must be told its port. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createNetServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface LocalServer {
  /** http://127.0.0.1:{port} (https with a certificate) */
  url: string;
  /** Method, path and Accept header of every request, in order. */
  hits: { method: string; path: string; accept: string | undefined }[];
  /** Closes the server and every open connection (a handler that never answers included). */
  close(): Promise<void>;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** A certificate and key (PEM) for a local server that serves https. */
export interface LocalTls {
  cert: string;
  key: string;
}

/**
 * Starts a server on 127.0.0.1, port 0; `handler` answers (or, to simulate a hang, never does). With `tls`
 * it serves https.
 */
export async function startLocalServer(handler: Handler, tls?: LocalTls): Promise<LocalServer> {
  const hits: LocalServer['hits'] = [];
  const listener: Handler = (req, res) => {
    hits.push({ method: req.method ?? '', path: req.url ?? '', accept: req.headers.accept });
    handler(req, res);
  };
  const server = tls === undefined ? createServer(listener) : createHttpsServer(tls, listener);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `${tls === undefined ? 'http' : 'https'}://127.0.0.1:${port}`,
    hits,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/** A local server (see startLocalServer) for the tests of the calling file or describe block. */
export function useLocalServer(handler: Handler): LocalServer {
  return useStarted(
    'useLocalServer()',
    () => startLocalServer(handler),
    (server) => server.close(),
  );
}
