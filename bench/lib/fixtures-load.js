// Fixture loading at scale: how long 50,000 users take to load through each door (`check`, a
// server start, PUT /mock/fixtures), whether that is linear (12,500 users for the ratio, about 4), and
// whether /health keeps answering while the big PUT is parsed. Wall times of real processes (the judged
// figure: what a user waits for) and their CPU time (all threads; Linux), each the best of `runs`: on a
// machine shared with other work the wall time stretches with the machine's load and the CPU time much
// less, and with the fixtures worker and GC threads the CPU time may exceed the wall time. Every text is
// read by the one YAML library, the `yaml` package (src/fixtures/load.ts).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { cpuSeconds, kill } from './children.js';
import { BIN, FIXTURES, ROOT, startMockIdp } from './mock-idp.js';

/** A valid fixtures file with `n` users, each with a few claims and roles (about 130 bytes a user). */
function fixturesWithUsers(n) {
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

/** GNU time: a child's CPU time (user + system, all threads) where this machine has it. */
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;

/**
 * Wall time of `mock-idp check FILE` (includes Node's start and loading the CLI, ~0.25 s of CPU), and its
 * CPU time where /usr/bin/time can tell, each the best of `runs`, as a user's
 * `mock-idp check` runs.
 */
async function timeCheck(file, runs) {
  let best = { wallMs: Infinity, cpuMs: /** @type {number | null} */ (Infinity) };
  for (let i = 0; i < runs; i++) {
    const node = [process.execPath, BIN, 'check', file];
    const [command, ...args] = TIME !== undefined ? [TIME, '-f', 'cpu %U %S', ...node] : node;
    const t0 = performance.now();
    const { code, stderr } = await new Promise((resolve) => {
      const child = spawn(/** @type {string} */ (command), args, {
        cwd: ROOT,
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let err = '';
      child.stderr.on('data', (chunk) => (err += chunk));
      child.on('close', (c) => resolve({ code: c, stderr: err }));
    });
    const wallMs = performance.now() - t0;
    if (code !== 0) throw new Error(`check ${file} exited ${code}: ${stderr.slice(-500)}`);
    const cpu = /cpu ([\d.]+) ([\d.]+)/.exec(stderr);
    const cpuMs = cpu ? (Number(cpu[1]) + Number(cpu[2])) * 1000 : null;
    best = {
      wallMs: Math.min(best.wallMs, wallMs),
      cpuMs: cpuMs === null || best.cpuMs === null ? null : Math.min(best.cpuMs, cpuMs),
    };
  }
  return { wallMs: Math.round(best.wallMs), cpuMs: best.cpuMs === null ? null : Math.round(best.cpuMs) };
}

/**
 * Loading `file` inside a fresh process, as `check` does, without Node's start and the CLI's load: wall
 * time, and CPU time of the process (all its threads, GC included), best of `runs`. CPU time says what a
 * busy shared machine does to the wall time. `nodeFlags`: none by default, as a library user's process
 * (startMockIdp in a test runner) runs.
 */
async function timeLoadInProcess(file, runs, nodeFlags = []) {
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
      const child = spawn(process.execPath, [...nodeFlags, '--input-type=module', '-e', script], {
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
 * PUT /mock/fixtures with `text` while /health is asked every 20 ms: the PUT's time and the server's CPU
 * time over it, and the longest /health answer during it (the time the event loop was blocked, at worst).
 */
async function healthDuringPut(base, text, pid) {
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
  const cpu0 = cpuSeconds(pid);
  const put = await request(`${base}/mock/fixtures`, { method: 'PUT', body: text });
  const cpu1 = cpuSeconds(pid);
  putting = false;
  await poll;
  if (put.status !== 200) throw new Error(`PUT /mock/fixtures answered ${put.status}`);
  const sorted = [...health].sort((a, b) => a - b);
  return {
    putMs: Math.round(put.ms),
    // The server's CPU time over the PUT, all threads (the worker's too), /proc's 10 ms ticks; the /health
    // answers meanwhile cost about a millisecond each.
    putCpuMs: cpu0 !== null && cpu1 !== null ? Math.round((cpu1 - cpu0) * 1000) : null,
    healthAnswers: health.length,
    healthMaxMs: Math.round(sorted.at(-1) ?? 0),
    healthP50Ms: Math.round(sorted[Math.floor(sorted.length / 2)] ?? 0),
  };
}

/**
 * Spawn to `listening on` of `mock-idp serve --fixtures FILE` (includes Node's start, a signing key and
 * the listen): wall time, and the process's CPU time by then (Linux), each the best of `runs`: the server
 * start a user waits for.
 * @param {string} file
 * @param {number} runs
 */
async function timeServeStart(file, runs) {
  let best = { wallMs: Infinity, cpuMs: /** @type {number | null} */ (Infinity) };
  for (let i = 0; i < runs; i++) {
    const { child, t0, tReady } = await startMockIdp({ fixtures: file, timeoutMs: 120_000 });
    const cpu = cpuSeconds(child.pid);
    best = {
      wallMs: Math.min(best.wallMs, tReady - t0),
      cpuMs: cpu === null || best.cpuMs === null ? null : Math.min(best.cpuMs, cpu * 1000),
    };
    await kill(child);
  }
  return { wallMs: Math.round(best.wallMs), cpuMs: best.cpuMs === null ? null : Math.round(best.cpuMs) };
}

/**
 * The first big PUT /mock/fixtures of a server started on a big file, a second after the start: best of
 * `runs` servers, wall and the server's CPU.
 * @param {string} file
 * @param {string} text
 * @param {number} runs
 */
async function firstPutAfterBigStart(file, text, runs) {
  /** @type {Awaited<ReturnType<typeof healthDuringPut>> | undefined} */
  let best;
  for (let i = 0; i < runs; i++) {
    const idp = await startMockIdp({ fixtures: file, timeoutMs: 120_000 });
    try {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const run = await healthDuringPut(idp.base, text, idp.child.pid);
      if (best === undefined || run.putMs < best.putMs) best = run;
    } finally {
      await kill(idp.child);
    }
  }
  return best;
}

/** The PUTs into one server whose slowest is reported as "later" (numbered from its first PUT, 1). */
const LATER_PUTS = { first: 13, last: 16 };

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
  const check12500 = await timeCheck(small, runs);
  const check50000 = await timeCheck(big, runs);
  const loadInProcessSmall = await timeLoadInProcess(small, runs);
  const loadInProcess = await timeLoadInProcess(big, runs);
  const serveStart50000 = await timeServeStart(big, runs);
  const serveStartBundled = await timeServeStart(FIXTURES, runs);
  const putAfterBigStart = await firstPutAfterBigStart(big, bigText, runs);
  // The first PUT into a server started on the bundled fixtures: best of `runs` servers (as every figure
  // here), the first of which then takes the later PUTs (each big PUT is read on a worker of its own).
  const idp = await startMockIdp();
  try {
    let first = await healthDuringPut(idp.base, bigText, idp.child.pid);
    for (let i = 1; i < runs; i++) {
      const other = await startMockIdp();
      try {
        const run = await healthDuringPut(other.base, bigText, other.child.pid);
        if (run.putMs < first.putMs) first = run;
      } finally {
        await kill(other.child);
      }
    }
    /** @type {typeof first | undefined} */
    let during;
    let bestCpuMs = /** @type {number | null} */ (Infinity);
    for (let i = 0; i < runs; i++) {
      const run = await healthDuringPut(idp.base, bigText, idp.child.pid);
      if (during === undefined || run.putMs < during.putMs) during = run;
      bestCpuMs = run.putCpuMs === null || bestCpuMs === null ? null : Math.min(bestCpuMs, run.putCpuMs);
    }
    // A server that keeps taking PUTs (or --watch reloads) must not slow down: the 13th to 16th PUT into
    // this server, the slowest of the four.
    let laterSlowest = /** @type {typeof first | undefined} */ (undefined);
    // This server has taken its first PUT and `runs` more: the next is number runs + 2.
    for (let n = runs + 2; n <= LATER_PUTS.last; n++) {
      const run = await healthDuringPut(idp.base, bigText, idp.child.pid);
      if (n >= LATER_PUTS.first && (laterSlowest === undefined || run.putMs > laterSlowest.putMs))
        laterSlowest = run;
    }
    return {
      users: 50_000,
      fileMB: Math.round((Buffer.byteLength(bigText) / 2 ** 20) * 10) / 10,
      check12500,
      check50000,
      // From the CPU time of the load alone: Node's start and a busy machine's waits are no part of it.
      linearity: Math.round((loadInProcess.cpuMs / loadInProcessSmall.cpuMs) * 100) / 100,
      loadInProcess12500: loadInProcessSmall,
      loadInProcess50000: loadInProcess,
      serveStart50000,
      serveStartBundled,
      putFixturesFirst: first,
      putAfterBigStart,
      putFixtures: during === undefined ? undefined : { ...during, bestCpuMs },
      putLater: laterSlowest === undefined ? undefined : { ...laterSlowest, ...LATER_PUTS },
    };
  } finally {
    await kill(idp.child);
  }
}
