// Issue 10's defect table, rows only the real binary shows: signals, --watch right after start, and
// `check` and `serve` agreeing on a file.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { endpointsOf, useCliPerTest } from '../helpers/server.js';
import { runBin } from '../helpers/cli.js';
import { DEFAULT_FIXTURES } from '../helpers/bundled.js';
import { bigFixtures, tempDir } from '../helpers/files.js';

const tmp = tempDir();
const dir = tmp.dir;
afterAll(() => tmp.remove());

const serve = useCliPerTest(['--port', '0', '--quiet']);

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

describe('7: a big PUT /mock/fixtures, parsed on a worker thread, serves what loading it at start serves', () => {
  const mintedClaims = async (base: string, type: string, user: string): Promise<Record<string, unknown>> => {
    const minted = await fetch(`${base}/mock/tokens`, {
      method: 'POST',
      body: JSON.stringify({ type, client: 'web-app', user }),
    });
    expect(minted.status).toBe(200);
    const { claims } = (await minted.json()) as { claims: Record<string, unknown> };
    // What differs between two servers and two sessions anyway.
    for (const varying of ['iat', 'exp', 'auth_time', 'jti', 'iss', 'sid', 'session_state'])
      delete claims[varying];
    return claims;
  };

  // The worker sends users JSON keeps exactly as JSON texts, and any others as they are (a structured clone).
  it.each([
    ['users JSON keeps exactly', '{ name: Fixed }'],
    ['a claim JSON cannot keep (-0)', '{ name: Fixed, zero: -0, n: [-0] }'],
  ])(
    '%s: the same users, subs, claims and roles; a changed realm name is refused at its line',
    async (_, lastClaims) => {
      const text = bigFixtures('mock', lastClaims);
      expect(Buffer.byteLength(text)).toBeGreaterThan(256 * 1024);
      const file = join(dir, 'big.yaml');
      await writeFile(file, text);
      const [atStart, replaced] = await Promise.all([serve(['--fixtures', file]), serve([])]);
      const put = await fetch(`${replaced.base}/mock/fixtures`, { method: 'PUT', body: text });
      expect(put.status).toBe(200);
      expect(((await put.json()) as { users: string[] }).users).toHaveLength(3_001);
      for (const user of ['user0', 'user1500', 'user2999', 'fixed']) {
        for (const type of ['id', 'access']) {
          const expected = await mintedClaims(atStart.base, type, user);
          expect(expected['sub']).toEqual(expect.any(String));
          expect(await mintedClaims(replaced.base, type, user)).toEqual(expected);
        }
      }

      const renamed = await fetch(`${replaced.base}/mock/fixtures`, {
        method: 'PUT',
        body: bigFixtures('other'),
      });
      expect(renamed.status).toBe(400);
      expect(((await renamed.json()) as { problems: string[] }).problems).toEqual([
        'body:1:8 the realm name cannot change while running (serving "mock", got "other"): restart instead',
      ]);
    },
  );

  // Read on the server's thread, a big text would hold up every request for most of the PUT's time; read on
  // the worker, /health (asked every 50 ms meanwhile) keeps answering. Relative times: the machine may be busy.
  it('the binary answers /health while it reads a big PUT (on its fixtures worker)', async () => {
    const s = await serve([]);
    const more = Array.from({ length: 20_000 }, (_, i) => `  more${i}: { claims: { name: More ${i} } }\n`);
    const t0 = performance.now();
    let putMs: number | undefined;
    const put = fetch(`${s.base}/mock/fixtures`, {
      method: 'PUT',
      body: bigFixtures('mock') + more.join(''),
    });
    void put.finally(() => (putMs = performance.now() - t0));
    const healthMs: number[] = [];
    while (putMs === undefined) {
      const t = performance.now();
      expect((await fetch(new URL('/health', s.base))).status).toBe(200);
      healthMs.push(performance.now() - t);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect((await put).status).toBe(200);
    expect(Math.max(...healthMs)).toBeLessThan(putMs / 2);
  });
});
