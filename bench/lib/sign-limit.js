// The physical limit: raw RSA-2048 RS256 signatures per second on this machine, over all cores.
import { Buffer } from 'node:buffer';
import { generateKeyPairSync, webcrypto } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { sampleProc } from './children.js';

const MAX_COUNT = 1_000_000;

/**
 * Sync crypto.sign in `threads` worker threads, each for `durationMs`.
 * @param {string} pem @param {number} threads @param {number} durationMs
 */
async function syncWorkers(pem, threads, durationMs) {
  const runs = await Promise.all(
    Array.from({ length: threads }, () => {
      const worker = new Worker(new URL('./sign-worker.js', import.meta.url), {
        workerData: { pem, durationMs, maxCount: MAX_COUNT },
      });
      return new Promise((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
      }).finally(() => worker.terminate());
    }),
  );
  return runs.reduce((sum, /** @type {{count: number, ms: number}} */ r) => sum + (r.count / r.ms) * 1000, 0);
}

/**
 * Async WebCrypto signs with `inFlight` concurrent operations (libuv thread pool), for `durationMs`.
 * @param {string} pem @param {number} inFlight @param {number} durationMs
 */
async function webcryptoAsync(pem, inFlight, durationMs) {
  const der = Buffer.from(pem.replace(/-----[^-]+-----|\s/g, ''), 'base64');
  const key = await webcrypto.subtle.importKey(
    'pkcs8',
    der,
    { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const input = Buffer.from('eyJhbGciOiJSUzI1NiJ9.'.padEnd(600, 'x'));
  const sign = () => webcrypto.subtle.sign('RSASSA-PKCS1-v1_5', key, input);
  for (let i = 0; i < 20; i++) await sign();
  const start = performance.now();
  const end = start + durationMs;
  let count = 0;
  const lane = async () => {
    while (count < MAX_COUNT && performance.now() < end) {
      await sign();
      count++;
    }
  };
  await Promise.all(Array.from({ length: inFlight }, lane));
  return (count / (performance.now() - start)) * 1000;
}

/**
 * @param {{ durationMs: number }} opts
 * @returns {Promise<{ cores: number, singleThread: number, syncWorkers: number, webcrypto: number, limit: number, best: string, otherProcessesCpuCores: number | null }>}
 */
export async function measureSigningLimit({ durationMs }) {
  const cores = availableParallelism();
  const proc = sampleProc(process.pid);
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = /** @type {string} */ (privateKey.export({ type: 'pkcs8', format: 'pem' }));
  const singleThread = await syncWorkers(pem, 1, Math.min(durationMs, 1000));
  const sync = await syncWorkers(pem, cores, durationMs);
  const async_ = await webcryptoAsync(pem, 64, durationMs);
  const best = sync >= async_ ? `crypto.sign in ${cores} worker threads` : 'WebCrypto, 64 in flight';
  return {
    cores,
    singleThread: Math.round(singleThread),
    syncWorkers: Math.round(sync),
    webcrypto: Math.round(async_),
    limit: Math.round(Math.max(sync, async_)),
    best,
    otherProcessesCpuCores: proc.stop().otherCpuCores,
  };
}
