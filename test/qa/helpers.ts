// Helpers of the QA API tests: the real CLI in a child process, JSON and form requests, the code flow.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BIN } from '../helpers/cli.js';
import { basic } from '../helpers/http.js';

export { BIN } from '../helpers/cli.js';
export { Y2030 } from '../helpers/server.js';
export { basic };
export const DEFAULT_FIXTURES = fileURLToPath(new URL('../../fixtures/default.yaml', import.meta.url));

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `mock-idp ARGS` to completion. */
export function runCli(args: string[], options: { timeoutMs?: number } = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { timeout: options.timeoutMs ?? 20_000 },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : 1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

export interface ServerProcess {
  /** Realm base URL to reach it (from the ready line). */
  base: string;
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves once `predicate` holds for the output so far. */
  waitFor(
    stream: 'stdout' | 'stderr',
    predicate: (text: string) => boolean,
    timeoutMs?: number,
  ): Promise<void>;
  stop(): Promise<void>;
}

/** Starts `mock-idp serve ARGS` in a child process and waits for its ready line. */
export async function spawnServer(args: string[]): Promise<ServerProcess> {
  const child = spawn(process.execPath, [BIN, 'serve', '--host', '127.0.0.1', '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const listeners = new Set<() => void>();
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    for (const l of listeners) l();
  });
  child.stderr.on('data', (d: Buffer) => {
    err += d.toString();
    for (const l of listeners) l();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const waitFor = (stream: 'stdout' | 'stderr', predicate: (text: string) => boolean, timeoutMs = 10_000) =>
    new Promise<void>((resolve, reject) => {
      const check = (): void => {
        if (predicate(stream === 'stdout' ? out : err)) {
          listeners.delete(check);
          clearTimeout(timer);
          resolve();
        }
      };
      const timer = setTimeout(() => {
        listeners.delete(check);
        reject(new Error(`timed out waiting on ${stream}; stdout:\n${out}\nstderr:\n${err}`));
      }, timeoutMs);
      listeners.add(check);
      check();
    });
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  try {
    await Promise.race([
      waitFor('stdout', (t) => /listening on \S+/.test(t)),
      exited.then(() => Promise.reject(new Error(`server exited: ${err}`))),
    ]);
  } catch (e) {
    await stop();
    throw e;
  }
  const base = /listening on (\S+)/.exec(out)?.[1] ?? '';
  return { base, child, stdout: () => out, stderr: () => err, waitFor, stop };
}

/** A temporary directory, removed by the returned function. */
export function tempDir(): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'mock-idp-qa-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Writes a fresh RSA-2048 private key (PKCS#8 PEM) into `dir` and returns its path. */
export function writeTestKey(dir: string, name = 'key.pem'): string {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const path = join(dir, name);
  writeFileSync(path, privateKey.export({ format: 'pem', type: 'pkcs8' }));
  return path;
}

export interface Answer {
  status: number;
  text: string;
  json: Record<string, unknown>;
  headers: Headers;
}

async function answer(response: Response): Promise<Answer> {
  const text = await response.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // not JSON
  }
  return { status: response.status, text, json, headers: response.headers };
}

/** A JSON request to the QA API (or any URL). */
export async function call(method: string, url: string, body?: unknown): Promise<Answer> {
  return answer(
    await fetch(url, {
      method,
      ...(body !== undefined
        ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }
        : {}),
    }),
  );
}

/** A form POST (token, introspection) with optional Basic client authentication. */
export async function postForm(
  url: string,
  form: Record<string, string>,
  authorization?: string,
): Promise<Answer> {
  return answer(
    await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        ...(authorization !== undefined ? { authorization } : {}),
      },
      body: new URLSearchParams(form),
    }),
  );
}

export const WEB_APP = basic('web-app', 'web-secret');
export const BATCH_JOB = basic('batch-job', 'batch-secret');
export const PAYMENTS_API = basic('payments-api', 'rs-secret');
export const REDIRECT_URI = 'http://localhost:3000/callback';

export const tokenUrl = (base: string): string => `${base}/protocol/openid-connect/token`;
export const introspectUrl = (base: string): string => `${base}/protocol/openid-connect/token/introspect`;
export const certsUrl = (base: string): string => `${base}/protocol/openid-connect/certs`;

/** Authorize as `user` (login_hint) and answer the redirect's Location and its code. */
export async function authorize(
  base: string,
  user: string,
  scope = 'openid profile',
  nonce: string | null = 'n0',
): Promise<{ location: string; code: string }> {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: 'web-app',
    redirect_uri: REDIRECT_URI,
    scope,
    state: 'st',
    ...(nonce !== null ? { nonce } : {}),
    login_hint: user,
  });
  const response = await fetch(`${base}/protocol/openid-connect/auth?${query}`, { redirect: 'manual' });
  const location = response.headers.get('location') ?? '';
  const code = new URL(location).searchParams.get('code') ?? '';
  return { location, code };
}

/** authorization_code exchange for web-app. */
export function exchangeCode(base: string, code: string): Promise<Answer> {
  return postForm(
    tokenUrl(base),
    { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI },
    WEB_APP,
  );
}
