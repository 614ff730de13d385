// Runs the real `mock-idp` binary (bin/mock-idp.js → dist/) in a child process: one-shot commands and `serve`.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BIN = join(ROOT, 'bin', 'mock-idp.js');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

const BUILT = join(ROOT, 'dist', 'cli.js');
const LOCK = join(
  tmpdir(),
  `mock-idp-test-build-${createHash('sha256').update(ROOT).digest('hex').slice(0, 12)}`,
);

function isFresh(): boolean {
  return existsSync(BUILT) && newestMtime(join(ROOT, 'src')) <= statSync(BUILT).mtimeMs;
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * The binary runs dist/. `npm test` builds first; a direct `vitest run` after editing src/ builds here,
 * once, under a lock shared by the test files running in parallel. A failing build fails the test.
 */
export function ensureBuilt(): void {
  const deadline = Date.now() + 110_000;
  while (!isFresh()) {
    try {
      mkdirSync(LOCK);
    } catch {
      const lockedAt = statSync(LOCK, { throwIfNoEntry: false })?.mtimeMs ?? Date.now();
      if (Date.now() - lockedAt > 120_000) rmSync(LOCK, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error('timed out waiting for another test file to build dist/');
      sleep(200);
      continue;
    }
    try {
      if (isFresh()) return;
      const run = (args: string[]): void => {
        execFileSync(process.execPath, args, { cwd: ROOT, stdio: 'pipe' });
      };
      try {
        run([join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json']);
        run([join(ROOT, 'scripts', 'write-json-schema.js')]);
        run([join(ROOT, 'scripts', 'bundle-cjs.js')]);
        run([join(ROOT, 'scripts', 'bundle-cli.js')]);
      } catch (err) {
        const out = (err as { stdout?: Buffer }).stdout?.toString() ?? '';
        throw new Error(`dist/ is older than src/ and \`npm run build\` failed:\n${out}`);
      }
      return;
    } finally {
      rmSync(LOCK, { recursive: true, force: true });
    }
  }
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Environment for children: no inherited PORT/HOST/LOG_LEVEL unless a test sets them. */
function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base = { ...process.env };
  for (const key of ['PORT', 'HOST', 'LOG_LEVEL']) delete base[key];
  return { ...base, ...env };
}

/** Runs a one-shot command to its end (killed after `timeoutMs`). */
export function runBin(
  args: string[],
  env: Record<string, string> = {},
  timeoutMs = 15_000,
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: childEnv(env) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

export interface ServeProcess {
  child: ChildProcess;
  /** The ready line. */
  ready: string;
  /** The realm base URL from the ready line. */
  base: string;
  /** Everything printed so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves once `predicate` holds for what `stream` printed so far; rejects after `timeoutMs`. */
  waitFor(
    stream: 'stdout' | 'stderr',
    predicate: (text: string) => boolean,
    timeoutMs?: number,
  ): Promise<void>;
  /** Sends a signal and resolves with how the process ended. */
  stop(signal?: NodeJS.Signals): Promise<CliResult>;
}

/**
 * Starts `node [nodeFlags] bin [serve] ...args` and resolves once it prints its ready line; rejects with
 * the output when it exits first or is not ready within `timeoutMs`.
 */
export function startServe(
  args: string[],
  env: Record<string, string> = {},
  timeoutMs = 15_000,
  nodeFlags: readonly string[] = [],
): Promise<ServeProcess> {
  // The default port (8080) is shared by every test file running at once: a server a test starts takes a
  // free one (`--port 0`, or a port picked free and passed on).
  if (!args.some((a) => a === '--port' || a === '-p' || a.startsWith('--port=')) && env['PORT'] === undefined)
    return Promise.reject(
      new Error(`startServe(${JSON.stringify(args)}): pass --port (0 for any free port)`),
    );
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeFlags, BIN, ...args], { cwd: ROOT, env: childEnv(env) });
    let out = '';
    let err = '';
    let ready = false;
    const listeners = new Set<() => void>();
    const waitFor = (
      stream: 'stdout' | 'stderr',
      predicate: (text: string) => boolean,
      waitMs = 10_000,
    ): Promise<void> =>
      new Promise<void>((done, fail) => {
        const check = (): void => {
          if (!predicate(stream === 'stdout' ? out : err)) return;
          listeners.delete(check);
          clearTimeout(timer);
          done();
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          fail(new Error(`timed out waiting on ${stream}; stdout:\n${out}\nstderr:\n${err}`));
        }, waitMs);
        listeners.add(check);
        check();
      });
    const ended = new Promise<CliResult>((done) =>
      child.on('close', (code, signal) => done({ code, signal, stdout: out, stderr: err })),
    );
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`not ready within ${timeoutMs} ms\nstdout: ${out}\nstderr: ${err}`));
    }, timeoutMs);
    child.stderr.on('data', (c: Buffer) => {
      err += c.toString();
      for (const l of listeners) l();
    });
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      for (const l of listeners) l();
      const line = out.split('\n').find((l) => l.includes('listening on'));
      if (ready || line === undefined) return;
      ready = true;
      clearTimeout(timer);
      const base = /listening on (\S+)/.exec(line)?.[1] ?? '';
      resolve({
        child,
        ready: line,
        base,
        stdout: () => out,
        stderr: () => err,
        waitFor,
        stop: (signal = 'SIGTERM') => {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal);
          return ended;
        },
      });
    });
    void ended.then((result) => {
      if (ready) return;
      clearTimeout(timer);
      reject(
        Object.assign(new Error(`exited before ready (code ${result.code})\n${result.stderr}`), { result }),
      );
    });
  });
}

/** `mock-idp serve` on 127.0.0.1 and a free port, with `args`; resolves at its ready line. */
export function spawnServer(args: string[], env: Record<string, string> = {}): Promise<ServeProcess> {
  return startServe(['serve', '--host', '127.0.0.1', '--port', '0', ...args], env);
}
