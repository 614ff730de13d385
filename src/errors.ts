// Every mock-idp error class's stable `code`, as one union: `switch (err.code)` on a MockIdpError narrows
// to its class. The CLI maps the codes to exit codes (cli/exit.ts), the server to HTTP bodies
// (http/error-handler.ts).
import type { CliError } from './cli/cli-error.js';
import type { ClockRangeError } from './clock.js';
import type { FixturesError } from './fixtures/errors.js';
import type { TokenFlowError } from './flows/token-flow.js';
import type { KeyLoadError } from './keys/load-key.js';
import type { TlsError } from './keys/tls.js';
import type { OAuthError } from './oauth/errors.js';
import type { StoreError } from './store/backend.js';
import type { MockIdpContainerError } from './testcontainers/errors.js';

/** The server could not listen on its host and port (in use, not available, not allowed). */
export class ListenError extends Error {
  readonly code = 'ERR_LISTEN' as const;
  override name = 'ListenError';
  constructor(
    message: string,
    /** Why: the port is taken, the address is not this host's, or the system's own reason. */
    readonly reason: 'in-use' | 'unavailable' | 'other' = 'other',
  ) {
    super(message);
  }
}

export type MockIdpError =
  | OAuthError
  | FixturesError
  | KeyLoadError
  | TlsError
  | ClockRangeError
  | StoreError
  | ListenError
  | TokenFlowError
  | CliError
  | MockIdpContainerError;

export type MockIdpErrorCode = MockIdpError['code'];

// Every code, checked complete by the compiler. By code rather than by class: the CommonJS build and the
// ES modules each have their own classes, and an error may cross from one to the other.
const CODES: Record<MockIdpErrorCode, true> = {
  ERR_OAUTH: true,
  ERR_FIXTURES_INVALID: true,
  ERR_KEY_INVALID: true,
  ERR_TLS_INVALID: true,
  ERR_CLOCK_RANGE: true,
  ERR_STORE_UNAVAILABLE: true,
  ERR_LISTEN: true,
  ERR_TOKEN_FLOW: true,
  ERR_CLI: true,
  FIXTURES_UNREADABLE: true,
  KEY_UNREADABLE: true,
  CA_UNREADABLE: true,
  MINT_FAILED: true,
  QA_FAILED: true,
  TESTCONTAINERS_MISSING: true,
};

export function isMockIdpError(err: unknown): err is MockIdpError {
  if (!(err instanceof Error)) return false;
  const { code } = err as { code?: unknown };
  return typeof code === 'string' && Object.hasOwn(CODES, code);
}
