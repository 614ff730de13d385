// Process entry of the CLI (bundled into dist/cli.mjs): the ephemeral signing key starts generating on the
// thread pool before the rest of the program loads, so the two overlap at cold start.
import { isMainThread, workerData } from 'node:worker_threads';
import { startEphemeralKey } from '../keys/ephemeral.js';

// A fixtures worker (src/fixtures/parse-worker.ts) loads this bundle too: load the module that runs its job
// (the bundle initialises modules lazily, so the worker's own top-level check would not run).
if (
  !isMainThread &&
  (workerData as { mockIdpFixturesWorker?: unknown } | null)?.mockIdpFixturesWorker === true
)
  void import('../fixtures/parse-worker.js');

const ONE_SHOT = new Set(['check', 'keygen', 'token', 'users', 'help', '--help', '-h', '--version', '-V']);

/** Runs the CLI; resolves to an exit code, or undefined while a server runs. */
export async function main(argv: string[]): Promise<number | undefined> {
  if (!ONE_SHOT.has(argv[0] ?? '') && !argv.includes('--key')) startEphemeralKey();
  const { runCli } = await import('./program.js');
  return runCli(argv);
}
