// `npm run chaos [-- --short]`: three mock-idp replicas on one redis-server (all on 127.0.0.1) under a steady
// mixed load, while a replica is killed with SIGKILL and restarted, Redis is restarted with its append-only
// file, restarted empty, and stopped for 3 s. Prints requests, answers by status, wrong answers and the time
// each fault took to recover; exits 1 on any wrong answer. --short: each fault once (about a minute).
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  authorize,
  clientCredentials,
  codeOf,
  exchange,
  field,
  introspect,
  keyIds,
  refresh,
  revoke,
  type Answer,
} from './lib/calls.js';
import {
  chaosPasses,
  tally,
  type Attempt,
  type FaultKind,
  type FaultWindow,
  type Issued,
  type Step,
  type Tally,
} from './lib/chaos-verdict.js';
import { skipWithout } from '../test/helpers/real-parts.js';
import { exited, freePort, RedisProcess, ROOT, startServer, stopAll, type Server } from './lib/procs.js';

const short = process.argv.includes('--short');
const REPLICAS = 3;
const LANES = 6;
const cfg = short ? { baselineS: 8, settleS: 8, cycles: 1 } : { baselineS: 10, settleS: 12, cycles: 2 };
const PAUSE_MS = 3000;
/** How long a killed replica stays down before it is started again. */
const DOWN_MS = 1000;
const RECOVERY_LIMIT_MS = 60_000;
const INSTALL = 'apt-get install -y redis-server (.ci/run installs it)';
const FAULTS: readonly FaultKind[] = ['kill', 'aof', 'empty', 'pause'];
const FAULT_NAMES: Record<FaultKind, string> = {
  kill: '(a) replica kill -9, restart',
  aof: '(b) Redis restart, AOF',
  empty: '(c) Redis restart, empty, then replica 0 restarted',
  pause: '(d) Redis stopped 3 s',
};

const log = (msg: string): void => {
  process.stderr.write(`[chaos ${(rel(performance.now()) / 1000).toFixed(1)}s] ${msg}\n`);
};

let t0 = performance.now();
const rel = (t: number): number => Math.round(t - t0);

const attempts: Attempt[] = [];
const windows: FaultWindow[] = [];
let harnessErrors = 0;

/** Tokens issued earlier, checked again later (across the faults in between). */
interface Kept {
  kind: 'access' | 'refresh';
  token: string;
  issued: Issued;
}
const kept: Kept[] = [];
const KEPT = 300;

function keep(entry: Kept): void {
  kept.push(entry);
  if (kept.length > KEPT) kept.splice(0, kept.length - KEPT);
}

function record(
  step: Step,
  replica: number,
  a: Answer,
  accepted: boolean,
  expect: 'ok' | 'refused' = 'ok',
  issued?: Issued,
): Issued {
  const span = { start: rel(a.start), end: rel(a.end) };
  attempts.push({
    step,
    replica,
    ...span,
    status: a.status,
    ...(a.error !== undefined ? { error: a.error } : {}),
    accepted,
    expect,
    ...(issued !== undefined ? { issued } : {}),
  });
  return { replica, ...span };
}

let bases: string[] = [];
const pick = (): number => Math.floor(Math.random() * REPLICAS);
const next = (i: number, k = 1): number => (i + k) % REPLICAS;
const active = (a: Answer): boolean => a.status === 200 && a.json?.['active'] === true;

/** client_credentials at one replica, its access token introspected at another. */
async function machineFlow(): Promise<void> {
  const i = pick();
  const a = await clientCredentials(bases[i] ?? '');
  const token = field(a, 'access_token');
  const issued = record('token', i, a, a.status === 200 && token !== undefined);
  if (a.status !== 200 || token === undefined) return;
  keep({ kind: 'access', token, issued });
  const j = next(i);
  const b = await introspect(bases[j] ?? '', token);
  record('introspect', j, b, active(b), 'ok', issued);
}

/**
 * A sign-in at one replica, the code exchanged at the next, the refresh token used at the third and the
 * new access token introspected at the first. Then either the refresh token is kept for later checks, or
 * it is revoked and used again, and the code replayed: both must be refused.
 */
