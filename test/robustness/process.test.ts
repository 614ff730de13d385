// Issue 10's defect table, rows only the real binary shows: signals, --watch right after start, and
// `check` and `serve` agreeing on a file.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { endpointsOf } from '../helpers/server.js';
import { ensureBuilt, runBin, startServe, type ServeProcess } from '../helpers/cli.js';
import { DEFAULT_FIXTURES } from '../helpers/bundled.js';

let dir: string;
const running = new Set<ServeProcess>();
beforeAll(async () => {
  ensureBuilt();
  dir = await mkdtemp(join(tmpdir(), 'mock-idp-robust-'));
});
afterEach(async () => {
  await Promise.all([...running].map((s) => s.stop('SIGKILL')));
  running.clear();
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function serve(args: string[]): Promise<ServeProcess> {
  const s = await startServe(['--port', '0', '--quiet', ...args]);
  running.add(s);
  return s;
}

const LAUGHS = `clients:
  x: { secret: s }
a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]
a1: &a1 [*a0, *a0, *a0, *a0, *a0, *a0, *a0, *a0, *a0]
a2: &a2 [*a1, *a1, *a1, *a1, *a1, *a1, *a1, *a1, *a1]
a3: &a3 [*a2, *a2, *a2, *a2, *a2, *a2, *a2, *a2, *a2]
a4: &a4 [*a3, *a3, *a3, *a3, *a3, *a3, *a3, *a3, *a3]
a5: &a5 [*a4, *a4, *a4, *a4, *a4, *a4, *a4, *a4, *a4]
`;

describe('3, 5, 11: check and serve refuse the same files with the same FILE:LINE:COL, never a stack', () => {
  it.each([
    ['an alias bomb', LAUGHS, /:4:\d+ too many alias expansions/],
    [
      'clock.start "not a date"',
      'clock: { start: "not a date" }\nclients:\n  x: { secret: s }\n',
      /:1:17 .*clock\.start/,
    ],
    ['clock.start 1e300', 'clock: { start: 1e300 }\nclients:\n  x: { secret: s }\n', /:1:17 .*out of range/],
    [
      'a public client with client_credentials',
      'clients:\n  pub:\n    authMethods: [none]\n    grants: [client_credentials]\n',
      /:4:13 client "pub" allows client_credentials/,
    ],
    [
      'a __proto__ client id',
      'clients:\n  __proto__: { secret: s }\n  ok: { secret: s }\n',
      /:2:3 .*__proto__/,
    ],
  ])('%s', async (name, text, message) => {
    const file = join(dir, `${name.replace(/\W+/g, '-')}.yaml`);
    await writeFile(file, text);
    const checked = await runBin(['check', file]);
    const served = await runBin(['serve', '--port', '0', '--fixtures', file]);
    for (const result of [checked, served]) {
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(file);
      expect(result.stderr).toMatch(message);
      expect(result.stderr).not.toMatch(/unexpected error|\n\s+at /);
      expect(result.stdout).not.toContain('listening on');
    }
  });
});

describe('6: SIGTERM/SIGINT let requests in flight finish, then exit 0', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    '%s 300 ms into slow requests: every one answers',
    async (signal) => {
      const s = await serve([]);
      const fault = await fetch(`${s.base}/mock/faults`, {
        method: 'POST',
        body: JSON.stringify({ endpoint: 'discovery', delayMs: 1500, count: 8 }),
      });
      expect(fault.status).toBe(201);
      const slow = Array.from({ length: 8 }, () =>
        fetch(`${endpointsOf(s.base).discovery}`).then(
          (r) => r.status,
          (err: Error) => err.message,
        ),
      );
      await new Promise((r) => setTimeout(r, 300));
      const ended = s.stop(signal);
      expect(await Promise.all(slow)).toEqual(Array.from({ length: 8 }, () => 200));
      const result = await ended;
      expect(result.code).toBe(0);
      expect(result.signal).toBeNull();
      expect(result.stderr).toContain(`${signal}, closing`);
      await expect(fetch(`${endpointsOf(s.base).discovery}`)).rejects.toThrow();
    },
  );
});

describe('13: signal handlers are in place before the ready line', () => {
  it('SIGTERM the moment "listening on" is read: a clean exit 0, every time', async () => {
    const results = await Promise.all(
      Array.from({ length: 4 }, async () => {
        const s = await serve([]);
        return s.stop('SIGTERM');
      }),
    );
    for (const result of results) {
      expect(result.signal).toBeNull();
      expect(result.code).toBe(0);
      expect(result.stderr).toContain('SIGTERM, closing');
    }
  });
});

describe('12: --watch loads an edit made right after the ready line', () => {
  it('the edit written as soon as "listening on" is read is served, every time', async () => {
    const original = await readFile(DEFAULT_FIXTURES, 'utf8');
    await Promise.all(
      Array.from({ length: 4 }, async (_, i) => {
        const file = join(dir, `watch-${i}.yaml`);
        await writeFile(file, original);
        const s = await serve(['--fixtures', file, '--watch']);
        await writeFile(file, `${original}\n  zed${i}:\n    claims: { name: Zed }\n`);
        const deadline = Date.now() + 5_000;
        let status = 0;
        while (Date.now() < deadline) {
          const minted = await fetch(`${s.base}/mock/tokens`, {
            method: 'POST',
            body: JSON.stringify({ type: 'access', client: 'web-app', user: `zed${i}` }),
          });
          status = minted.status;
          if (status === 200) break;
          await new Promise((r) => setTimeout(r, 50));
        }
        expect(status).toBe(200);
      }),
    );
  });
});
