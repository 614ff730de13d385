// `npm run bench [-- --quick] [-- --no-docker] [-- --fixtures] [-- --redis] [-- --speed] [-- --sessions] [-- --keycloak]`: measures mock-idp on this machine in one run, prints a
// table with the targets and writes bench/results/latest.json. All traffic stays on 127.0.0.1.
// Env: MOCK_IDP_IMAGE (Docker image to time), MOCK_IDP_BIN (another build of the CLI to measure).
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, totalmem } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { killAll } from './lib/children.js';
import { measureColdStart } from './lib/cold-start.js';
import { measureDocker } from './lib/docker.js';
import { compareLoads, SERVERS } from './lib/compare.js';
import { markdown, speedGoals } from './lib/goals.js';
import { measureFixturesLoad } from './lib/fixtures-load.js';
import { evaluate, fixtureRows, table } from './lib/report.js';
import { measureSigningLimit } from './lib/sign-limit.js';
import { measureUsers } from './lib/users.js';
import { measureRedis, redisTable } from './lib/redis.js';
import { measureSessions, sessionRows } from './lib/sessions.js';
import { measureKeycloakStart } from './lib/keycloak-start.js';

const argv = process.argv.slice(2);
const quick = argv.includes('--quick');
const CONNECTIONS = 16;
const cfg = quick
  ? { loadS: 3, slices: 1, warmupS: 1, signMs: 700, coldRuns: 3, dockerRuns: 1, usersRuns: 1 }
  : { loadS: 10, slices: 2, warmupS: 2, signMs: 2000, coldRuns: 7, dockerRuns: 3, usersRuns: 3 };
const RESULTS = fileURLToPath(new URL('./results/', import.meta.url));

/** @param {string} msg */
const log = (msg) => process.stderr.write(`[bench ${(performance.now() / 1000).toFixed(1)}s] ${msg}\n`);

/** Runs one section; a failure is recorded in the results instead of ending the run. */
async function section(/** @type {string} */ name, /** @type {() => Promise<any>} */ fn) {
  log(name);
  try {
    return await fn();
  } catch (err) {
    log(`${name} failed: ${/** @type {Error} */ (err).stack ?? err}`);
    return { error: /** @type {Error} */ (err).message.split('\n')[0] };
  }
}

/** mock-idp, bare node:http (bench/bare.js) and oauth2-mock-server under load, in alternating slices. */
const loads = () =>
  compareLoads({ loadS: cfg.loadS, slices: cfg.slices, warmupS: cfg.warmupS, connections: CONNECTIONS, log });

/** `npm run bench -- --speed`: only the load comparison, printed with the README's tables. */
async function speedOnly() {
  mkdirSync(RESULTS, { recursive: true });
  const r = { date: new Date().toISOString(), quick, settings: { connections: CONNECTIONS, ...cfg } };
  Object.assign(r, await section('mock-idp, bare and oauth2-mock-server under load', loads));
  const { derived, goals } = speedGoals(r);
  Object.assign(r, { derived, targets: goals });
  writeFileSync(`${RESULTS}speed.json`, JSON.stringify(r, null, 2) + '\n');
  console.log(`\n${markdown(r)}\n\ndetails in bench/results/speed.json`);
  if ('error' in r) process.exitCode = 1;
}

/** `npm run bench -- --fixtures`: only the fixture-loading section (a minute), printed and saved apart. */
async function fixturesOnly() {
  mkdirSync(RESULTS, { recursive: true });
  const fixtures = await section('fixture loading (50,000 users)', () =>
    measureFixturesLoad({ runs: 3, dir: RESULTS }),
  );
  writeFileSync(
    `${RESULTS}fixtures.json`,
    JSON.stringify({ date: new Date().toISOString(), fixtures }, null, 2) + '\n',
  );
  console.log(
    `\nmock-idp fixture loading: ${cpus()[0]?.model}, ${availableParallelism()} cores, Node ${process.version}\n`,
  );
  console.log(table(fixtureRows(fixtures)));
  if ('error' in fixtures) process.exitCode = 1;
}

/** `npm run bench -- --redis`: only the Redis store comparison, printed and saved apart. */
async function redisOnly() {
  mkdirSync(RESULTS, { recursive: true });
  const redis = await section('Redis store: memory vs Redis vs two replicas', () =>
    measureRedis({ loadS: cfg.loadS, warmupS: cfg.warmupS, connections: CONNECTIONS }),
  );
  writeFileSync(
    `${RESULTS}redis.json`,
    JSON.stringify({ date: new Date().toISOString(), redis }, null, 2) + '\n',
  );
  console.log(
    `\nmock-idp on Redis: ${cpus()[0]?.model}, ${availableParallelism()} cores, Node ${process.version}\n`,
  );
  console.log(redisTable(redis));
  if ('error' in redis) process.exitCode = 1;
}

/** `npm run bench -- --sessions`: only cold start and the 100,000-session section, printed and saved apart. */
async function sessionsOnly() {
  mkdirSync(RESULTS, { recursive: true });
  const r = /** @type {Record<string, any>} */ ({ date: new Date().toISOString() });
  r.coldStart = await section(`cold start × ${cfg.coldRuns}`, () => measureColdStart({ runs: cfg.coldRuns }));
  r.sessions = await section('100,000 browser sessions: memory and pages', () => measureSessions());
  writeFileSync(`${RESULTS}sessions.json`, JSON.stringify(r, null, 2) + '\n');
  const rows = evaluate(r).rows.filter(
    (row) => row.metric.startsWith('spawn') || row.metric.includes("Node's own start"),
  );
  console.log(`\n${table([...rows, ...sessionRows(r.sessions)])}`);
  if ('error' in r.coldStart || 'error' in r.sessions) process.exitCode = 1;
}

