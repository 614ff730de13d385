// MockIdpContainerError: what the Testcontainers module throws, with a stable `code` to switch on.

export type MockIdpContainerErrorCode =
  /** The fixtures file given to `withFixtures` cannot be read or is not YAML. */
  | 'FIXTURES_UNREADABLE'
  /** The key file given to `withKey` cannot be read. */
  | 'KEY_UNREADABLE'
  /** withTls(): the server's CA certificate could not be read from the container. */
  | 'CA_UNREADABLE'
  /** The QA mint endpoint answered with a non-2xx status or a body that is not a minted token. */
  | 'MINT_FAILED'
  /** The peer dependency `testcontainers` is not installed in the project. */
  | 'TESTCONTAINERS_MISSING'
  /** Another QA API call (the request journal) answered with a non-2xx status or an unexpected body. */
  | 'QA_FAILED';

export class MockIdpContainerError extends Error {
  override name = 'MockIdpContainerError';
  readonly code: MockIdpContainerErrorCode;
  /** HTTP status of the failed request, when there was one. */
  readonly status: number | undefined;

  constructor(
    code: MockIdpContainerErrorCode,
    message: string,
    options: { status?: number; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = options.status;
  }
}
