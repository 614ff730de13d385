// The processes of the chaos and soak runs: redis-server and mock-idp (the built CLI) on 127.0.0.1, every
// one killed by its pid when the run ends, however it ends (an error, Ctrl-C, a stopped Redis included).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'mock-idp.js');
const READY = /listening on (http:\/\/127\.0\.0\.1:(\d+)\/realms\/[\w.-]+)/;

const live = new Set<ChildProcess>();
const dirs = new Set<string>();

/** Kills every process this run started and removes its temporary directories (synchronous: works at exit). */
export function stopAll(): void {
  for (const child of live) child.kill('SIGKILL');
  live.clear();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs.clear();
}
process.once('exit', stopAll);
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    stopAll();
    process.exit(130);
  });

function track(child: ChildProcess): ChildProcess {
  live.add(child);
  child.once('exit', () => live.delete(child));
  return child;
}

const gone = (child: ChildProcess): boolean => child.exitCode !== null || child.signalCode !== null;

/** Resolves once `child` has exited (at once if it has). */
export function exited(child: ChildProcess): Promise<void> {
  return gone(child) ? Promise.resolve() : new Promise((resolve) => child.once('exit', () => resolve()));
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.add(dir);
  return dir;
}

export interface Server {
  child: ChildProcess;
  /** The realm base URL of the ready line. */
  base: string;
  port: number;
}

/** Starts `node bin/mock-idp.js --port PORT --quiet ...args` and resolves at its ready line. */
export function startServer(port: number, args: string[], timeoutMs = 60_000): Promise<Server> {
  const child = track(
    spawn(process.execPath, [BIN, '--port', String(port), '--quiet', ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  let out = '';
  let err = '';
  child.stderr?.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
  return new Promise((resolve, reject) => {
    const fail = (why: string): void => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`mock-idp ${args.join(' ')}: ${why}\nstdout: ${out}\nstderr: ${err}`));
    };
    const timer = setTimeout(() => fail(`no ready line within ${timeoutMs} ms`), timeoutMs);
    child.once('exit', (code, signal) => fail(`exited (code ${code}, signal ${signal})`));
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = READY.exec(out);
      if (m === null) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      child.once('exit', () => live.delete(child));
      child.stdout?.removeAllListeners('data');
      child.stdout?.resume();
      resolve({ child, base: m[1] ?? '', port: Number(m[2]) });
    });
  });
}

/** Sends PING; true on +PONG within 500 ms. */
function pong(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.setTimeout(500);
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString().startsWith('+PONG'));
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

/**
 * A redis-server with append-only persistence (fsync on every write), in its own temporary directory:
 * stopped and started again it has every write it acknowledged; emptied, it starts with nothing.
 */
export class RedisProcess {
  readonly dir = tempDir('mock-idp-chaos-redis-');
  #child: ChildProcess | undefined;
  constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.#child = track(
      spawn(
        'redis-server',
        [
          '--port',
          String(this.port),
          '--bind',
          '127.0.0.1',
          '--save',
          '',
          '--appendonly',
          'yes',
          '--appendfsync',
          'always',
          '--dir',
          this.dir,
        ],
        { stdio: 'ignore' },
      ),
    );
    const deadline = performance.now() + 20_000;
    while (!(await pong(this.port))) {
      if (gone(this.#child)) throw new Error(`redis-server on port ${this.port} exited at start`);
      if (performance.now() > deadline) throw new Error(`redis-server on port ${this.port} did not answer`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** SIGTERM: Redis finishes its append-only file and exits. */
  async stop(): Promise<void> {
    const child = this.#child;
    if (child === undefined || gone(child)) return;
    child.kill('SIGCONT');
    child.kill('SIGTERM');
    await exited(child);
  }

  /** Removes what Redis persisted (only while stopped). */
  empty(): void {
    for (const name of readdirSync(this.dir)) rmSync(join(this.dir, name), { recursive: true, force: true });
  }

  signal(signal: 'SIGSTOP' | 'SIGCONT'): void {
    this.#child?.kill(signal);
  }
}
