// Turns the measurements into target verdicts and a plain-text table.
import { sessionRows } from './sessions.js';
import { speedGoals, speedRows } from './goals.js';

/** @typedef {{ metric: string, value: string, target?: string, status?: 'PASS' | 'MISS' | 'n/a' }} Row */

const fmt = (/** @type {number | null | undefined} */ x, unit = '', d = 0) =>
  x == null
    ? 'n/a'
    : `${x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d })}${unit}`;
const pct = (/** @type {number | null | undefined} */ x) => (x == null ? 'n/a' : `${(x * 100).toFixed(1)} %`);
/** @param {boolean | null} ok @returns {'PASS' | 'MISS' | 'n/a'} */
const verdict = (ok) => (ok === null ? 'n/a' : ok ? 'PASS' : 'MISS');
/** @param {number | null | undefined} x @param {(x: number) => boolean} test */
const check = (x, test) => verdict(x == null ? null : test(x));

/**
 * Derived figures (signatures/s, fractions of the limit, ratios) and the table rows.
 * @param {any} r the results object from run.js
 * @returns {{ derived: Record<string, number | null>, rows: Row[] }}
 */
export function evaluate(r) {
  const limit = r.signingLimit?.limit ?? null;
  const cc = r.mockIdp?.clientCredentials;
  const ac = r.mockIdp?.authCode;
  const th = r.oauth2MockServer?.clientCredentials;
  const sigs = (/** @type {number | undefined} */ rate, /** @type {number | undefined} */ per) =>
    rate == null || per == null ? null : rate * per;
  const ccSig = sigs(cc?.reqPerS, cc?.rs256PerResponse);
  const acSig = sigs(ac?.roundTripsPerS, ac?.rs256PerRoundTrip);
  const thSig = sigs(th?.reqPerS, th?.rs256PerResponse);
  const frac = (/** @type {number | null} */ s) => (s == null || limit == null ? null : s / limit);
  const ratio = (/** @type {number | null | undefined} */ a, /** @type {number | null | undefined} */ b) =>
    a == null || b == null || b === 0 ? null : a / b;
  const derived = {
    ...speedGoals(r).derived,
    ccSignaturesPerS: ccSig,
    ccFractionOfLimit: frac(ccSig),
    authCodeSignaturesPerS: acSig,
    authCodeFractionOfLimit: frac(acSig),
    theirsSignaturesPerS: thSig,
    theirsFractionOfLimit: frac(thSig),
    ratioReqPerS: ratio(cc?.reqPerS, th?.reqPerS),
    ratioSignaturesPerS: ratio(ccSig, thSig),
    // Robust to background load: server CPU per signature, theirs ÷ ours (> 1: we spend less).
    ratioCpuPerSignature: ratio(
      th?.serverCpuMsPerRequest == null || !th?.rs256PerResponse
        ? null
        : th.serverCpuMsPerRequest / th.rs256PerResponse,
      cc?.serverCpuMsPerRequest == null || !cc?.rs256PerResponse
        ? null
        : cc.serverCpuMsPerRequest / cc.rs256PerResponse,
    ),
  };
  const cs = r.coldStart;
  const dk = r.docker;
  const conn = cc?.connections ?? 16;
  /** @param {any} x */
  /** @param {any} x @returns {Row[]} CPU rows of one load phase */
  const cpu = (x) => [
    {
      metric: '  CPU cores: server (main thread) / load gen / others',
      value: `${fmt(x?.server?.cpuCores, '', 2)} (${fmt(x?.server?.mainThreadCores, '', 2)}) / ${fmt(x?.loadGeneratorCpuCores, '', 2)} / ${fmt(x?.otherProcessesCpuCores, '', 2)}`,
    },
    {
      metric: `  server CPU per ${x?.serverCpuMsPerRoundTrip != null ? 'round trip' : 'request'}`,
      value: fmt(x?.serverCpuMsPerRequest ?? x?.serverCpuMsPerRoundTrip, ' ms', 2),
    },
  ];
  /** @type {Row[]} */
  const rows = [
    {
      metric: `RSA-2048 RS256 limit (${r.signingLimit?.cores ?? '?'} cores)`,
      value: limit == null ? 'n/a' : `${fmt(limit)} sig/s (${r.signingLimit.best})`,
    },
    {
      metric: `spawn → "listening on" (median of ${cs?.runs ?? '?'})`,
      value: fmt(cs?.spawnToListeningMs?.median, ' ms'),
      target: '≤ 250 ms',
      status: check(cs?.spawnToListeningMs?.median, (x) => x <= 250),
    },
    {
      metric: `  of which Node's own start: node -e 0, spawn → exit (median of ${cs?.runs ?? '?'})`,
      value: fmt(cs?.nodeOnlyMs?.median, ' ms'),
    },
    {
      metric: `spawn → first client_credentials token (median of ${cs?.runs ?? '?'})`,
      value: fmt(cs?.spawnToFirstTokenMs?.median, ' ms'),
      target: `≤ oauth2-mock-server's (${fmt(cs?.peerSpawnToFirstTokenMs?.median, ' ms')})`,
      status: check(
        cs?.spawnToFirstTokenMs?.median == null || cs?.peerSpawnToFirstTokenMs?.median == null
          ? null
          : cs.spawnToFirstTokenMs.median - cs.peerSpawnToFirstTokenMs.median,
        (d) => d <= 0,
      ),
    },
  ];
  if (r.coldStartFixedKey) {
    rows.push({
      metric: '  same, with a fixed --key (no key generation)',
      value: fmt(r.coldStartFixedKey.spawnToFirstTokenMs?.median, ' ms'),
    });
  }
  rows.push(
    {
      metric: `client_credentials (${conn} conn)`,
      value: `${fmt(cc?.reqPerS, ' req/s')}, ${cc?.rs256PerResponse ?? '?'} RS256/response`,
    },
    {
      metric: '  RS256 signatures/s ÷ limit',
      value: `${fmt(ccSig, ' sig/s')} = ${pct(derived.ccFractionOfLimit)}`,
      target: '≥ 80 %',
      status: check(derived.ccFractionOfLimit, (x) => x >= 0.8),
    },
    {
      metric: '  latency p50 / p99',
      value: `${fmt(cc?.latencyMs?.p50, '', 1)} / ${fmt(cc?.latencyMs?.p99, ' ms', 1)}`,
      target: 'p99 ≤ 50 ms',
      status: check(cc?.latencyMs?.p99, (x) => x <= 50),
    },
    ...cpu(cc),
    {
      metric: `auth-code round trip (${ac?.concurrency ?? conn} lanes)`,
      value: `${fmt(ac?.roundTripsPerS, ' rt/s')}, ${ac?.rs256PerRoundTrip ?? '?'} RS256/round trip`,
    },
    {
      metric: '  RS256 signatures/s ÷ limit',
      value: `${fmt(acSig, ' sig/s')} = ${pct(derived.authCodeFractionOfLimit)}`,
    },
    {
      metric: '  round-trip latency p50 / p99',
      value: `${fmt(ac?.latencyMs?.p50, '', 1)} / ${fmt(ac?.latencyMs?.p99, ' ms', 1)}`,
      target: 'p99 ≤ 50 ms',
      status: check(ac?.latencyMs?.p99, (x) => x <= 50),
    },
    ...cpu(ac),
    ...speedRows(r),
  );
  const us = r.users;
  const kc = r.keycloakStart;
  if (kc) {
    rows.push(
      {
        metric: `realm JSON (a kc.sh export): spawn → ready (median of ${kc.runs ?? '?'})`,
        value: kc.error ? `failed: ${kc.error}` : fmt(kc.spawnToReadyMs?.median, ' ms'),
        target: '< 1 s (Keycloak in a container: 8–50 s)',
        status: check(kc.spawnToReadyMs?.median, (x) => x < 1000),
      },
      {
        metric: '  spawn → first admin call (admin-cli token, user search)',
        value: kc.error ? 'n/a' : fmt(kc.spawnToFirstAdminCallMs?.median, ' ms'),
      },
    );
  }
  if (us) {
    rows.push({
      metric: `mock-idp users --count ${fmt(us.count)} (median of ${us.runs ?? '?'})`,
      value: us.error
        ? `failed: ${us.error}`
        : `${fmt(us.spawnToExitMs?.median, ' ms')} (CPU ${fmt(us.cpuS?.median, ' s', 2)}), ${fmt(us.outputMB, ' MB', 1)} of YAML`,
      target: '< 2 s',
      status: check(us.spawnToExitMs?.median, (x) => x < 2000),
    });
  }
  if (dk?.skipped || dk?.error) {
    rows.push({ metric: 'Docker start → /health 200', value: `skipped: ${dk.skipped ?? dk.error}` });
  } else if (dk) {
    rows.push(
      {
        metric: `Docker start → /health 200 (median of ${dk.runs})`,
        value: fmt(dk.startToHealthyMs?.median, ' ms'),
      },
      {
        metric: `  image size (${dk.image})`,
        value:
          fmt(dk.imageSizeMB, ' MB', 1) +
          (dk.appLayersMB != null
            ? `, of which ${fmt(dk.appLayersMB, ' MB', 1)} on top of ${dk.baseImage}`
            : ''),
      },
    );
  }
  rows.push(...fixtureRows(r.fixtures));
  rows.push(...sessionRows(r.sessions));
  return { derived, rows };
}

