// Cold start: process spawn → `listening on` line → first successful client_credentials token.
import { kill } from './children.js';
import { clientCredentials, endpoints, jwtAlgs, until200 } from './http.js';
import { startMockIdp } from './mock-idp.js';
import { median, round } from './stats.js';

/**
 * @param {{ runs: number, extra?: string[] }} opts `extra` CLI flags (e.g. a fixed `--key`)
 */
export async function measureColdStart({ runs, extra = [] }) {
  /** @type {number[]} */ const toListen = [];
  /** @type {number[]} */ const toToken = [];
  /** @type {Record<string, number>} */ let algs = {};
  for (let i = 0; i < runs; i++) {
    const server = await startMockIdp({ extra });
    try {
      const { token } = endpoints(server.base);
      const { res, t } = await until200(() => clientCredentials(token), 10000, 2);
      toListen.push(server.tReady - server.t0);
      toToken.push(t - server.t0);
      algs = jwtAlgs(res.body);
    } finally {
      await kill(server.child);
    }
  }
  return {
    runs,
    spawnToListeningMs: { median: round(median(toListen)), all: toListen.map((x) => round(x)) },
    spawnToFirstTokenMs: { median: round(median(toToken)), all: toToken.map((x) => round(x)) },
    clientCredentialsJwtAlgs: algs,
  };
}
