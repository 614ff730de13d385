// Worker body for the signing limit: RS256 (RSA-2048 PKCS#1 v1.5, SHA-256) signatures in a tight loop.
import { Buffer } from 'node:buffer';
import { createPrivateKey, sign } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';

const { pem, durationMs, maxCount } = workerData;
const key = createPrivateKey(pem);
const input = Buffer.from('eyJhbGciOiJSUzI1NiJ9.'.padEnd(600, 'x'));
for (let i = 0; i < 20; i++) sign('sha256', input, key); // warm up
const start = performance.now();
const end = start + durationMs;
let count = 0;
while (count < maxCount && performance.now() < end) {
  sign('sha256', input, key);
  count++;
}
parentPort?.postMessage({ count, ms: performance.now() - start });
