// The Redis store under load: one process on memory, one on Redis, two replicas on one
// Redis (auth-code round trips authorize at one and exchange at the other), and what one session costs
// in Redis memory (INFO memory before and after N sessions). Needs Debian's redis-server and redis-cli.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kill } from './children.js';
import { basicAuth, CC_BODY, clientCredentials, endpoints, FORM, MACHINE } from './http.js';
import { authCodeLoad, cannon } from './load.js';
import { startMockIdp } from './mock-idp.js';
import { round } from './stats.js';

const ccHeaders = { 'content-type': FORM, authorization: basicAuth(MACHINE) };

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** @param {number} port @param {string[]} args */
const cli = (port, ...args) =>
  execFileSync('redis-cli', ['-p', String(port), ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  }).trim();

/** @param {number} port */
const usedMemory = (port) => Number(/used_memory:(\d+)/.exec(cli(port, 'info', 'memory'))?.[1]);

/**
 * client_credentials on one or more servers at once (connections split between them), then auth-code round
 * trips (lanes split; with two servers a lane authorizes at one and exchanges the code at the other).
 * @param {{ base: string, child: import('node:child_process').ChildProcess }[]} servers
 * @param {{ loadS: number, warmupS: number, connections: number }} cfg
 */
async function measure(servers, cfg) {
  const per = Math.max(1, Math.floor(cfg.connections / servers.length));
  const cannons = servers.map((s) =>
    cannon({
      url: endpoints(s.base).token,
      headers: ccHeaders,
      body: CC_BODY,
      connections: per,
      pid: s.child.pid,
    }),
  );
  await Promise.all(cannons.map((c) => c.warmup(cfg.warmupS)));
  await Promise.all(cannons.map((c) => c.slice(cfg.loadS)));
  const cc = cannons.map((c) => c.result());
  const lanes = servers.map((s, i) => {
    const other = servers[(i + 1) % servers.length] ?? s;
    return { auth: endpoints(s.base).auth, token: endpoints(other.base).token };
  });
  const ac = await Promise.all(
    lanes.map((ep, i) =>
      authCodeLoad(ep, {
        concurrency: per,
        durationS: cfg.loadS,
        warmupS: cfg.warmupS,
        pid: servers[i]?.child.pid,
      }),
    ),
  );
  return {
    processes: servers.length,
    clientCredentials: {
      reqPerS: round(cc.reduce((a, r) => a + r.reqPerS, 0)),
      p99Ms: Math.max(...cc.map((r) => r.latencyMs.p99)),
      non2xx: cc.reduce((a, r) => a + r.non2xx + r.errors, 0),
    },
    authCode: {
      roundTripsPerS: round(ac.reduce((a, r) => a + r.roundTripsPerS, 0)),
      p99Ms: Math.max(...ac.map((r) => r.latencyMs.p99)),
      errors: ac.reduce((a, r) => a + r.errors, 0),
      firstError: ac.find((r) => r.firstError)?.firstError,
    },
    otherProcessesCpuCores: Math.max(...cc.map((r) => r.otherProcessesCpuCores ?? 0)),
  };
}

/** @param {{ loadS: number, warmupS: number, connections: number, sessions?: number }} cfg */
export async function measureRedis(cfg) {
  if (spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status !== 0)
    throw new Error('redis-server is not installed (Debian: apt-get install -y redis-server)');
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'mock-idp-bench-redis-'));
  const redis = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--dir', dir],
    {
      stdio: 'ignore',
    },
  );
  const url = `redis://127.0.0.1:${port}`;
  /** @type {{ base: string, child: import('node:child_process').ChildProcess }[]} */
  const running = [];
  const start = async (/** @type {string[]} */ extra) => {
    const s = await startMockIdp({ extra });
    running.push(s);
    return s;
  };
  const stopAll = async () => {
    for (const s of running.splice(0)) await kill(s.child);
  };
  try {
    for (let i = 0; ; i++) {
      try {
        if (cli(port, 'ping') === 'PONG') break;
      } catch {
        if (i > 100) throw new Error('redis-server did not start');
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    const memory = await measure([await start([])], cfg);
    await stopAll();
    const oneRedis = await measure([await start(['--store', url])], cfg);
    await stopAll();
    cli(port, 'flushall');
    const twoRedis = await measure(
      await Promise.all([start(['--store', url]), start(['--store', url])]),
      cfg,
    );
    await stopAll();

    // Memory per session: client_credentials opens one session per token response.
    cli(port, 'flushall');
    const s = await start(['--store', url]);
    await clientCredentials(endpoints(s.base).token); // the shared key and secret are stored once, before counting
    const n = cfg.sessions ?? 5000;
    const before = usedMemory(port);
    const token = endpoints(s.base).token;
    for (let i = 0; i < n; i += 50)
      await Promise.all(Array.from({ length: Math.min(50, n - i) }, () => clientCredentials(token)));
    await new Promise((r) => setTimeout(r, 200)); // the journal's appends are not awaited by the requests
    const after = usedMemory(port);
    const keys = Number(cli(port, 'dbsize'));
    // The request journal grew by one record a request too; it is bounded (the last 10,000), so it is
    // counted apart from what a session costs.
    const journal = Number(cli(port, 'memory', 'usage', 'mock-idp:mock:journal', 'samples', '0')) || 0;
    const journalRecords = Number(cli(port, 'llen', 'mock-idp:mock:journal')) || 0;
    await stopAll();
    return {
      memory,
      oneRedis,
      twoRedis,
      sessionMemory: {
        sessions: n,
        bytesPerSession: Math.round((after - before - journal) / n),
        keys,
        journalBytes: journal,
        journalRecords,
      },
    };
  } finally {
    await stopAll();
    redis.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The Redis comparison as a Markdown table (the README's), or the error. @param {any} r */
/** `a ÷ b` as a factor with two decimals. */
const ratio = (/** @type {number} */ a, /** @type {number} */ b) => `${(a / b).toFixed(2)}×`;

export function redisTable(r) {
  if (!r || r.error) return `Redis store: ${r?.error ?? 'not measured'}`;
  const row = (/** @type {string} */ name, /** @type {any} */ x) =>
    `| ${name} | ${x.clientCredentials.reqPerS} req/s | ${x.clientCredentials.p99Ms} ms | ${x.authCode.roundTripsPerS} /s | ${x.authCode.p99Ms} ms |`;
  return [
    '| setup | client_credentials | p99 | auth-code round trips | p99 |',
    '| --- | --- | --- | --- | --- |',
    row('one process, memory', r.memory),
    row('one process, Redis', r.oneRedis),
    row('two replicas, one Redis', r.twoRedis),
    '',
    `Redis ÷ memory req/s (one process): client_credentials ${ratio(r.oneRedis.clientCredentials.reqPerS, r.memory.clientCredentials.reqPerS)}, auth-code round trips ${ratio(r.oneRedis.authCode.roundTripsPerS, r.memory.authCode.roundTripsPerS)}`,
    `Redis memory per session: ${r.sessionMemory.bytesPerSession} bytes (INFO used_memory over ${r.sessionMemory.sessions} client_credentials sessions, the request journal apart)`,
    `Request journal: ${r.sessionMemory.journalBytes} bytes for ${r.sessionMemory.journalRecords} records (bounded at 10,000)`,
  ].join('\n');
}
