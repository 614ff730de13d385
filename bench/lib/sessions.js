// Session memory and the paginated session listing: a process with 100,000 live browser sessions
// (bench/lib/sessions-child.js makes them as real sign-ins leave them), its resident memory, and
// GET /mock/sessions?limit=100 walked over every page at that size, each page timed.
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { kill, spawnNode } from './children.js';
import { request } from './http.js';
import { ROOT } from './mock-idp.js';
import { median, percentile, round } from './stats.js';

/** @param {number | undefined} pid @returns {number | null} VmRSS in MiB */
function rssMiB(pid) {
  try {
    const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
    return kb > 0 ? round(kb / 1024) : null;
  } catch {
    return null;
  }
}

/**
 * Starts a process with `count` sessions and resolves once they exist.
 * @param {number} count
 */
async function withSessions(count) {
  const t0 = performance.now();
  const started = await spawnNode(['bench/lib/sessions-child.js', String(count)], {
    cwd: ROOT,
    ready: /listening on (\S+)[\s\S]*sessions \d+/,
    timeoutMs: 600_000,
  });
  return {
    ...started,
    base: /** @type {string} */ (started.match[1]),
    createS: (performance.now() - t0) / 1000,
  };
}

/**
 * Walks every page of `limit`; returns each page's time and how many distinct sessions it saw.
 * @param {string} base @param {number} limit
 */
async function walk(base, limit) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  /** @type {number[]} */ const ms = [];
  const seen = new Set();
  let cursor = null;
  try {
    do {
      const url = `${base}/mock/sessions?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`;
      const t = performance.now();
      const res = await request(url, { agent });
      ms.push(performance.now() - t);
      if (res.status !== 200) throw new Error(`GET ${url}: HTTP ${res.status} ${res.body.slice(0, 300)}`);
      const page = JSON.parse(res.body);
      for (const s of page.sessions) seen.add(s.id);
      cursor = page.nextCursor;
    } while (cursor);
  } finally {
    agent.destroy();
  }
  return {
    pages: ms.length,
    seen: seen.size,
    pageMs: { median: round(median(ms)), p99: round(percentile(ms, 99)), max: round(Math.max(...ms)) },
  };
}

/**
 * @param {{ count?: number }} [opts]
 */
export async function measureSessions({ count = 100_000 } = {}) {
  const empty = await withSessions(0);
  await sleep(1000);
  const emptyRssMiB = rssMiB(empty.child.pid);
  await kill(empty.child);

  const full = await withSessions(count);
  try {
    await sleep(1000);
    const rss = rssMiB(full.child.pid);
    const first = await walk(full.base, 100);
    const big = await walk(full.base, 1000);
    // The unpaginated list of everything, for comparison (one big JSON body).
    const t = performance.now();
    const all = await request(`${full.base}/mock/sessions`, { timeoutMs: 120_000 });
    const unpaginatedMs = performance.now() - t;
    return {
      count,
      createS: round(full.createS),
      rssMiB: rss,
      emptyRssMiB,
      bytesPerSession:
        rss == null || emptyRssMiB == null ? null : Math.round(((rss - emptyRssMiB) * 2 ** 20) / count),
      limit100: first,
      limit1000: big,
      unpaginated: { ms: round(unpaginatedMs), bodyMB: round(all.body.length / 2 ** 20), status: all.status },
    };
  } finally {
    await kill(full.child);
  }
}

const fmt = (/** @type {number | null | undefined} */ x, unit = '', d = 0) =>
  x == null
    ? 'n/a'
    : `${x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d })}${unit}`;

/**
 * The table rows of this section.
 * @param {any} s @returns {import('./report.js').Row[]}
 */
export function sessionRows(s) {
  if (s == null) return [];
  if (s.error) return [{ metric: 'sessions: 100,000 live', value: `failed: ${s.error}` }];
  const n = fmt(s.count);
  const walked = (/** @type {any} */ w) =>
    `${fmt(w.pageMs.median, '', 1)} / ${fmt(w.pageMs.p99, '', 1)} / ${fmt(w.pageMs.max, ' ms', 1)} (${fmt(w.pages)} pages, ${fmt(w.seen)} seen)`;
  return [
    {
      metric: `${n} live browser sessions: process RSS (no sessions: ${fmt(s.emptyRssMiB, ' MiB')})`,
      value: `${fmt(s.rssMiB, ' MiB')}, ~${fmt(s.bytesPerSession)} B/session`,
      target: '≤ 150 MiB',
      status: s.rssMiB == null ? 'n/a' : s.rssMiB <= 150 ? 'PASS' : 'MISS',
    },
    {
      metric: `  GET /mock/sessions?limit=100 over every page at ${n}: median / p99 / max`,
      value: walked(s.limit100),
      target: 'p99 < 50 ms, all seen',
      status: s.limit100.pageMs.p99 < 50 && s.limit100.seen === s.count ? 'PASS' : 'MISS',
    },
    { metric: `  the same with limit=1000`, value: walked(s.limit1000) },
    {
      metric: `  unpaginated GET /mock/sessions at ${n} (for comparison)`,
      value: `${fmt(s.unpaginated.ms, ' ms')}, ${fmt(s.unpaginated.bodyMB, ' MB', 1)}`,
    },
  ];
}