async function userFlow(n: number, revokeAfter: boolean): Promise<void> {
  const i = pick();
  const j = next(i);
  const k = next(i, 2);
  const a = await authorize(bases[i] ?? '', n);
  const code = codeOf(a);
  const signedIn = record('authorize', i, a, code !== undefined);
  if (code === undefined) return;
  const b = await exchange(bases[j] ?? '', code);
  const rt = field(b, 'refresh_token');
  const exchanged = record('exchange', j, b, b.status === 200 && rt !== undefined, 'ok', signedIn);
  if (b.status !== 200 || rt === undefined) return;
  const c = await refresh(bases[k] ?? '', rt);
  const at = field(c, 'access_token');
  const refreshed = record('refresh', k, c, c.status === 200 && at !== undefined, 'ok', exchanged);
  if (at !== undefined) {
    const d = await introspect(bases[i] ?? '', at);
    record('introspect', i, d, active(d), 'ok', refreshed);
  }
  if (!revokeAfter) {
    keep({ kind: 'refresh', token: rt, issued: exchanged });
    return;
  }
  const r = await revoke(bases[i] ?? '', rt);
  record('revoke', i, r, r.status === 200, 'ok', exchanged);
  if (r.status === 200) {
    const u = await refresh(bases[j] ?? '', rt);
    record('reuse', j, u, u.status === 200, 'refused', exchanged);
  }
  const e = await exchange(bases[k] ?? '', code);
  record('replay', k, e, e.status === 200, 'refused', signedIn);
}

/** A token issued at least a second ago checked again at any replica: introspected or refreshed. */
async function laterFlow(): Promise<void> {
  const old = kept.filter((x) => rel(performance.now()) - x.issued.end > 1000);
  const x = old[Math.floor(Math.random() * old.length)];
  if (x === undefined) return machineFlow();
  const i = pick();
  if (x.kind === 'access') {
    const a = await introspect(bases[i] ?? '', x.token);
    record('introspect', i, a, active(a), 'ok', x.issued);
  } else {
    const a = await refresh(bases[i] ?? '', x.token);
    record('refresh', i, a, a.status === 200, 'ok', x.issued);
  }
}

let stopping = false;
let n = 0;
async function lane(): Promise<void> {
  while (!stopping) {
    const m = n++;
    try {
      switch (m % 5) {
        case 0:
          await machineFlow();
          break;
        case 1:
          await userFlow(m, false);
          break;
        case 2:
          await laterFlow();
          break;
        case 3:
          await userFlow(m, true);
          break;
        default:
          await laterFlow();
      }
    } catch (err) {
      harnessErrors++;
      log(`load error: ${(err as Error).stack ?? String(err)}`);
      await sleep(100);
    }
  }
}

/** When every replica has answered a client_credentials request with 200 again (Infinity: not in time). */
async function recovery(): Promise<number> {
  const deadline = performance.now() + RECOVERY_LIMIT_MS;
  const pending = new Set(bases.keys());
  let last = 0;
  while (pending.size > 0) {
    if (performance.now() > deadline) return Infinity;
    await Promise.all(
      [...pending].map(async (i) => {
        const a = await clientCredentials(bases[i] ?? '');
        if (a.status === 200) {
          pending.delete(i);
          last = Math.max(last, a.end);
        }
      }),
    );
    if (pending.size > 0) await sleep(25);
  }
  return rel(last);
}

async function main(): Promise<number> {
  // Without redis-server: a line naming the package and no run here; in CI, a failure.
  const installed = spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
  if (skipWithout('redis-server', installed ? undefined : 'redis-server is not installed', INSTALL)) return 0;
  const redis = new RedisProcess(await freePort());
  await redis.start();
  const args = ['--store', redis.url, '--fixtures', 'bench/fixtures.yaml'];
  // Started together: one of them makes the signing key and the others load it.
  const servers: Server[] = await Promise.all(Array.from({ length: REPLICAS }, () => startServer(0, args)));
  bases = servers.map((s) => s.base);
  log(`redis-server on ${redis.port}; replicas ${bases.join(', ')}`);

  /** kill -9, `downMs` down, then started again on the same port. */
  const restart = async (i: number, downMs: number): Promise<void> => {
    const s = servers[i];
    if (s === undefined) throw new Error(`no replica ${i}`);
    s.child.kill('SIGKILL');
    await exited(s.child);
    await sleep(downMs);
    servers[i] = await startServer(s.port, args);
  };

  t0 = performance.now();
  const lanes = Array.from({ length: LANES }, lane);
  await sleep(cfg.baselineS * 1000);
  let killed = 0;
  for (let cycle = 0; cycle < cfg.cycles; cycle++) {
    for (const kind of FAULTS) {
      const start = rel(performance.now());
      let replica: number | undefined;
      log(`fault ${FAULT_NAMES[kind]}`);
      if (kind === 'kill') {
        replica = 1 + (killed++ % (REPLICAS - 1));
        await restart(replica, DOWN_MS);
      } else if (kind === 'pause') {
        redis.signal('SIGSTOP');
        await sleep(PAUSE_MS);
        redis.signal('SIGCONT');
      } else {
        await redis.stop();
        if (kind === 'empty') redis.empty();
        await redis.start();
        // What an emptied Redis costs shows when a replica starts after it: once the running replicas
        // answer again, one of them is killed and started again.
        if (kind === 'empty') {
          await recovery();
          await restart(0, 0);
        }
      }
      const end = rel(performance.now());
      const recovered = await recovery();
      windows.push({ kind, ...(replica !== undefined ? { replica } : {}), start, end, recovered });
      log(
        Number.isFinite(recovered)
          ? `recovered ${recovered - end} ms after the fault ended`
          : `not recovered within ${RECOVERY_LIMIT_MS} ms`,
      );
      await sleep(cfg.settleS * 1000);
    }
  }
  stopping = true;
  await Promise.all(lanes);
  const endedAt = rel(performance.now());
  // One provider publishes one JWKS: replicas that disagree on their keys refuse each other's tokens.
  const kids = await Promise.all(bases.map((b) => keyIds(b)));
  const jwks = new Set(kids.map((k) => k.join(' ')));
  const keys = `JWKS at the end: ${jwks.size === 1 ? 'the same at every replica' : 'different'} (${kids.map((k, i) => `replica ${i}: ${k.join(', ')}`).join('; ')})`;
  return report(endedAt, keys);
}

