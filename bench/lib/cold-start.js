// Cold start: process spawn → `listening on` line → first successful client_credentials token. Each run also
// times Node's own start (`node -e 0`, spawn → exit), the part of a cold start no change to mock-idp can
// shorten (on a shared host it moves by a quarter from one hour to the next), and oauth2-mock-server's spawn →
// first token, alternated with ours so both see the same load.
import { spawn } from 'node:child_process';
import { kill, spawnNode } from './children.js';
import { clientCredentials, endpoints, jwtAlgs, until200 } from './http.js';
import { ROOT, startMockIdp } from './mock-idp.js';
import { median, round } from './stats.js';

/** Spawn → exit of `node -e 0`, in ms. @returns {Promise<number>} */
function nodeStart() {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve(performance.now() - t0) : reject(new Error(`node -e 0 exited ${String(code)}`)),
    );
  });
}

/**
 * @param {{ runs: number, extra?: string[] }} opts `extra` CLI flags (e.g. a fixed `--key`)
 */
export async function measureColdStart({ runs, extra = [] }) {
  /** @type {number[]} */ const toListen = [];
  /** @type {number[]} */ const toToken = [];
  /** @type {number[]} */ const nodeOnly = [];
  /** @type {number[]} */ const peerToToken = [];
  /** @type {Record<string, number>} */ let algs = {};
  for (let i = 0; i < runs; i++) {
    nodeOnly.push(await nodeStart());
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
    const peer = await spawnNode(['bench/oauth2-mock-server.js'], { cwd: ROOT, ready: /port (\d+)/ });
    try {
      const { t } = await until200(
        () => clientCredentials(`http://127.0.0.1:${peer.match[1]}/token`),
        10000,
        2,
      );
      peerToToken.push(t - peer.t0);
    } finally {
      await kill(peer.child);
    }
  }
  return {
    runs,
    spawnToListeningMs: { median: round(median(toListen)), all: toListen.map((x) => round(x)) },
    spawnToFirstTokenMs: { median: round(median(toToken)), all: toToken.map((x) => round(x)) },
    nodeOnlyMs: { median: round(median(nodeOnly)), all: nodeOnly.map((x) => round(x)) },
    peerSpawnToFirstTokenMs: { median: round(median(peerToToken)), all: peerToToken.map((x) => round(x)) },
    clientCredentialsJwtAlgs: algs,
  };
}
