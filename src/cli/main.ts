// Process entry of the CLI (run by bin/mock-idp.js): the ephemeral signing key starts generating on the
// thread pool before the rest of the program loads, so the two overlap at cold start.
import { startEphemeralKey } from '../keys/ephemeral.js';

const ONE_SHOT = new Set(['check', 'keygen', 'token', 'users', 'help', '--help', '-h', '--version', '-V']);

/** Runs the CLI; resolves to an exit code, or undefined while a server runs. */
export async function main(argv: string[]): Promise<number | undefined> {
  if (!ONE_SHOT.has(argv[0] ?? '') && !argv.includes('--key')) startEphemeralKey();
  const { runCli } = await import('./program.js');
  return runCli(argv);
}
