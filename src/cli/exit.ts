// Exit codes and the mapping of errors to them, in one place.
import { isMockIdpError, type MockIdpError } from '../errors.js';

import { EXIT } from './cli-error.js';

/** What the CLI prints for an error and its exit code; undefined for one the CLI never throws. */
function reportOf(err: MockIdpError): { line: string; exitCode: number } | undefined {
  switch (err.code) {
    case 'ERR_CLI':
      return { line: err.message, exitCode: err.exitCode };
    case 'ERR_OAUTH':
      return { line: `mock-idp: ${err.error}: ${err.description}`, exitCode: EXIT.failure };
    case 'ERR_FIXTURES_INVALID':
    case 'ERR_KEY_INVALID':
    case 'ERR_TLS_INVALID':
    case 'ERR_CLOCK_RANGE':
    case 'ERR_STORE_UNAVAILABLE':
      return { line: err.message, exitCode: EXIT.failure };
    case 'ERR_LISTEN':
      return {
        line:
          err.reason === 'in-use'
            ? `${err.message} (another server is there: stop it, or pick another port; --port 0 takes any free one)`
            : err.message,
        exitCode: EXIT.failure,
      };
    // The library's and the Testcontainers module's own: from the CLI, a bug (printed with its stack).
    case 'ERR_TOKEN_FLOW':
    case 'FIXTURES_UNREADABLE':
    case 'KEY_UNREADABLE':
    case 'CA_UNREADABLE':
    case 'MINT_FAILED':
    case 'QA_FAILED':
      return undefined;
  }
}

/** Prints a known error plainly (an unknown one with its stack) and returns the exit code. */
export function reportError(err: unknown, stderr: (line: string) => void): number {
  const report = isMockIdpError(err) ? reportOf(err) : undefined;
  if (report !== undefined) {
    stderr(report.line);
    return report.exitCode;
  }
  // A range a command checks itself (a count of users, a birth year): the message says what is allowed.
  if (err instanceof RangeError) {
    stderr(err.message);
    return EXIT.failure;
  }
  stderr(`mock-idp: unexpected error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  return EXIT.failure;
}
