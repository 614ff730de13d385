// Minimal HTTP/1.1 client over node:http (no extra dependency), JWT inspection and the bench's requests.
import { Buffer } from 'node:buffer';
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';

/** Client ids and secrets from bench/fixtures.yaml. */
export const MACHINE = { id: 'bench-machine', secret: 'bench-machine-secret' };
export const WEB = { id: 'bench-web', secret: 'bench-web-secret', redirectUri: 'http://127.0.0.1/cb' };
export const USER = 'bench-user';

/** @param {{ id: string, secret: string }} client */
export const basicAuth = (client) =>
  'Basic ' +
  Buffer.from(`${encodeURIComponent(client.id)}:${encodeURIComponent(client.secret)}`).toString('base64');

export const CC_BODY = 'grant_type=client_credentials';
export const FORM = 'application/x-www-form-urlencoded';

/**
 * @typedef {{ status: number, headers: import('node:http').IncomingHttpHeaders, body: string }} Res
 * @param {string} url
 * @param {{ method?: string, headers?: Record<string, string>, body?: string, agent?: http.Agent | false, timeoutMs?: number }} [opts]
 * @returns {Promise<Res>}
 */
export function request(url, { method = 'GET', headers = {}, body, agent = false, timeoutMs = 10000 } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers, agent, timeout: timeoutMs }, (res) => {
      let data = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (data += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: data }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`timeout after ${timeoutMs} ms: ${method} ${url}`)));
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * One client_credentials token request (client_secret_basic).
 * @param {string} tokenUrl
 * @param {http.Agent | false} [agent]
 */
export function clientCredentials(tokenUrl, agent = false) {
  return request(tokenUrl, {
    method: 'POST',
    agent,
    headers: { 'content-type': FORM, authorization: basicAuth(MACHINE) },
    body: CC_BODY,
  });
}

/**
 * Retries `fn` until it answers 200, for at most `deadlineMs`; connection errors count as "not yet".
 * @param {() => Promise<Res>} fn
 * @returns {Promise<{ res: Res, t: number }>} the answer and when it arrived (performance.now())
 */
export async function until200(fn, deadlineMs = 15000, pauseMs = 5) {
  const end = performance.now() + deadlineMs;
  let last = 'no attempt';
  while (performance.now() < end) {
    try {
      const res = await fn();
      if (res.status === 200) return { res, t: performance.now() };
      last = `HTTP ${res.status} ${res.body.slice(0, 300)}`;
    } catch (err) {
      last = /** @type {Error} */ (err).message;
    }
    await sleep(pauseMs);
  }
  throw new Error(`no 200 within ${deadlineMs} ms (last: ${last})`);
}

/**
 * Counts the JWTs in a token response by their `alg`, e.g. `{ RS256: 2, HS256: 1 }`.
 * @param {string} body JSON token response
 * @returns {Record<string, number>}
 */
export function jwtAlgs(body) {
  /** @type {Record<string, number>} */
  const algs = {};
  for (const value of Object.values(JSON.parse(body))) {
    if (typeof value !== 'string' || !/^[\w-]+\.[\w-]+\.[\w-]*$/.test(value)) continue;
    const header = JSON.parse(Buffer.from(value.split('.')[0] ?? '', 'base64url').toString('utf8'));
    const alg = String(header.alg);
    algs[alg] = (algs[alg] ?? 0) + 1;
  }
  return algs;
}

/** Realm base URL → endpoint URLs. @param {string} base */
export const endpoints = (base) => ({
  token: `${base}/protocol/openid-connect/token`,
  auth: `${base}/protocol/openid-connect/auth`,
  health: `${new URL(base).origin}/health`,
});
