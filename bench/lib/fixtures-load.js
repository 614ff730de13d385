// Fixture loading at scale (issue 10): how long 50,000 users take to load through each door (`check`, a
// server start, PUT /mock/fixtures), whether that is linear (12,500 users for the ratio, about 4), and
// whether /health keeps answering while the big PUT is parsed. Wall times of real processes, best of `runs`.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { kill } from './children.js';
import { BIN, FIXTURES, ROOT, shebangFlags, startMockIdp } from './mock-idp.js';

/** A valid fixtures file with `n` users, each with a few claims and roles (about 130 bytes a user). */
export function fixturesWithUsers(n) {
  const lines = [
    'realm: mock',
    'clients:',
    '  bench-machine:',
    '    secret: bench-machine-secret',
    '    grants: [client_credentials]',
    '  bench-web:',
    '    secret: bench-web-secret',
    '    redirectUris: [http://127.0.0.1/cb]',
    'users:',
  ];
  for (let i = 0; i < n; i++) {
    lines.push(
      `  user${i}:`,
      `    claims: { name: User ${i}, idp_altsub: 9578-6000-4-${String(i).padStart(6, '0')} }`,
      '    realmRoles: [user]',
    );
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Wall time of `mock-idp check FILE` (includes Node's start and loading the CLI, ~0.2 s), best of `runs`,
 * with the heap flags of the binary's first line, as a user's `mock-idp check` runs.
 */
async function timeCheck(file, runs) {
  let best = Infinity;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const code = await new Promise((resolve) => {
      const child = spawn(process.execPath, [...shebangFlags(BIN), BIN, 'check', file], {
        cwd: ROOT,
        stdio: 'ignore',
      });
      child.on('close', resolve);
    });
    if (code !== 0) throw new Error(`check ${file} exited ${code}`);
    best = Math.min(best, performance.now() - t0);
  }
  return Math.round(best);
}

/**
 * Loading `file` inside a fresh process, as `check` does, without Node's start and the CLI's load: wall
 * time, and CPU time of the process (all its threads, GC included), best of `runs`. CPU time says what a
 * busy shared machine does to the wall time.
 */
async function timeLoadInProcess(file, runs) {
  const script = `
    const { loadFixturesFile } = await import(${JSON.stringify(`${ROOT}dist/fixtures/load.js`)});
    const { buildRealm } = await import(${JSON.stringify(`${ROOT}dist/fixtures/realm.js`)});
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const realm = await buildRealm(await loadFixturesFile(${JSON.stringify(file)}));
    const cpu = process.cpuUsage(c0);
    console.log(JSON.stringify({ wallMs: performance.now() - t0, cpuMs: (cpu.user + cpu.system) / 1000, users: realm.users.size }));`;
  let best = { wallMs: Infinity, cpuMs: Infinity };
  for (let i = 0; i < runs; i++) {
    const out = await new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [...shebangFlags(BIN), '--input-type=module', '-e', script], {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let text = '';
      child.stdout.on('data', (chunk) => (text += chunk));
      child.on('close', (code) =>
        code === 0 ? resolve(text) : reject(new Error(`in-process load exited ${code}`)),
      );
    });
    const run = JSON.parse(/** @type {string} */ (out));
    // Each the best of the runs: another process's burst stretches one run's wall time, not its CPU time.
    best = { wallMs: Math.min(best.wallMs, run.wallMs), cpuMs: Math.min(best.cpuMs, run.cpuMs) };
  }
  return { wallMs: Math.round(best.wallMs), cpuMs: Math.round(best.cpuMs) };
}

/** One request's status and time. */
function request(url, { method = 'GET', body } = {}) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = http.request(url, { method, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode, ms: performance.now() - t0 }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * PUT /mock/fixtures with `text` while /health is asked every 20 ms: the PUT's time, and the longest
 * /health answer during it (the time the event loop was blocked, at worst).
 */
async function healthDuringPut(base, text) {
  const origin = new URL(base).origin;
  const health = [];
  let putting = true;
  const poll = (async () => {
    while (putting) {
      const t = performance.now();
      const r = await request(`${origin}/health`);
      health.push(r.ms);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, 20 - (performance.now() - t))));
    }
  })();
  const put = await request(`${base}/mock/fixtures`, { method: 'PUT', body: text });
  putting = false;
  await poll;
  if (put.status !== 200) throw new Error(`PUT /mock/fixtures answered ${put.status}`);
  const sorted = [...health].sort((a, b) => a - b);
  return {
    putMs: Math.round(put.ms),
    healthAnswers: health.length,
    healthMaxMs: Math.round(sorted.at(-1) ?? 0),
    healthP50Ms: Math.round(sorted[Math.floor(sorted.length / 2)] ?? 0),
  };
}

/**
 * Spawn to `listening on` of `mock-idp serve --fixtures FILE` (includes Node's start, a signing key and
 * the listen), best of `runs`: the server start a user waits for.
 * @param {string} file
 * @param {number} runs
 */
async function timeServeStart(file, runs) {
  let best = Infinity;
  for (let i = 0; i < runs; i++) {
    const { child, t0, tReady } = await startMockIdp({ fixtures: file, timeoutMs: 120_000 });
    best = Math.min(best, tReady - t0);
    await kill(child);
  }
  return Math.round(best);
}

/**
 * @param {{ runs?: number, dir: string }} opts
 */
export async function measureFixturesLoad({ runs = 3, dir }) {
  mkdirSync(dir, { recursive: true });
  const small = `${dir}fixtures-12500-users.yaml`;
  const big = `${dir}fixtures-50000-users.yaml`;
  const bigText = fixturesWithUsers(50_000);
  writeFileSync(small, fixturesWithUsers(12_500));
  writeFileSync(big, bigText);
  const checkSmallMs = await timeCheck(small, runs);
  const checkBigMs = await timeCheck(big, runs);
  const loadInProcessSmall = await timeLoadInProcess(small, runs);
  const loadInProcess = await timeLoadInProcess(big, runs);
  const serveStartMs = await timeServeStart(big, runs);
  const serveStartBundledMs = await timeServeStart(FIXTURES, runs);
  const idp = await startMockIdp();
  try {
    /** @type {{ putMs: number, healthAnswers: number, healthMaxMs: number, healthP50Ms: number } | undefined} */
    let during;
    for (let i = 0; i < runs; i++) {
      const run = await healthDuringPut(idp.base, bigText);
      if (during === undefined || run.putMs < during.putMs) during = run;
    }
    return {
      users: 50_000,
      fileMB: Math.round((Buffer.byteLength(bigText) / 2 ** 20) * 10) / 10,
      check12500Ms: checkSmallMs,
      check50000Ms: checkBigMs,
      // From the CPU time of the load alone: Node's start and a busy machine's waits are no part of it.
      linearity: Math.round((loadInProcess.cpuMs / loadInProcessSmall.cpuMs) * 100) / 100,
      loadInProcess12500: loadInProcessSmall,
      loadInProcess50000: loadInProcess,
      serveStart50000Ms: serveStartMs,
      serveStartBundledMs,
      putFixtures: during,
    };
  } finally {
    await kill(idp.child);
  }
}
