// Load generators: autocannon for single requests, a bounded concurrent loop for the auth-code round trip.
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { sampleProc } from './children.js';
import { basicAuth, FORM, request, USER, WEB } from './http.js';
import { percentile, round } from './stats.js';

/** Server memory and CPU, and the load generator's CPU, over the measured window. */
const procStats = (/** @type {ReturnType<typeof sampleProc>} */ s) => {
  const { peakRssMB, cpuCores, mainThreadCores, selfCpuCores, otherCpuCores } = s.stop();
  return {
    server: { peakRssMB, cpuCores, mainThreadCores },
    loadGeneratorCpuCores: selfCpuCores,
    otherProcessesCpuCores: otherCpuCores,
  };
};

/** @param {number[]} lat milliseconds */
const latencyStats = (lat) => ({
  p50: round(percentile(lat, 50), 2),
  p90: round(percentile(lat, 90), 2),
  p99: round(percentile(lat, 99), 2),
  max: round(percentile(lat, 100), 2),
});

/**
 * An autocannon load on one URL that can run in slices (to interleave two servers on a shared
 * machine, so that both see the same background load); `result()` merges the slices exactly.
 * `pid` is the server's process, sampled during measured slices.
 * @param {{ url: string, headers: Record<string, string>, body: string, connections: number, pid: number | undefined }} o
 */
export function cannon({ url, headers, body, connections, pid }) {
  const opts = { url, method: /** @type {const} */ ('POST'), headers, body, connections, timeout: 10 };
  /** @type {number[]} */ const lat = [];
  /** @type {any[]} */ const slices = [];
  const run = (/** @type {number} */ seconds, /** @type {number[] | null} */ into) =>
    new Promise((resolve, reject) => {
      const instance = autocannon({ ...opts, duration: seconds }, (err, r) =>
        err ? reject(err) : resolve(r),
      );
      if (into) {
        instance.on('response', (_client, status, _bytes, ms) => {
          if (status >= 200 && status < 300 && into.length < 2_000_000) into.push(ms);
        });
      }
    });
  return {
    /** A discarded run, for JIT and caches. @param {number} seconds */
    async warmup(seconds) {
      if (seconds > 0) await run(seconds, null);
    },
    /** One measured slice. @param {number} seconds */
    async slice(seconds) {
      const proc = sampleProc(pid);
      const r = /** @type {any} */ (await run(seconds, lat));
      slices.push({ ...procStats(proc), durationS: r.duration, requests: r.requests.total, ok: r['2xx'], r });
    },
    result() {
      const sum = (/** @type {(x: any) => number} */ f) => slices.reduce((a, x) => a + (f(x) ?? 0), 0);
      const seconds = sum((x) => x.durationS);
      const avg = (/** @type {(x: any) => number | null} */ f) =>
        slices.some((x) => f(x) === null) ? null : round(sum((x) => f(x) * x.durationS) / seconds, 2);
      const ok = sum((x) => x.ok);
      const cpuSeconds = slices.some((x) => x.server.cpuCores === null)
        ? null
        : sum((x) => x.server.cpuCores * x.durationS);
      return {
        serverCpuMsPerRequest: cpuSeconds === null ? null : round((cpuSeconds / ok) * 1000, 3),
        server: {
          peakRssMB: Math.max(...slices.map((x) => x.server.peakRssMB ?? 0)) || null,
          cpuCores: avg((x) => x.server.cpuCores),
          mainThreadCores: avg((x) => x.server.mainThreadCores),
        },
        loadGeneratorCpuCores: avg((x) => x.loadGeneratorCpuCores),
        otherProcessesCpuCores: avg((x) => x.otherProcessesCpuCores),
        connections,
        slices: slices.length,
        durationS: round(seconds, 2),
        requests: sum((x) => x.requests),
        ok,
        non2xx: sum((x) => x.r.non2xx),
        errors: sum((x) => x.r.errors),
        timeouts: sum((x) => x.r.timeouts),
        reqPerS: round(ok / seconds),
        latencyMs: latencyStats(lat),
      };
    },
  };
}

/**
 * One authorization-code round trip: authorize (login_hint → 302 with code), then the code exchange.
 * @param {{ auth: string, token: string }} ep @param {http.Agent} agent @param {number} n
 * @returns {Promise<string>} the token response body
 */
export async function authCodeRoundTrip(ep, agent, n) {
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: WEB.id,
    redirect_uri: WEB.redirectUri,
    scope: 'openid',
    state: `s${n}`,
    nonce: `n${n}`,
    login_hint: USER,
  });
  const a = await request(`${ep.auth}?${q}`, { agent });
  const location = a.headers.location;
  if (a.status !== 302 || !location) throw new Error(`authorize: HTTP ${a.status} ${a.body.slice(0, 300)}`);
  const code = new URL(location).searchParams.get('code');
  if (!code) throw new Error(`authorize: no code in ${location}`);
  const t = await request(ep.token, {
    method: 'POST',
    agent,
    headers: { 'content-type': FORM, authorization: basicAuth(WEB) },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: WEB.redirectUri,
    }).toString(),
  });
  if (t.status !== 200) throw new Error(`code exchange: HTTP ${t.status} ${t.body.slice(0, 300)}`);
  return t.body;
}

/**
 * `concurrency` lanes doing round trips back to back, for `durationS` seconds (and at most `maxCount`).
 * @param {{ auth: string, token: string }} ep
 * @param {{ concurrency: number, durationS: number, warmupS: number, pid: number | undefined, maxCount?: number }} o
 */
export async function authCodeLoad(ep, { concurrency, durationS, warmupS, pid, maxCount = 500_000 }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  try {
    const run = async (/** @type {number} */ seconds) => {
      /** @type {number[]} */ const lat = [];
      let errors = 0;
      /** @type {string | undefined} */ let firstError;
      let n = 0;
      const start = performance.now();
      const end = start + seconds * 1000;
      const lane = async () => {
        while (n < maxCount && performance.now() < end && errors < 1000) {
          const t0 = performance.now();
          try {
            await authCodeRoundTrip(ep, agent, n++);
            lat.push(performance.now() - t0);
          } catch (err) {
            errors++;
            firstError ??= /** @type {Error} */ (err).message;
          }
        }
      };
      await Promise.all(Array.from({ length: concurrency }, lane));
      return { lat, errors, firstError, seconds: (performance.now() - start) / 1000 };
    };
    if (warmupS > 0) await run(warmupS);
    const proc = sampleProc(pid);
    const { lat, errors, firstError, seconds } = await run(durationS);
    const stats = procStats(proc);
    return {
      ...stats,
      serverCpuMsPerRoundTrip:
        stats.server.cpuCores === null
          ? null
          : round(((stats.server.cpuCores * seconds) / lat.length) * 1000, 3),
      concurrency,
      durationS: round(seconds, 2),
      roundTrips: lat.length,
      errors,
      firstError,
      roundTripsPerS: round(lat.length / seconds),
      latencyMs: latencyStats(lat),
    };
  } finally {
    agent.destroy();
  }
}
