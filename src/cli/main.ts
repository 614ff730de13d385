// Process entry of the CLI (bundled into dist/cli.mjs): the ephemeral signing key starts generating on the
// thread pool before the rest of the program loads, so the two overlap at cold start; so does reading a
// big fixtures file on the fixtures worker.
import { startEphemeralKey } from '../keys/ephemeral.js';
import { startEarlyJob } from '../fixtures/worker-thread.js';

const ONE_SHOT = new Set(['check', 'keygen', 'token', 'users', 'help', '--help', '-h', '--version', '-V']);

/** Runs the CLI; resolves to an exit code, or undefined while a server runs. */
export async function main(argv: string[]): Promise<number | undefined> {
  if (!ONE_SHOT.has(argv[0] ?? '') && !argv.includes('--key')) startEphemeralKey();
  startFixturesEarly(argv);
  const { runCli } = await import('./program.js');
  return runCli(argv);
}

/**
 * The fixtures file of the two plainest command lines, `check FILE` and a serve with one `--fixtures FILE`,
 * starts loading now, on the fixtures worker when it is big (worker-thread.ts): a guess the program's own
 * parsing of the command line confirms by asking for the same file, or the work is left unused.
 */
function startFixturesEarly(argv: readonly string[]): void {
  const [first, file] = argv;
  if (first === 'check') {
    if (argv.length === 2 && file !== undefined && !file.startsWith('-')) startEarlyJob(file, 'summary');
    return;
  }
  if (ONE_SHOT.has(first ?? '')) return;
  const at = argv.indexOf('--fixtures');
  const named = argv[at + 1];
  if (at === -1 || argv.indexOf('--fixtures', at + 1) !== -1 || named === undefined || named.startsWith('-'))
    return;
  startEarlyJob(named, 'realm');
}
