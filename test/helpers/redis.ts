// A real redis-server (Debian's package) for the Redis store tests: a free port, its own empty data
// directory, no persistence, stopped by its pid. Missing, it skips those tests (see real-parts.ts).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { tempDir } from './files.js';
import { makeCertificates } from './openssl.js';
import { skipWithout } from './real-parts.js';
import { freePort, useStarted, valueNow, type Later } from './server.js';

const BINARY = 'redis-server';

/** Whether redis-server can run here. */
const HAVE_REDIS = spawnSync(BINARY, ['--version'], { stdio: 'ignore' }).status === 0;

/** Locally the Redis tests skip without redis-server; in CI its absence is a failure. */
export const SKIP_REDIS = skipWithout(
  'redis-server',
  HAVE_REDIS ? undefined : 'redis-server is not installed',
  'apt-get install -y redis-server (.ci/run installs it)',
);

export interface RedisServer {
  port: number;
  /** redis://127.0.0.1:PORT */
  url: string;
  /** With `tls`: rediss://localhost:TLSPORT (the certificate names localhost and 127.0.0.1). */
  tlsUrl?: string;
  /** With `tls`: the PEM file of the throwaway CA that signed the server's certificate. */
  caFile?: string;
  /** Stops the server (SIGTERM by pid, SIGKILL after 5 s). */
  stop(): Promise<void>;
  /** Starts it again on the same port (after stop), empty unless it was only stopped. */
  start(): Promise<void>;
  /** Empties every database (FLUSHALL), so one test's state does not reach the next. */
  flush(): Promise<void>;
}

/** Sends one inline command and resolves with the first reply. */
function command(port: number, line: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => socket.write(`${line}\r\n`));
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString());
    });
    socket.once('error', reject);
  });
}

/** Resolves once the port answers a RESP PING with +PONG. */
async function answers(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.setTimeout(500);
      socket.once('connect', () => socket.write('PING\r\n'));
      socket.once('data', (data) => {
        socket.destroy();
        // NOAUTH: up, with a password (--requirepass).
        resolve(/^(\+PONG|-NOAUTH)/.test(data.toString()));
      });
      socket.once('error', () => resolve(false));
      socket.once('timeout', () => {
        socket.destroy();
        resolve(false);
      });
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not answer`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

interface RedisOptions {
  /** Also listen with TLS on another free port (rediss://), with a certificate from a throwaway CA. */
  tls?: boolean;
}

/** Starts redis-server on a free port; `args` are extra options (e.g. ['--requirepass', 'secret']). */
export async function startRedis(args: string[] = [], options: RedisOptions = {}): Promise<RedisServer> {
  const port = await freePort();
  const data = tempDir();
  const tlsPort = options.tls ? await freePort() : undefined;
  const certificates = options.tls ? makeCertificates(data.dir) : undefined;
  const tlsArgs =
    tlsPort !== undefined && certificates !== undefined
      ? [
          '--tls-port',
          String(tlsPort),
          '--tls-cert-file',
          certificates.cert,
          '--tls-key-file',
          certificates.key,
          '--tls-ca-cert-file',
          certificates.ca,
          '--tls-auth-clients',
          'no',
        ]
      : [];
  let child: ChildProcess | undefined;
  const start = async (): Promise<void> => {
    child = spawn(
      BINARY,
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        data.dir,
        ...tlsArgs,
        ...args,
      ],
      { stdio: 'ignore' },
    );
    try {
      await answers(port, 10_000);
    } catch (err) {
      if (child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
      throw err;
    }
  };
  const stop = async (): Promise<void> => {
    const running = child;
    if (running?.pid === undefined || running.exitCode !== null || running.signalCode !== null) return;
    const ended = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    process.kill(running.pid, 'SIGTERM');
    const force = setTimeout(() => running.pid !== undefined && process.kill(running.pid, 'SIGKILL'), 5000);
    await ended;
    clearTimeout(force);
  };
  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    ...(tlsPort !== undefined ? { tlsUrl: `rediss://localhost:${tlsPort}` } : {}),
    ...(certificates !== undefined ? { caFile: certificates.ca } : {}),
    start,
    flush: async () => {
      const reply = await command(port, 'FLUSHALL');
      if (!reply.startsWith('+OK')) throw new Error(`FLUSHALL: ${reply}`);
    },
    stop: async () => {
      await stop();
    },
  };
}

/** A redis-server (see startRedis) for the tests of the calling file or describe block. */
export function useRedis(args: Later<string[]> = [], options: RedisOptions = {}): RedisServer {
  return useStarted(
    'useRedis()',
    () => startRedis(valueNow(args), options),
    (server) => server.stop(),
  );
}

interface HeldLine {
  /** redis://127.0.0.1:PORT of the line (a replica started with it reaches Redis through it). */
  url: string;
  /** Holds what goes both ways (queued, not lost) until release: the replica cannot see Redis meanwhile. */
  hold(): void;
  release(): void;
  close(): Promise<void>;
}

/**
 * A TCP line to a redis-server that the test can hold: one replica is kept from seeing what happens in Redis
 * (emptied, re-seeded by another) until released, as a replica busy or slow to look would be.
 */
export async function heldLine(redis: RedisServer): Promise<HeldLine> {
  const sockets = new Set<Socket>();
  let held = false;
  const server = createServer((inbound) => {
    const outbound = connect(redis.port, '127.0.0.1');
    for (const socket of [inbound, outbound]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => sockets.delete(socket));
      if (held) socket.pause();
    }
    inbound.pipe(outbound);
    outbound.pipe(inbound);
    inbound.on('close', () => outbound.destroy());
    outbound.on('close', () => inbound.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `redis://127.0.0.1:${port}`,
    hold: () => {
      held = true;
      for (const socket of sockets) socket.pause();
    },
    release: () => {
      held = false;
      for (const socket of sockets) socket.resume();
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
