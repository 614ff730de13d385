// The CLI's own error, meant for the user (no stack trace), and the exit codes.

/** ok; failure (bad input, refused request); usage (bad flags); unavailable (the server could not be reached). */
export const EXIT = { ok: 0, failure: 1, usage: 2, unavailable: 3 } as const;

/** A CLI failure with a message meant for the user (no stack trace). */
export class CliError extends Error {
  readonly code = 'ERR_CLI' as const;
  override name = 'CliError';
  readonly exitCode: number;
  constructor(message: string, exitCode: number = EXIT.failure) {
    super(message);
    this.exitCode = exitCode;
  }
}