/** Prints the table and writes bench/results/chaos.json; returns the exit code. */
function report(endedAt: number, keys: string): number {
  const phases: { name: string; from: number; to: number; w?: FaultWindow }[] = [];
  const first = windows[0]?.start ?? endedAt;
  phases.push({ name: 'steady load, no fault', from: 0, to: first });
  windows.forEach((w, i) =>
    phases.push({ name: FAULT_NAMES[w.kind], from: w.start, to: windows[i + 1]?.start ?? endedAt, w }),
  );
  // A request belongs to the fault it overlaps (one in flight when Redis stopped is the pause's), else to
  // the phase it started in.
  const phaseOf = (a: Attempt): number => {
    const w = windows.findIndex((x) => a.start <= x.recovered && a.end >= x.start);
    return w >= 0 ? w + 1 : phases.findLastIndex((p) => a.start >= p.from);
  };
  const byPhase = phases.map((): Attempt[] => []);
  for (const a of attempts) byPhase[Math.max(0, phaseOf(a))]?.push(a);
  const rows = phases.map((p, i) => ({ ...p, t: tally(byPhase[i] ?? [], windows) }));
  const total = tally(attempts, windows);
  const statuses = Object.keys(total.byStatus).sort();
  const recoveredIn = (w: FaultWindow | undefined): string =>
    w === undefined ? '' : Number.isFinite(w.recovered) ? `${w.recovered - w.end} ms` : 'never';
  const line = (cells: (string | number)[]): string => `| ${cells.join(' | ')} |`;
  const cells = (name: string, t: Tally, rec: string): (string | number)[] => [
    name,
    t.requests,
    ...statuses.map((s) => t.byStatus[s] ?? 0),
    t.unavailable,
    t.lost,
    t.wrong,
    `${Math.round(t.slowestMs)} ms`,
    rec,
  ];
  const head = ['phase', 'requests', ...statuses.map((s) => (s === 'none' ? 'no answer' : s))];
  const out = [
    line([...head, 'unavailable', 'lost', 'wrong', 'slowest', 'recovered after']),
    line([...head, 'unavailable', 'lost', 'wrong', 'slowest', 'recovered after'].map(() => '---')),
    ...rows.map((r) => line(cells(r.name, r.t, recoveredIn(r.w)))),
    line(cells('**all**', total, '')),
  ];
  const date = new Date().toISOString();
  console.log(
    `\nmock-idp chaos run${short ? ' (--short)' : ''}, ${date}: ${REPLICAS} replicas, one redis-server, ${LANES} lanes, ${(endedAt / 1000).toFixed(0)} s of load\n`,
  );
  console.log(out.join('\n'));
  const why = Object.entries(total.wrongWhy).sort((a, b) => b[1] - a[1]);
  if (why.length > 0) {
    console.log('\nwrong answers:');
    for (const [reason, count] of why.slice(0, 12)) console.log(`  ${count} × ${reason}`);
  }
  console.log(`\n${keys}`);
  if (harnessErrors > 0) console.log(`\n${harnessErrors} errors in the load generator itself`);
  console.log(
    '\n"recovered after": from the end of the fault (replica started again, Redis started or resumed) until every replica answered a token request with 200.',
  );
  mkdirSync(`${ROOT}bench/results`, { recursive: true });
  writeFileSync(
    `${ROOT}bench/results/chaos.json`,
    JSON.stringify({ date, short, windows, total, phases: rows, keys }, null, 2) + '\n',
  );
  const pass = chaosPasses(total, windows) && harnessErrors === 0;
  console.log(`\n${pass ? 'PASS' : 'FAIL'}: ${total.wrong} wrong answers of ${total.requests} requests`);
  return pass ? 0 : 1;
}

try {
  process.exitCode = await main();
} catch (err) {
  log(`failed: ${(err as Error).stack ?? String(err)}`);
  process.exitCode = 1;
} finally {
  stopping = true;
  stopAll();
}
// Lanes still waiting on a request would keep the process alive.
process.exit();