/** `W ms wall; C ms CPU` of a {wallMs, cpuMs} figure. @param {any} x */
const wallCpu = (x) => `${fmt(x?.wallMs, ' ms')} wall; ${fmt(x?.cpuMs, ' ms')} CPU`;
/**
 * Under one second of wall time, what a user waits for; the CPU
 * time beside it says what a busy machine's other work did to the wall time (GC and the fixtures worker
 * run on other threads, so CPU may exceed wall).
 * @param {any} x
 */
const underASecond = (x) => check(x?.wallMs, (ms) => ms < 1000);

/** Rows of the fixture-loading section (bench/lib/fixtures-load.js). @param {any} fx @returns {Row[]} */
export function fixtureRows(fx) {
  if (fx == null) return [];
  if (fx.error) return [{ metric: 'fixtures: 50,000 users', value: `failed: ${fx.error}` }];
  const put = fx.putFixtures;
  const first = fx.putFixturesFirst;
  return [
    {
      metric: `fixtures: \`check\` of ${fmt(fx.users)} users (${fx.fileMB} MB), spawn to exit, best`,
      value: wallCpu(fx.check50000),
      target: '< 1,000 ms wall',
      status: underASecond(fx.check50000),
    },
    {
      metric: '  50,000 ÷ 12,500 users, CPU of the load (4 = linear)',
      value: fmt(fx.linearity, '×', 2),
      target: '≈ 4×',
      status: check(fx.linearity, (x) => x < 5),
    },
    {
      metric: '  the same load in a started process (library use)',
      value: wallCpu(fx.loadInProcess50000),
      target: '< 1,000 ms wall',
      status: underASecond(fx.loadInProcess50000),
    },
    {
      metric: `  serve start with them, spawn to listening (bundled fixtures: ${wallCpu(fx.serveStartBundled)})`,
      value: wallCpu(fx.serveStart50000),
      target: '< 1,000 ms wall',
      status: underASecond(fx.serveStart50000),
    },
    {
      metric: '  PUT /mock/fixtures of the same, best of the runs after the first; server CPU',
      value: `${fmt(put?.putMs, ' ms')} wall; ${fmt(put?.bestCpuMs, ' ms')} CPU`,
      target: '< 1,000 ms wall',
      status: check(put?.putMs, (ms) => ms < 1000),
    },
    {
      metric:
        "    the first PUT into a server started small (it starts the fixtures worker), best of the runs' servers",
      value: `${fmt(first?.putMs, ' ms')} wall; ${fmt(first?.putCpuMs, ' ms')} CPU`,
      target: '< 1,000 ms wall',
      status: check(first?.putMs, (ms) => ms < 1000),
    },
    {
      metric: '    the first PUT 1 s after a start on the 50,000 users (worker started at start)',
      value: `${fmt(fx.putAfterBigStart?.putMs, ' ms')} wall; ${fmt(fx.putAfterBigStart?.putCpuMs, ' ms')} CPU`,
      target: '< 1,000 ms wall',
      status: check(fx.putAfterBigStart?.putMs, (ms) => ms < 1000),
    },
    {
      metric: `    the ${fmt(fx.putLater?.first)}th to ${fmt(fx.putLater?.last)}th PUT into that server, the slowest`,
      value: `${fmt(fx.putLater?.putMs, ' ms')} wall; ${fmt(fx.putLater?.putCpuMs, ' ms')} CPU`,
      target: '< 1,000 ms wall',
      status: check(fx.putLater?.putMs, (ms) => ms < 1000),
    },
    {
      metric: '    /health asked every 20 ms during the best PUT',
      value: `${fmt(put?.healthAnswers)} answers, median ${fmt(put?.healthP50Ms, ' ms')}, slowest ${fmt(put?.healthMaxMs, ' ms')}`,
      target: 'slowest < 1,000 ms',
      status: check(put?.healthMaxMs, (ms) => ms < 1000),
    },
  ];
}

/** @param {Row[]} rows @returns {string} */
export function table(rows) {
  const cols = /** @type {const} */ (['metric', 'value', 'target', 'status']);
  const heads = { metric: 'metric', value: 'measured', target: 'target', status: '' };
  const width = cols.map((c) => Math.max(heads[c].length, ...rows.map((r) => (r[c] ?? '').length)));
  const line = (/** @type {Record<string, string | undefined>} */ r) =>
    cols
      .map((c, i) => (r[c] ?? '').padEnd(/** @type {number} */ (width[i])))
      .join('  ')
      .trimEnd();
  return [line(heads), width.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}
