// Starting mock-idp (bin/mock-idp.js) as a child process with the bench fixtures.
import { fileURLToPath } from 'node:url';
import { spawnNode } from './children.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const FIXTURES = 'bench/fixtures.yaml';
/** The CLI to start; MOCK_IDP_BIN overrides it (e.g. to measure another build). */
export const BIN = process.env.MOCK_IDP_BIN || 'bin/mock-idp.js';
const READY = /listening on (http:\/\/127\.0\.0\.1:\d+\/realms\/[\w.-]+)/;

/**
 * Spawns `node [nodeFlags] bin/mock-idp.js --port 0 --fixtures bench/fixtures.yaml --quiet [extra]`.
 * @param {{ nodeFlags?: string[], extra?: string[], timeoutMs?: number, fixtures?: string, bin?: string }} [opts]
 * @returns {Promise<{ child: import('node:child_process').ChildProcess, base: string, t0: number, tReady: number }>}
 */
export async function startMockIdp({
  nodeFlags = [],
  extra = [],
  timeoutMs,
  fixtures = FIXTURES,
  bin = BIN,
} = {}) {
  const args = [...nodeFlags, bin, '--port', '0', '--fixtures', fixtures, '--quiet', ...extra];
  const { child, match, t0, tReady } = await spawnNode(args, { cwd: ROOT, ready: READY, timeoutMs });
  return { child, base: /** @type {string} */ (match[1]), t0, tReady };
}
