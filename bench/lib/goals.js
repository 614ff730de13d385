// The speed goals from a run's results (compare.js): mock-idp ÷ bare and ÷ oauth2-mock-server for both
// flows, p99 at c=16 against the peer's, peak RSS; as table rows and as the README's markdown tables.

/** @typedef {import('./report.js').Row} Row */

const GOALS = { ofBare: 0.75, ofBareAuthCode: 0.7, ofPeer: 1.5, peakRssOfBare: 1.25 };

const fmt = (/** @type {number | null | undefined} */ x, unit = '', d = 0) =>
  x == null
    ? 'n/a'
    : `${x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d })}${unit}`;
const ratio = (/** @type {number | null | undefined} */ a, /** @type {number | null | undefined} */ b) =>
  a == null || b == null || b === 0 ? null : a / b;
/** @param {number | null} x @param {(x: number) => boolean} test @returns {'PASS' | 'MISS' | 'n/a'} */
const check = (x, test) => (x == null ? 'n/a' : test(x) ? 'PASS' : 'MISS');

/**
 * The ratios and their verdicts.
 * @param {any} r results with mockIdp, bare, oauth2MockServer
 */
export function speedGoals(r) {
  const [m, b, p] = [r.mockIdp, r.bare, r.oauth2MockServer];
  const cc = (/** @type {any} */ x) => x?.clientCredentials?.reqPerS;
  const ac = (/** @type {any} */ x) => x?.authCode?.roundTripsPerS;
  const p99 = (/** @type {any} */ x) => x?.clientCredentials?.latencyMs?.p99;
  const cpuCc = (/** @type {any} */ x) => x?.clientCredentials?.serverCpuMsPerRequest;
  const cpuAc = (/** @type {any} */ x) => x?.authCode?.serverCpuMsPerRoundTrip;
  const derived = {
    ccOfBare: ratio(cc(m), cc(b)),
    ccOfPeer: ratio(cc(m), cc(p)),
    authCodeOfBare: ratio(ac(m), ac(b)),
    authCodeOfPeer: ratio(ac(m), ac(p)),
    // CPU-time view (steadier under background load): bare's server CPU per request ÷ ours.
    ccCpuOfBare: ratio(cpuCc(b), cpuCc(m)),
    authCodeCpuOfBare: ratio(cpuAc(b), cpuAc(m)),
    ccCpuOfPeer: ratio(cpuCc(p), cpuCc(m)),
    authCodeCpuOfPeer: ratio(cpuAc(p), cpuAc(m)),
  };
  /** @type {{ metric: string, value: string, target: string, status: 'PASS' | 'MISS' | 'n/a' }[]} */
  const goals = [
    ['client_credentials', 'ccOfBare', 'ccCpuOfBare', 'bare', GOALS.ofBare],
    ['auth-code round trips', 'authCodeOfBare', 'authCodeCpuOfBare', 'bare', GOALS.ofBareAuthCode],
    ['client_credentials', 'ccOfPeer', 'ccCpuOfPeer', 'oauth2-mock-server', GOALS.ofPeer],
    ['auth-code round trips', 'authCodeOfPeer', 'authCodeCpuOfPeer', 'oauth2-mock-server', GOALS.ofPeer],
  ].map(([flow, k, cpuK, of, min]) => {
    const x = derived[/** @type {keyof typeof derived} */ (k)];
    const cpu = derived[/** @type {keyof typeof derived} */ (cpuK)];
    return {
      metric: `mock-idp ÷ ${of}, ${flow}/s`,
      value: `${fmt(x, '×', 2)} (CPU per request: ${fmt(cpu, '×', 2)})`,
      target: `≥ ${min}×`,
      status: check(x, (v) => v >= /** @type {number} */ (min)),
    };
  });
  goals.push(
    {
      metric: `client_credentials p99 at c=${m?.clientCredentials?.connections ?? 16}, mock-idp vs peer`,
      value: `${fmt(p99(m), ' ms', 1)} vs ${fmt(p99(p), ' ms', 1)}`,
      target: '≤ peer',
      status: check(p99(m) == null || p99(p) == null ? null : p99(m) - p99(p), (d) => d <= 0),
    },
    {
      metric: 'mock-idp peak RSS under load ÷ bare',
      value: `${fmt(ratio(m?.peakRssMB, b?.peakRssMB), '×', 2)} (${fmt(m?.peakRssMB, ' MiB', 1)} vs ${fmt(b?.peakRssMB, ' MiB', 1)})`,
      target: `≤ ${GOALS.peakRssOfBare}×`,
      status: check(ratio(m?.peakRssMB, b?.peakRssMB), (x) => x <= GOALS.peakRssOfBare),
    },
  );
  return { derived, goals };
}

