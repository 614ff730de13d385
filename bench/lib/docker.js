// Docker: start-to-healthy of the image (docker run → /health 200) and the image size; skipped without Docker.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { removeContainer, trackContainer } from './children.js';
import { endpoints, request, until200 } from './http.js';
import { median, round } from './stats.js';

const run = promisify(execFile);
/** @param {string[]} args */
const docker = async (args, timeout = 30000) => (await run('docker', args, { timeout })).stdout.trim();

/** The runtime stage's base (the Dockerfile's last FROM) and its size, when it is present locally. */
async function baseImageSize() {
  try {
    const dockerfile = readFileSync(new URL('../../Dockerfile', import.meta.url), 'utf8');
    const image = [...dockerfile.matchAll(/^FROM\s+(\S+)/gm)].at(-1)?.[1];
    if (!image) return null;
    return { image, size: Number(await docker(['image', 'inspect', '--format', '{{.Size}}', image])) };
  } catch {
    return null;
  }
}

/**
 * @param {{ runs: number }} opts
 * @returns {Promise<{ skipped: string } | { image: string, imageSizeMB: number | null, baseImage?: string, appLayersMB?: number | null, runs: number, startToHealthyMs: { median: number | null, all: (number | null)[] } }>}
 */
export async function measureDocker({ runs }) {
  // MOCK_IDP_IMAGE, else the first local one of mock-idp:latest and mock-idp:local (.ci/docker.sh's tag).
  const candidates = process.env.MOCK_IDP_IMAGE
    ? [process.env.MOCK_IDP_IMAGE]
    : ['mock-idp:latest', 'mock-idp:local'];
  try {
    await docker(['info', '--format', '{{.ServerVersion}}'], 15000);
  } catch (err) {
    return { skipped: `docker info failed: ${/** @type {Error} */ (err).message.split('\n')[0]}` };
  }
  let image = '';
  let size = NaN;
  for (const candidate of candidates) {
    try {
      size = Number(await docker(['image', 'inspect', '--format', '{{.Size}}', candidate]));
      image = candidate;
      break;
    } catch {
      // not built
    }
  }
  if (!image) return { skipped: `no image ${candidates.join(' or ')} (build one, or set MOCK_IDP_IMAGE)` };
  const base = await baseImageSize();
  /** @type {number[]} */ const times = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const id = await docker(['run', '-d', '--rm', '--pull', 'never', '-p', '127.0.0.1::8080', image]);
    trackContainer(id);
    try {
      const hostPort = (await docker(['port', id, '8080/tcp'])).split('\n')[0] ?? '';
      const port = /:(\d+)$/.exec(hostPort)?.[1];
      if (!port) throw new Error(`no published port for 8080 (${hostPort})`);
      const { health } = endpoints(`http://127.0.0.1:${port}/realms/mock`);
      const { t } = await until200(() => request(health, { timeoutMs: 1000 }), 30000, 10);
      times.push(t - t0);
    } catch (err) {
      let logs = '';
      try {
        logs = (await run('docker', ['logs', '--tail', '20', id], { timeout: 10000 })).stderr;
      } catch {
        // container gone
      }
      throw new Error(`${/** @type {Error} */ (err).message}\n${logs}`);
    } finally {
      removeContainer(id);
    }
  }
  return {
    image,
    imageSizeMB: round(size / 1e6),
    ...(base ? { baseImage: base.image, appLayersMB: round((size - base.size) / 1e6) } : {}),
    runs,
    startToHealthyMs: { median: round(median(times)), all: times.map((x) => round(x)) },
  };
}
