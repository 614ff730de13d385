// MockIdpContainer: a Testcontainers GenericContainer running the mock-idp image, configured by builders.
import { access, constants } from 'node:fs/promises';
import { basename } from 'node:path';
import { GenericContainer, Wait } from 'testcontainers';
import { MockIdpContainerError } from './errors.js';
import { DEFAULT_REALM, readFixturesSummary } from './fixtures-summary.js';
import { StartedMockIdpContainer } from './started-mock-idp-container.js';

/** The image used when neither the constructor nor `MOCK_IDP_IMAGE` names one (`docker build -t mock-idp .`). */
export const MOCK_IDP_IMAGE = 'mock-idp:latest';

/** The port the image listens on (`PORT` in the Dockerfile). */
export const MOCK_IDP_PORT = 8080;

export interface ClockOptions {
  /** Time stands still until advanced over the QA API. Default: false. */
  frozen?: boolean;
}

// Where copied files land; the image runs as a non-root user, so they are copied world-readable.
const FIXTURES_DIR = '/fixtures';
const KEYS_DIR = '/keys';
const READABLE = 0o444;

export class MockIdpContainer extends GenericContainer {
  private fixturesPath: string | undefined;
  private keyPath: string | undefined;
  private clock: { start: string; frozen: boolean } | undefined;
  private seed: string | undefined;
  private issuer: string | undefined;
  private qaToken: string | undefined;

  /** @param image default: env `MOCK_IDP_IMAGE`, else {@link MOCK_IDP_IMAGE}. */
  constructor(image: string = process.env.MOCK_IDP_IMAGE || MOCK_IDP_IMAGE) {
    super(image);
    this.withExposedPorts(MOCK_IDP_PORT)
      // abortOnContainerExit: a bad fixtures file fails start() at once, with the server's message.
      .withWaitStrategy(
        Wait.forHttp('/health', MOCK_IDP_PORT, { abortOnContainerExit: true }).forStatusCode(200),
      )
      .withStartupTimeout(60_000);
  }

  /** Serve this fixtures file (copied into the container) instead of the bundled default. */
  withFixtures(path: string): this {
    this.fixturesPath = path;
    return this;
  }

  /** Start the server clock at `start` (ISO-8601, epoch seconds, or a Date). Default: real time. */
  withClock(start: string | number | Date, options: ClockOptions = {}): this {
    const iso = start instanceof Date ? start.toISOString() : String(start);
    this.clock = { start: iso, frozen: options.frozen ?? false };
    return this;
  }

  /** Make jti, session ids, codes and generated subs reproducible. Default: random. */
  withSeed(seed: string): this {
    this.seed = seed;
    return this;
  }

  /** Sign with this PEM or JWK private key (copied into the container). Default: a key made at start. */
  withKey(path: string): this {
    this.keyPath = path;
    return this;
  }

  /**
   * Fix the issuer, e.g. `http://mock-idp:8080/realms/mock` for other containers on a network.
   * Default: derived per request from the Host header (so the mapped port is right from the host).
   */
  withIssuer(url: string): this {
    this.issuer = url;
    return this;
  }

  /**
   * Lock the QA API (`/mock/...`) with a bearer token (passed as env `MOCK_IDP_QA_TOKEN`, not on the
   * command line); {@link StartedMockIdpContainer.mint} sends it. Default: no token.
   */
  withQaToken(token: string): this {
    this.qaToken = token;
    this.withEnvironment({ MOCK_IDP_QA_TOKEN: token });
    return this;
  }

  override async start(): Promise<StartedMockIdpContainer> {
    const fixtures =
      this.fixturesPath === undefined
        ? { realm: DEFAULT_REALM, issuer: undefined }
        : await readFixturesSummary(this.fixturesPath);
    this.withCommand(await this.cliArguments());
    const started = await super.start();
    return new StartedMockIdpContainer(started, {
      realm: fixtures.realm,
      issuer: this.issuer ?? fixtures.issuer,
      qaToken: this.qaToken,
    });
  }

  /** Copies the files in and returns the `serve` arguments naming them. */
  private async cliArguments(): Promise<string[]> {
    const args = ['serve'];
    if (this.fixturesPath !== undefined) {
      const target = `${FIXTURES_DIR}/${basename(this.fixturesPath)}`;
      this.withCopyFilesToContainer([{ source: this.fixturesPath, target, mode: READABLE }]);
      args.push('--fixtures', target);
    }
    if (this.keyPath !== undefined) {
      await access(this.keyPath, constants.R_OK).catch((cause: unknown) => {
        throw new MockIdpContainerError('KEY_UNREADABLE', `cannot read key ${this.keyPath}`, { cause });
      });
      const target = `${KEYS_DIR}/${basename(this.keyPath)}`;
      this.withCopyFilesToContainer([{ source: this.keyPath, target, mode: READABLE }]);
      args.push('--key', target);
    }
    if (this.clock !== undefined) {
      args.push('--clock', this.clock.start);
      if (this.clock.frozen) args.push('--frozen');
    }
    if (this.seed !== undefined) args.push('--seed', this.seed);
    if (this.issuer !== undefined) args.push('--issuer', this.issuer);
    return args;
  }
}
