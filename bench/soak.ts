// `npm run soak [-- --minutes N] [-- --rate R]`: one mock-idp process (memory store, bench/soak.yaml:
// sessions idle out after 20 s) under a mixed load at a fixed rate (R operations/s, default 50:
// client_credentials, a sign-in with its code exchange, a refresh, an introspection) for N minutes (default
// 10). Every 10 s it samples the process's RSS (/proc/PID/status VmRSS), the round trip of GET /health (the
// event-loop delay plus the HTTP; mock-idp has no endpoint that reports the delay itself) and the live
// sessions (walking GET /mock/sessions). Fails when the peak RSS of the last half is more than 10 % above
// the first half's.
import { readFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  authorize,
  clientCredentials,
  codeOf,
  exchange,
  field,
  health,
  introspect,
  get,
  refresh,
} from './lib/calls.js';
import { soakVerdict, type SoakSample } from './lib/soak-verdict.js';
import { ROOT, startServer, stopAll } from './lib/procs.js';

function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  if (i < 0) return fallback;
  const value = Number(process.argv[i + 1]);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} takes a positive number`);
  return value;
}
const minutes = option('--minutes', 10);
const rate = option('--rate', 50);
const durationS = minutes * 60;
const SAMPLE_S = 10;
/** Operations in flight at most; one due while that many are open is skipped and counted. */
const IN_FLIGHT = 64;
const JOURNAL_FILL = 10_000;

const log = (msg: string): void => {
  process.stderr.write(`[soak] ${msg}\n`);
};

function rssMiB(pid: number | undefined): number {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  return Math.round((kb / 1024) * 10) / 10;
}

/** Live sessions: every page of GET /mock/sessions?limit=1000. */
async function liveSessions(base: string): Promise<number> {
  let count = 0;
  let cursor: string | null = null;
  do {
    const a = await get(base, `/mock/sessions?limit=1000${cursor !== null ? `&cursor=${cursor}` : ''}`);
    const sessions = a.json?.['sessions'];
    if (a.status !== 200 || !Array.isArray(sessions)) throw new Error(`GET /mock/sessions: ${a.status}`);
    count += sessions.length;
    const next = a.json?.['nextCursor'];
    cursor = typeof next === 'string' ? next : null;
  } while (cursor !== null);
  return count;
}

/** Five GET /health one after another: median and largest round trip, ms. */
async function healthProbe(base: string): Promise<{ median: number; max: number }> {
  const ms: number[] = [];
  for (let i = 0; i < 5; i++) {
    const a = await health(base);
    ms.push(a.end - a.start);
  }
  ms.sort((x, y) => x - y);
  const r = (x: number | undefined): number => Math.round((x ?? 0) * 10) / 10;
  return { median: r(ms[2]), max: r(ms[4]) };
}

/** Recent tokens the refresh and introspection operations use (younger than the lifespans). */
const recent = {
  access: [] as { token: string; at: number }[],
  refresh: [] as { token: string; at: number }[],
};
const remember = (list: { token: string; at: number }[], token: string | undefined): void => {
  if (token === undefined) return;
  list.push({ token, at: performance.now() });
  if (list.length > 50) list.shift();
};
const young = (list: { token: string; at: number }[], maxMs: number): string | undefined => {
  const fresh = list.filter((x) => performance.now() - x.at < maxMs);
  return fresh[Math.floor(Math.random() * fresh.length)]?.token;
};

let requests = 0;
let unexpected = 0;
let firstUnexpected: string | undefined;
const count = (ok: boolean, what: string, status: number | null, error?: string): void => {
  requests++;
  if (ok) return;
  unexpected++;
  firstUnexpected ??= `${what}: ${status ?? 'no answer'} ${error ?? ''}`.trim();
};

/** One operation of the mix, by its number. */
async function operation(base: string, n: number): Promise<void> {
  switch (n % 4) {
    case 0: {
      const a = await clientCredentials(base);
      count(a.status === 200, 'client_credentials', a.status, a.error);
      remember(recent.access, field(a, 'access_token'));
      return;
    }
    case 1: {
      const a = await authorize(base, n);
      const code = codeOf(a);
      count(code !== undefined, 'authorize', a.status, a.error);
      if (code === undefined) return;
      const b = await exchange(base, code);
      count(b.status === 200, 'code exchange', b.status, b.error);
      remember(recent.refresh, field(b, 'refresh_token'));
      return;
    }
    case 2: {
      // Refresh tokens up to 10 s old: their sessions (20 s idle) are alive.
      const token = young(recent.refresh, 10_000);
      if (token === undefined) return;
      const a = await refresh(base, token);
      count(a.status === 200, 'refresh', a.status, a.error);
      remember(recent.access, field(a, 'access_token'));
      return;
    }
    default: {
      // Access tokens up to 5 s old: unexpired (10 s).
      const token = young(recent.access, 5000);
      if (token === undefined) return;
      const a = await introspect(base, token);
      count(a.status === 200 && a.json?.['active'] === true, 'introspect', a.status, a.error);
    }
  }
}

async function main(): Promise<number> {
  const server = await startServer(0, ['--fixtures', 'bench/soak.yaml']);
  const pid = server.child.pid;
  log(`mock-idp ${server.base} (pid ${pid})`);
  // The request journal keeps the last 10,000 requests: filled first (cheap discovery requests), so that
  // its growth to that bound is not taken for a leak.
  let filled = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (filled < JOURNAL_FILL) {
        filled++;
        await get(server.base, '/.well-known/openid-configuration');
      }
    }),
  );
  log(`journal filled (${filled} requests); ${rate} operations/s for ${minutes} min`);
  const samples: SoakSample[] = [];
  const t0 = performance.now();
  let started = 0;
  let skipped = 0;
  let open = 0;
  const pending = new Set<Promise<void>>();
  let nextSample = SAMPLE_S;
  let sampled = { requests: 0, unexpected: 0 };
  const sample = async (t: number): Promise<void> => {
    const [healthMs, sessions] = await Promise.all([healthProbe(server.base), liveSessions(server.base)]);
    const s: SoakSample = {
      t,
      rssMiB: rssMiB(pid),
      healthMs,
      sessions,
      requests: requests - sampled.requests,
      unexpected: unexpected - sampled.unexpected,
    };
    sampled = { requests, unexpected };
    samples.push(s);
    log(`t=${t}s rss=${s.rssMiB} MiB sessions=${sessions} /health=${healthMs.median} ms`);
  };
  for (;;) {
    const elapsedS = (performance.now() - t0) / 1000;
    if (elapsedS >= durationS) break;
    for (let due = Math.floor(elapsedS * rate) - started; due > 0; due--) {
      const n = started++;
      if (open >= IN_FLIGHT) {
        skipped++;
        continue;
      }
      open++;
      const p = operation(server.base, n).finally(() => {
        open--;
        pending.delete(p);
      });
      pending.add(p);
    }
    if (elapsedS >= nextSample) {
      nextSample += SAMPLE_S;
      // Beside the load, not instead of it: the probe shows the delay the load causes.
      const p = sample(Math.round(elapsedS)).finally(() => pending.delete(p));
      pending.add(p);
    }
    await sleep(10);
  }
  await Promise.all(pending);
  await sample(durationS);
  const verdict = soakVerdict(samples, durationS);
  const date = new Date().toISOString();
  console.log(
    `\nmock-idp soak run, ${date}: ${minutes} min at ${rate} operations/s, one process, memory store (bench/soak.yaml)\n`,
  );
  console.log('| t | RSS | GET /health median / max | live sessions | requests | unexpected |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const s of samples)
    console.log(
      `| ${s.t} s | ${s.rssMiB} MiB | ${s.healthMs.median} / ${s.healthMs.max} ms | ${s.sessions} | ${s.requests} | ${s.unexpected} |`,
    );
  console.log(
    `\n${requests} requests${skipped > 0 ? `; ${skipped} operations skipped (${IN_FLIGHT} in flight)` : ''}${firstUnexpected !== undefined ? `; first unexpected: ${firstUnexpected}` : ''}`,
  );
  const growth = verdict.growth === null ? 'n/a' : `${(verdict.growth * 100).toFixed(1)} %`;
  console.log(
    `peak RSS, first half → last half: ${verdict.firstHalfPeakMiB ?? 'n/a'} → ${verdict.lastHalfPeakMiB ?? 'n/a'} MiB (${growth}; at most 10 %)`,
  );
  console.log(verdict.pass ? 'PASS' : `FAIL: ${verdict.reasons.join('; ')}`);
  mkdirSync(`${ROOT}bench/results`, { recursive: true });
  writeFileSync(
    `${ROOT}bench/results/soak.json`,
    JSON.stringify({ date, minutes, rate, requests, skipped, samples, verdict }, null, 2) + '\n',
  );
  return verdict.pass ? 0 : 1;
}

try {
  process.exitCode = await main();
} catch (err) {
  log(`failed: ${(err as Error).stack ?? String(err)}`);
  process.exitCode = 1;
} finally {
  stopAll();
}
