// `node bench/readme-table.js [results.json]`: prints the README's Performance table (markdown) from a bench run's
// results: bench/results/latest.json by default (a full run); a `--speed` run's speed.json has no cold start.
import { readFileSync } from 'node:fs';

const file = process.argv[2] ?? new URL('./results/latest.json', import.meta.url);
const r = JSON.parse(readFileSync(file, 'utf8'));

/** A figure as the README prints it, or — for one the run did not measure. */
const fmt = (/** @type {number | null | undefined} */ x, unit = '', digits = 0) =>
  x == null
    ? '—'
    : `${x.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })}${unit}`;

const servers = [r.mockIdp, r.bare, r.oauth2MockServer];
const line = (/** @type {string[]} */ cells) => `| ${cells.join(' | ')} |`;
const row = (/** @type {string} */ label, /** @type {(x: any) => string} */ f) =>
  line([label, ...servers.map(f)]);
const conn = r.mockIdp?.clientCredentials?.connections ?? 16;
// The bench starts mock-idp and oauth2-mock-server cold (the bare server issues no token of its own making).
const firstToken = fmt(r.coldStart?.spawnToFirstTokenMs?.median, ' ms');
const peerFirstToken = fmt(r.coldStart?.peerSpawnToFirstTokenMs?.median, ' ms');

console.log(
  [
    line(['', 'mock-idp', 'bare `node:http`', `oauth2-mock-server ${r.oauth2MockServer?.version ?? ''}`]),
    line(['---', '---:', '---:', '---:']),
    row(`client_credentials req/s, ${conn} connections`, (x) => fmt(x?.clientCredentials?.reqPerS)),
    row(`authorization-code round trips/s, ${conn} lanes`, (x) => fmt(x?.authCode?.roundTripsPerS)),
    row('p99 client_credentials', (x) => fmt(x?.clientCredentials?.latencyMs?.p99, ' ms', 1)),
    row('p99 auth-code round trip', (x) => fmt(x?.authCode?.latencyMs?.p99, ' ms', 1)),
    row('peak RSS under load', (x) => fmt(x?.peakRssMB, ' MiB', 1)),
    line([
      `spawn → first client_credentials token, median of ${r.coldStart?.runs ?? 7}`,
      firstToken,
      '—',
      peerFirstToken,
    ]),
  ].join('\n'),
);
