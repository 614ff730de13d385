// mock-idp, the bare node:http baseline (bench/bare.js) and oauth2-mock-server side by side in one run: both flows
// in alternating slices (ours, bare, peer, ours, ...), so all three see the same background load on a shared
// machine. Each server's CPU time is sampled too: CPU per request is the steadier figure when others are busy.
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { readFileSync } from 'node:fs';
import { kill, sampleProc, spawnNode } from './children.js';
import { basicAuth, CC_BODY, clientCredentials, endpoints, FORM, jwtAlgs, MACHINE } from './http.js';
import { authCodeRoundTrip, cannon } from './load.js';
import { ROOT, startMockIdp } from './mock-idp.js';
import { percentile, round } from './stats.js';

/** The three contestants, in the order of the slices. */
export const SERVERS = /** @type {const} */ (['mockIdp', 'bare', 'oauth2MockServer']);

/**
 * The auth-code round trip as a sliced load, like `cannon`: `concurrency` lanes back to back.
 * @param {{ auth: string, token: string }} ep @param {{ concurrency: number, pid: number | undefined }} o
 */
function codeLanes(ep, { concurrency, pid }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  /** @type {number[]} */ const lat = [];
  /** @type {any[]} */ const slices = [];
  let n = 0;
  let errors = 0;
  /** @type {string | undefined} */ let firstError;
  const run = async (/** @type {number} */ seconds, /** @type {number[] | null} */ into) => {
    const start = performance.now();
    const end = start + seconds * 1000;
    let count = 0;
    const lane = async () => {
      while (performance.now() < end && errors < 1000) {
        const t0 = performance.now();
        try {
          await authCodeRoundTrip(ep, agent, n++);
          count++;
          if (into && into.length < 2_000_000) into.push(performance.now() - t0);
        } catch (err) {
          errors++;
          firstError ??= /** @type {Error} */ (err).message;
        }
      }
    };
    await Promise.all(Array.from({ length: concurrency }, lane));
    return { count, seconds: (performance.now() - start) / 1000 };
  };
  return {
    /** @param {number} seconds */
    async warmup(seconds) {
      if (seconds > 0) await run(seconds, null);
    },
    /** @param {number} seconds */
    async slice(seconds) {
      const proc = sampleProc(pid);
      const { count, seconds: s } = await run(seconds, lat);
      const { peakRssMB, cpuCores, mainThreadCores, selfCpuCores, otherCpuCores } = proc.stop();
      slices.push({ count, s, peakRssMB, cpuCores, mainThreadCores, selfCpuCores, otherCpuCores });
    },
    result() {
      const seconds = slices.reduce((a, x) => a + x.s, 0);
      const count = slices.reduce((a, x) => a + x.count, 0);
      const avg = (/** @type {string} */ k) =>
        slices.some((x) => x[k] === null)
          ? null
          : round(slices.reduce((a, x) => a + x[k] * x.s, 0) / seconds, 2);
      const cpu = avg('cpuCores');
      agent.destroy();
      return {
        serverCpuMsPerRoundTrip:
          cpu === null || count === 0 ? null : round(((cpu * seconds) / count) * 1000, 3),
        server: {
          peakRssMB: Math.max(...slices.map((x) => x.peakRssMB ?? 0)) || null,
          cpuCores: cpu,
          mainThreadCores: avg('mainThreadCores'),
        },
        loadGeneratorCpuCores: avg('selfCpuCores'),
        otherProcessesCpuCores: avg('otherCpuCores'),
        concurrency,
        slices: slices.length,
        durationS: round(seconds, 2),
        roundTrips: count,
        errors,
        firstError,
        roundTripsPerS: round(count / seconds),
        latencyMs: {
          p50: round(percentile(lat, 50), 2),
          p90: round(percentile(lat, 90), 2),
          p99: round(percentile(lat, 99), 2),
          max: round(percentile(lat, 100), 2),
        },
      };
    },
  };
}

/** @param {Promise<import('./http.js').Res>} res @param {string} what */
async function ok200(res, what) {
  const r = await res;
  if (r.status !== 200) throw new Error(`${what}: HTTP ${r.status} ${r.body.slice(0, 300)}`);
  return r;
}

/** RS256 signatures in one response, counted from a real one. @param {string} body */
const algsOf = (body) => {
  const algs = jwtAlgs(body);
  return { jwtAlgs: algs, rs256: algs.RS256 ?? 0 };
};

