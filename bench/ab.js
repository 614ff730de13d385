// `node bench/ab.js [--seconds S] [--slices N] [--flow cc|code|both] NAME=BIN[ NODE_FLAGS...] ...`: before/after
// for one change. Runs several builds of mock-idp (a copy of bin/ and dist/ per build) and bench/bare.js in
// alternating slices, and prints each build's throughput and server CPU per request as ratios to bare measured
// in the same slices: on a shared, loaded machine those ratios move much less than absolute req/s.
// Example: cp -r bin dist /tmp/before/ && ln -s $PWD/node_modules /tmp/before/ && (change, npm run build) &&
//   node bench/ab.js before=/tmp/before/bin/mock-idp.js after=bin/mock-idp.js
import { kill, killAll, spawnNode } from './lib/children.js';
import { compareLoadsOf } from './lib/compare.js';
import { ROOT, startMockIdp } from './lib/mock-idp.js';

const argv = process.argv.slice(2);
const opt = (/** @type {string} */ name, /** @type {string} */ dflt) => {
  const i = argv.indexOf(name);
  return i >= 0 && argv[i + 1] ? /** @type {string} */ (argv.splice(i, 2)[1]) : dflt;
};
const seconds = Number(opt('--seconds', '4'));
const slices = Number(opt('--slices', '3'));
const flow = opt('--flow', 'both');
const variants = argv.map((a) => {
  const [name, rest = ''] = a.split(/=(.*)/s);
  const [bin = 'bin/mock-idp.js', ...flags] = rest.split(/\s+/).filter(Boolean);
  return { name: /** @type {string} */ (name), bin, flags };
});
if (variants.length === 0) throw new Error('usage: node bench/ab.js NAME=BIN[ NODE_FLAGS...] ...');

try {
  /** @type {Record<string, { base: string, child: import('node:child_process').ChildProcess }>} */
  const servers = {};
  for (const v of variants) {
    const s = await startMockIdp({ nodeFlags: v.flags, bin: v.bin });
    servers[v.name] = { base: s.base, child: s.child };
  }
  const bare = await spawnNode(['bench/bare.js'], { cwd: ROOT, ready: /port (\d+)/ });
  servers.bare = { base: `http://127.0.0.1:${bare.match[1]}/realms/mock`, child: bare.child };
  const r = await compareLoadsOf(servers, {
    loadS: seconds * slices,
    slices,
    warmupS: 1,
    connections: 16,
    flows: flow === 'both' ? ['cc', 'code'] : [flow],
    log: (m) => process.stderr.write(`${m}\n`),
  });
  const f2 = (/** @type {number | null | undefined} */ x, d = 2) => (x == null ? 'n/a' : x.toFixed(d));
  for (const [key, label, rate, cpu] of /** @type {const} */ ([
    ['clientCredentials', 'client_credentials', 'reqPerS', 'serverCpuMsPerRequest'],
    ['authCode', 'auth-code round trips', 'roundTripsPerS', 'serverCpuMsPerRoundTrip'],
  ])) {
    if (!r.bare[key]) continue;
    const b = r.bare[key];
    console.log(
      `\n${label}: rate, ÷ bare; server CPU ms (main thread) per request, bare's ÷ ours; p99; peak RSS`,
    );
    for (const name of Object.keys(servers)) {
      const x = r[name][key];
      const main =
        x.server.mainThreadCores == null
          ? null
          : (x.server.mainThreadCores * x.durationS * 1000) / (x.ok ?? x.roundTrips);
      console.log(
        `${name.padEnd(12)} ${f2(x[rate], 0).padStart(6)}/s ${f2(x[rate] / b[rate])}×  CPU ${f2(x[cpu])} ms (${f2(main)}) ${f2(b[cpu] / x[cpu])}×  p99 ${f2(x.latencyMs.p99, 1)} ms  RSS ${f2(x.server.peakRssMB, 1)} MiB  others ${f2(x.otherProcessesCpuCores)} cores`,
      );
    }
  }
  for (const s of Object.values(servers)) await kill(s.child);
} finally {
  killAll();
}