/** `npm run bench -- --keycloak`: only the Keycloak realm export's start and first admin call. */
async function keycloakOnly() {
  mkdirSync(RESULTS, { recursive: true });
  const r = /** @type {Record<string, any>} */ ({ date: new Date().toISOString() });
  r.keycloakStart = await section(`a Keycloak realm export as fixtures × ${cfg.coldRuns}`, () =>
    measureKeycloakStart({ runs: cfg.coldRuns }),
  );
  writeFileSync(`${RESULTS}keycloak.json`, JSON.stringify(r, null, 2) + '\n');
  console.log(`\n${table(evaluate(r).rows.filter((row) => /realm JSON|admin call/.test(row.metric)))}`);
  if ('error' in r.keycloakStart) process.exitCode = 1;
}

async function main() {
  if (argv.includes('--keycloak')) return keycloakOnly();
  if (argv.includes('--sessions')) return sessionsOnly();
  if (argv.includes('--fixtures')) return fixturesOnly();
  if (argv.includes('--redis')) return redisOnly();
  if (argv.includes('--speed')) return speedOnly();
  const started = performance.now();
  mkdirSync(RESULTS, { recursive: true });
  /** @type {Record<string, any>} */
  const r = {
    date: new Date().toISOString(),
    quick,
    machine: {
      node: process.version,
      cpu: cpus()[0]?.model,
      cores: availableParallelism(),
      memoryMB: Math.round(totalmem() / 2 ** 20),
    },
    settings: { connections: CONNECTIONS, ...cfg },
  };
  // The limit is measured three times across the run and the highest counts: on a shared machine,
  // other processes can only lower a measurement.
  /** @type {any[]} */ const limits = [];
  const limit = async (/** @type {string} */ when) =>
    limits.push(
      await section(`signing limit (RSA-2048 RS256, all cores), ${when}`, () =>
        measureSigningLimit({ durationMs: cfg.signMs }),
      ),
    );
  await limit('first');
  r.coldStart = await section(`cold start × ${cfg.coldRuns}`, () => measureColdStart({ runs: cfg.coldRuns }));
  r.coldStartFixedKey = await section(`cold start with a fixed --key × ${cfg.coldRuns}`, () => {
    const keyFile = `${RESULTS}bench-key.pem`;
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }));
    return measureColdStart({ runs: cfg.coldRuns, extra: ['--key', keyFile] });
  });
  r.keycloakStart = await section(
    `a Keycloak realm export as fixtures: start and first admin call × ${cfg.coldRuns}`,
    () => measureKeycloakStart({ runs: cfg.coldRuns }),
  );
  r.sessions = await section('100,000 browser sessions: memory and pages', () => measureSessions());
  r.users = await section(`mock-idp users --count 100000 × ${cfg.usersRuns}`, () =>
    measureUsers({ runs: cfg.usersRuns }),
  );
  await limit('second');
  const all = await section('mock-idp, bare and oauth2-mock-server under load', loads);
  for (const name of SERVERS) r[name] = all[name] ?? all;
  r.docker = argv.includes('--no-docker')
    ? { skipped: '--no-docker' }
    : await section('Docker start-to-healthy', () => measureDocker({ runs: cfg.dockerRuns }));
  r.fixtures = await section('fixture loading (50,000 users)', () =>
    measureFixturesLoad({ runs: quick ? 1 : 3, dir: RESULTS }),
  );
  r.redis = await section('Redis store: memory vs Redis vs two replicas', () =>
    measureRedis({ loadS: cfg.loadS, warmupS: cfg.warmupS, connections: CONNECTIONS }),
  );
  await limit('third');
  const best = limits.filter((x) => !x.error).sort((a, b) => b.limit - a.limit)[0];
  r.signingLimit = best ? { ...best, measurements: limits } : limits[0];
  const { derived, rows } = evaluate(r);
  r.derived = derived;
  r.targets = rows
    .filter((row) => row.target)
    .map(({ metric, value, target, status }) => ({ metric, value, target, status }));
  r.totalSeconds = Math.round((performance.now() - started) / 100) / 10;
  writeFileSync(`${RESULTS}latest.json`, JSON.stringify(r, null, 2) + '\n');
  console.log(
    `\nmock-idp benchmark${quick ? ' (--quick)' : ''}: ${r.machine.cpu}, ${r.machine.cores} cores, Node ${r.machine.node}\n`,
  );
  console.log(table(rows));
  console.log(`\n${redisTable(r.redis)}`);
  console.log(`\nLoad tables (the README's: node bench/readme-table.js):\n\n${markdown(r)}`);
  const busiest = Math.max(
    ...[r.mockIdp?.clientCredentials, r.mockIdp?.authCode, r.oauth2MockServer?.clientCredentials].map(
      (x) => x?.otherProcessesCpuCores ?? 0,
    ),
  );
  if ((r.signingLimit?.otherProcessesCpuCores ?? 0) > 0.25) {
    console.log(
      `\nnote: other processes used ${r.signingLimit.otherProcessesCpuCores} cores while the best signing limit was measured; the limit is understated.`,
    );
  }
  if (busiest > 0.25) {
    console.log(
      `\nnote: other processes used up to ${busiest} cores during a load phase; throughput and latency are pessimistic.`,
    );
  }
  console.log(`\n${r.totalSeconds} s; details in bench/results/latest.json`);
  const failed = Object.entries(r).filter(([, v]) => v && typeof v === 'object' && 'error' in v);
  if (failed.length > 0) {
    console.log(`errors: ${failed.map(([k, v]) => `${k}: ${v.error}`).join('; ')}`);
    process.exitCode = 1;
  }
}

try {
  await main();
} finally {
  killAll();
}