/**
 * Starts the three servers, checks one response of each flow, then loads them in alternating slices.
 * @param {{ loadS: number, slices: number, warmupS: number, connections: number, log: (msg: string) => void }} o
 */
export async function compareLoads(o) {
  /** @type {Record<string, { base?: string, ep?: { token: string, auth: string }, child: import('node:child_process').ChildProcess }>} */
  const servers = {};
  try {
    const ours = await startMockIdp();
    servers.mockIdp = { base: ours.base, child: ours.child };
    const bare = await spawnNode(['bench/bare.js'], { cwd: ROOT, ready: /port (\d+)/ });
    servers.bare = { base: `http://127.0.0.1:${bare.match[1]}/realms/mock`, child: bare.child };
    const peer = await spawnNode(['bench/oauth2-mock-server.js'], { cwd: ROOT, ready: /port (\d+)/ });
    const peerBase = `http://127.0.0.1:${peer.match[1]}`;
    servers.oauth2MockServer = {
      ep: { token: `${peerBase}/token`, auth: `${peerBase}/authorize` },
      child: peer.child,
    };
    const r = await compareLoadsOf(servers, o);
    r.mockIdp.base = ours.base;
    r.oauth2MockServer.version = JSON.parse(
      readFileSync(`${ROOT}node_modules/oauth2-mock-server/package.json`, 'utf8'),
    ).version;
    return r;
  } finally {
    for (const { child } of Object.values(servers)) await kill(child);
  }
}

/**
 * Loads running servers (a realm base, or explicit endpoints) with both flows in alternating slices, in the
 * order given; `flows` picks `cc` (client_credentials) and/or `code` (the auth-code round trip).
 * @param {Record<string, { base?: string, ep?: { token: string, auth: string }, child: import('node:child_process').ChildProcess }>} servers
 * @param {{ loadS: number, slices: number, warmupS: number, connections: number, log: (msg: string) => void, flows?: string[] }} o
 */
export async function compareLoadsOf(
  servers,
  { loadS, slices, warmupS, connections, log, flows = ['cc', 'code'] },
) {
  const names = Object.keys(servers);
  const headers = { 'content-type': FORM, authorization: basicAuth(MACHINE) };
  /** @type {Record<string, any>} */ const out = {};
  for (const name of names) {
    const s = /** @type {(typeof servers)[string]} */ (servers[name]);
    const ep = s.ep ?? endpoints(/** @type {string} */ (s.base));
    const pid = s.child.pid;
    const cc = algsOf((await ok200(clientCredentials(ep.token), `${name} client_credentials`)).body);
    const agent = new http.Agent({ keepAlive: false });
    const ac = algsOf(await authCodeRoundTrip(ep, agent, 0));
    agent.destroy();
    out[name] = {
      cc,
      ac,
      cannon: cannon({ url: ep.token, headers, body: CC_BODY, connections, pid }),
      lanes: codeLanes(ep, { concurrency: connections, pid }),
    };
  }
  const each = loadS / slices;
  if (flows.includes('cc')) {
    log(`client_credentials: ${connections} connections, ${slices} × ${each} s per server, alternating`);
    for (const name of names) await out[name].cannon.warmup(warmupS);
    for (let i = 0; i < slices; i++) for (const name of names) await out[name].cannon.slice(each);
  }
  if (flows.includes('code')) {
    log(
      `authorization-code round trips: ${connections} lanes, ${slices} × ${each} s per server, alternating`,
    );
    for (const name of names) await out[name].lanes.warmup(warmupS);
    for (let i = 0; i < slices; i++) for (const name of names) await out[name].lanes.slice(each);
  }
  /** @type {Record<string, any>} */ const r = {};
  for (const name of names) {
    const { cc, ac } = out[name];
    const ccRes = flows.includes('cc') ? out[name].cannon.result() : null;
    const acRes = flows.includes('code') ? out[name].lanes.result() : null;
    r[name] = {
      ...(ccRes ? { clientCredentials: { ...ccRes, rs256PerResponse: cc.rs256, jwtAlgs: cc.jwtAlgs } } : {}),
      ...(acRes ? { authCode: { ...acRes, rs256PerRoundTrip: ac.rs256, jwtAlgs: ac.jwtAlgs } } : {}),
      peakRssMB: Math.max(ccRes?.server.peakRssMB ?? 0, acRes?.server.peakRssMB ?? 0) || null,
    };
  }
  return r;
}