/** Rows for the bench's plain-text table: the three servers' figures, then the goals. @param {any} r @returns {Row[]} */
export function speedRows(r) {
  /** @type {Row[]} */ const rows = [];
  for (const [name, x] of [
    ['bare node:http', r.bare],
    [`oauth2-mock-server ${r.oauth2MockServer?.version ?? ''}`, r.oauth2MockServer],
  ]) {
    rows.push(
      {
        metric: `${name}: client_credentials; p50 / p99`,
        value: `${fmt(x?.clientCredentials?.reqPerS, ' req/s')}; ${fmt(x?.clientCredentials?.latencyMs?.p50, '', 1)} / ${fmt(x?.clientCredentials?.latencyMs?.p99, ' ms', 1)}; CPU ${fmt(x?.clientCredentials?.serverCpuMsPerRequest, ' ms', 2)}/req`,
      },
      {
        metric: `${name}: auth-code round trips; p50 / p99`,
        value: `${fmt(x?.authCode?.roundTripsPerS, ' rt/s')}; ${fmt(x?.authCode?.latencyMs?.p50, '', 1)} / ${fmt(x?.authCode?.latencyMs?.p99, ' ms', 1)}; CPU ${fmt(x?.authCode?.serverCpuMsPerRoundTrip, ' ms', 2)}/rt`,
      },
      { metric: `${name}: peak RSS under load`, value: fmt(x?.peakRssMB, ' MiB', 1) },
    );
  }
  return [...rows, ...speedGoals(r).goals];
}

/** The README's Performance tables (markdown), from a results object. @param {any} r @returns {string} */
export function markdown(r) {
  const servers = [r.mockIdp, r.bare, r.oauth2MockServer];
  const line = (/** @type {string[]} */ cells) => `| ${cells.join(' | ')} |`;
  const row = (/** @type {string} */ label, /** @type {(x: any) => string} */ f) =>
    line([label, ...servers.map(f)]);
  const conn = r.mockIdp?.clientCredentials?.connections ?? 16;
  const { goals } = speedGoals(r);
  return [
    line(['', 'mock-idp', 'bare `node:http`', `oauth2-mock-server ${r.oauth2MockServer?.version ?? ''}`]),
    line(['---', '---:', '---:', '---:']),
    row(`client_credentials req/s, ${conn} connections`, (x) => fmt(x?.clientCredentials?.reqPerS)),
    row(`authorization-code round trips/s, ${conn} lanes`, (x) => fmt(x?.authCode?.roundTripsPerS)),
    row(`p99 client_credentials`, (x) => fmt(x?.clientCredentials?.latencyMs?.p99, ' ms', 1)),
    row(`p99 auth-code round trip`, (x) => fmt(x?.authCode?.latencyMs?.p99, ' ms', 1)),
    row('server CPU per client_credentials request', (x) =>
      fmt(x?.clientCredentials?.serverCpuMsPerRequest, ' ms', 2),
    ),
    row('server CPU per round trip', (x) => fmt(x?.authCode?.serverCpuMsPerRoundTrip, ' ms', 2)),
    row('peak RSS under load', (x) => fmt(x?.peakRssMB, ' MiB', 1)),
    '',
    line(['goal', 'measured', 'target', '']),
    line(['---', '---', '---', '---']),
    ...goals.map((g) => line([g.metric, g.value, g.target, g.status])),
  ].join('\n');
}
