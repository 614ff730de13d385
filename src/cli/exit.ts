// Exit codes and the mapping of errors to them, in one place.
import { FixturesError } from '../fixtures/errors.js';
import { KeyLoadError } from '../keys/load-key.js';
import { OAuthError } from '../oauth/errors.js';
import { StoreError } from '../store/backend.js';

/** ok; failure (bad input, refused request); usage (bad flags); unavailable (the server could not be reached). */
export const EXIT = { ok: 0, failure: 1, usage: 2, unavailable: 3 } as const;

/** A CLI failure with a message meant for the user (no stack trace). */
export class CliError extends Error {
  override name = 'CliError';
  readonly exitCode: number;
  constructor(message: string, exitCode: number = EXIT.failure) {
    super(message);
    this.exitCode = exitCode;
  }
}

/** Prints a known error plainly (an unknown one with its stack) and returns the exit code. */
export function reportError(err: unknown, stderr: (line: string) => void): number {
  if (
    err instanceof FixturesError ||
    err instanceof KeyLoadError ||
    err instanceof CliError ||
    err instanceof StoreError ||
    err instanceof RangeError
  ) {
    stderr(err.message);
    return err instanceof CliError ? err.exitCode : EXIT.failure;
  }
  if (err instanceof OAuthError) {
    stderr(`mock-idp: ${err.error}: ${err.description}`);
    return EXIT.failure;
  }
  if (err instanceof Error && /^cannot listen on /.test(err.message)) {
    stderr(err.message);
    return EXIT.failure;
  }
  stderr(`mock-idp: unexpected error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  return EXIT.failure;
}
