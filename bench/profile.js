// `node bench/profile.js [--seconds N] [--flow cc|code|both|startup] [--connections N]`: runs mock-idp under `node --cpu-prof`,
// loads it like `npm run bench` (or, for `startup`, only up to the first token), and prints where the
// main thread spent its time (self and inclusive).
// Signing on the libuv thread pool does not show here; it shows as the server's CPU beyond one core.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { kill, killAll } from './lib/children.js';
import { basicAuth, CC_BODY, clientCredentials, endpoints, FORM, MACHINE, until200 } from './lib/http.js';
import { authCodeLoad, cannon } from './lib/load.js';
import { ROOT, startMockIdp } from './lib/mock-idp.js';

const argv = process.argv.slice(2);
const opt = (/** @type {string} */ name, /** @type {string} */ dflt) => {
  const i = argv.indexOf(name);
  return i >= 0 && argv[i + 1] ? /** @type {string} */ (argv[i + 1]) : dflt;
};
const seconds = Math.min(60, Math.max(1, Number(opt('--seconds', '8'))));
const flow = opt('--flow', 'both');
// Fewer connections than the bench's 16 keep a loaded machine from descheduling the server mid-function, which
// a wall-clock sampling profile would charge to whatever function was running.
const connections = Math.max(1, Number(opt('--connections', '16')));
const DIR = fileURLToPath(new URL('./results/profile/', import.meta.url));

/** @typedef {{ id: number, callFrame: { functionName: string, url: string, lineNumber: number }, children?: number[] }} ProfNode */

/** Where a frame's code lives: a package, a project file, a Node internal, or a VM pseudo-frame. @param {ProfNode} n */
function moduleOf(n) {
  const url = n.callFrame.url;
  const name = n.callFrame.functionName;
  if (!url) return name.startsWith('(') ? name : `(native ${name || 'code'})`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return `npm:${pkg[1]}`;
  if (url.startsWith('node:'))
    return url
      .replace(/^node:(internal\/)?/, 'node:')
      .split('/')
      .slice(0, 2)
      .join('/');
  return url.replace(/^file:\/\//, '').replace(ROOT, '');
}

/** @param {ProfNode} n */
const fnKey = (n) =>
  `${n.callFrame.functionName || '(anonymous)'} ${moduleOf(n)}${n.callFrame.url ? `:${n.callFrame.lineNumber + 1}` : ''}`;

/**
 * Self and inclusive milliseconds per function and per module.
 * @param {{ nodes: ProfNode[], samples: number[], timeDeltas: number[] }} prof
 */
export function summarize(prof) {
  /** @type {Map<number, ProfNode>} */ const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  /** @type {Map<number, number>} */ const parent = new Map();
  for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  /** @type {Map<string, number>} */ const self = new Map();
  /** @type {Map<string, number>} */ const incl = new Map();
  /** @type {Map<string, number>} */ const mods = new Map();
  let total = 0;
  const add = (/** @type {Map<string, number>} */ m, /** @type {string} */ k, /** @type {number} */ v) =>
    m.set(k, (m.get(k) ?? 0) + v);
  prof.samples.forEach((id, i) => {
    const ms = (prof.timeDeltas[i + 1] ?? prof.timeDeltas[i] ?? 0) / 1000;
    const node = byId.get(id);
    if (!node) return;
    total += ms;
    add(self, fnKey(node), ms);
    add(mods, moduleOf(node), ms);
    const seen = new Set();
    for (let cur = /** @type {number | undefined} */ (id); cur !== undefined; cur = parent.get(cur)) {
      const n = byId.get(cur);
      if (!n || n.callFrame.functionName === '(root)') break;
      const k = fnKey(n);
      if (!seen.has(k)) add(incl, k, ms);
      seen.add(k);
    }
  });
  const top = (
    /** @type {Map<string, number>} */ m,
    /** @type {number} */ k,
    filter = (/** @type {string} */ name) => name.length >= 0,
  ) =>
    [...m]
      .filter(([name]) => filter(name))
      .sort((a, b) => b[1] - a[1])
      .slice(0, k)
      .map(([name, ms]) => ({ name, ms: Math.round(ms), pct: Math.round((ms / total) * 1000) / 10 }));
  const busy = total - (mods.get('(idle)') ?? 0);
  return {
    totalMs: Math.round(total),
    busyMs: Math.round(busy),
    selfByModule: top(mods, 20),
    selfByFunction: top(self, 25),
    inclusiveProjectFunctions: top(incl, 30, (name) => / dist\//.test(name)),
  };
}

async function main() {
  rmSync(DIR, { recursive: true, force: true });
  mkdirSync(DIR, { recursive: true });
  const server = await startMockIdp({ nodeFlags: ['--cpu-prof', '--cpu-prof-dir', DIR] });
  const pid = server.child.pid;
  const ep = endpoints(server.base);
  /** @type {Record<string, unknown>} */ const load = {};
  try {
    if (flow === 'startup') {
      const { t } = await until200(() => clientCredentials(ep.token), 10000, 2);
      load.spawnToFirstTokenMs = Math.round(t - server.t0);
    } else if (flow !== 'code') {
      const headers = { 'content-type': FORM, authorization: basicAuth(MACHINE) };
      const c = cannon({ url: ep.token, headers, body: CC_BODY, connections, pid });
      await c.slice(seconds);
      load.clientCredentials = c.result();
    }
    if (flow === 'code' || flow === 'both')
      load.authCode = await authCodeLoad(ep, {
        concurrency: connections,
        durationS: seconds,
        warmupS: 0,
        pid,
      });
  } finally {
    await kill(server.child, 10000);
  }
  const file = readdirSync(DIR).find((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error(`no .cpuprofile in ${DIR}: the server did not exit cleanly on SIGTERM`);
  const summary = { flow, seconds, load, ...summarize(JSON.parse(readFileSync(DIR + file, 'utf8'))) };
  writeFileSync(`${DIR}summary.json`, JSON.stringify(summary, null, 2) + '\n');
  const show = (
    /** @type {string} */ title,
    /** @type {{ name: string, ms: number, pct: number }[]} */ rows,
  ) => {
    console.log(`\n${title}`);
    for (const r of rows)
      console.log(`${String(r.pct.toFixed(1)).padStart(6)} %  ${String(r.ms).padStart(7)} ms  ${r.name}`);
  };
  console.log(`profile: ${DIR}${file}; main thread ${summary.busyMs} ms busy of ${summary.totalMs} ms`);
  show('self time by module', summary.selfByModule);
  show('self time by function', summary.selfByFunction);
  show('inclusive time, project functions (dist/)', summary.inclusiveProjectFunctions);
}

try {
  await main();
} finally {
  killAll();
}
