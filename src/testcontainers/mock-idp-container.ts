// MockIdpContainer: a Testcontainers GenericContainer running mock-idp, configured by builders. By default
// it runs this package's own bundled server on the public Node.js image, so an npm install is all it needs;
// withImage() (or MOCK_IDP_IMAGE) runs a prebuilt mock-idp image instead.
import { access, constants, readdir } from 'node:fs/promises';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { StartedTestContainer } from 'testcontainers';
import { GenericContainer, ImageName, Wait, getContainerRuntimeClient } from './peer.js';
import { MockIdpContainerError } from './errors.js';
import { BUNDLED_FIXTURES, readFixturesSummary } from './fixtures-summary.js';
import { StartedMockIdpContainer } from './started-mock-idp-container.js';
import { normaliseRelativePath } from '../realm/paths.js';

/** The name `docker build -t mock-idp .` gives a prebuilt image (pass it to withImage() to use one). */
export const MOCK_IDP_IMAGE = 'mock-idp:latest';

/**
 * The public image the package's own server runs on when no prebuilt image is named: the Dockerfile's base,
 * which has Node.js and a non-root `node` user, and nothing of mock-idp until the files below are copied in.
 */
export const MOCK_IDP_BASE_IMAGE = 'node:24-bookworm-slim';

/** This package's root (dist/testcontainers → ../..): bin/, the bundled CLI and the default fixtures. */
const PACKAGE_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const APP_DIR = '/app';
/** As the Dockerfile's ENTRYPOINT. */
const NODE_ENTRYPOINT = ['node'];

/** The port the image listens on (`PORT` in the Dockerfile). */
export const MOCK_IDP_PORT = 8080;

export interface ClockOptions {
  /** Time stands still until advanced over the QA API. Default: false. */
  frozen?: boolean;
}

// Where copied files land; the image runs as a non-root user, so they are copied world-readable.
const FIXTURES_DIR = '/fixtures';
const KEYS_DIR = '/keys';
/** Where the server writes its mock CA's certificate with withTls(); the started container reads it there. */
const CA_FILE = '/tmp/mock-idp-ca.pem';
const READABLE = 0o444;

export class MockIdpContainer extends GenericContainer {
  private fixturesPath: string | undefined;
  private keyPath: string | undefined;
  private clock: { start: string; frozen: boolean } | undefined;
  private seed: string | undefined;
  private issuer: string | undefined;
  private qaToken: string | undefined;
  private contextPath = '';
  private backchannelDynamic = false;
  /** withTls(): the names the made certificate holds besides localhost, 127.0.0.1 and ::1. */
  private tls: { hosts: string[] } | undefined;
  /** Realm files beside the first (withRealmImportFile given more than once): one realm each. */
  private moreRealmFiles: string[] = [];
  private adminUsername = 'admin';
  private adminPassword = 'admin';
  /** Whether the image is a prebuilt mock-idp image (else the base image with the package's server). */
  private prebuilt: boolean;

  /**
   * @param image a prebuilt mock-idp image (as withImage). Default: env `MOCK_IDP_IMAGE`, else this
   * package's own server on {@link MOCK_IDP_BASE_IMAGE}.
   */
  constructor(image: string | undefined = process.env.MOCK_IDP_IMAGE || undefined) {
    super(image ?? MOCK_IDP_BASE_IMAGE);
    this.prebuilt = image !== undefined;
    this.withExposedPorts(MOCK_IDP_PORT).waitForHealth('').withStartupTimeout(60_000);
  }

  /** Ready once `{contextPath}/health` answers 200 (over https with withTls()). */
  private waitForHealth(contextPath: string): this {
    // abortOnContainerExit: a bad fixtures file fails start() at once, with the server's message.
    const wait = Wait.forHttp(`${contextPath}/health`, MOCK_IDP_PORT, {
      abortOnContainerExit: true,
    }).forStatusCode(200);
    // The readiness probe only asks whether the server answers; clients trust its CA (getCaCertificate()).
    return this.withWaitStrategy(this.tls !== undefined ? wait.usingTls().allowInsecure() : wait);
  }

  /** Run this prebuilt mock-idp image (e.g. `ghcr.io/acme/mock-idp:1.2.3`) instead of the package's server. */
  withImage(image: string): this {
    this.imageName = ImageName.fromString(image);
    this.createOpts = { ...this.createOpts, Image: this.imageName.string };
    this.prebuilt = true;
    return this;
  }

  /** Serve this fixtures file (copied into the container) instead of the bundled default. */
  withFixtures(path: string): this {
    this.fixturesPath = path;
    return this;
  }

  /**
   * Import this Keycloak realm file (JSON, as `kc.sh export` writes it), as testcontainers-keycloak's method
   * of this name does; given again, each further file is one more realm. The first file's realm is the one
   * the started container's URLs name.
   */
  withRealmImportFile(path: string): this {
    if (this.fixturesPath === undefined) this.fixturesPath = path;
    else this.moreRealmFiles.push(path);
    return this;
  }

  /** The admin user of realm master (env `KC_BOOTSTRAP_ADMIN_USERNAME`). Default: `admin`. */
  withAdminUsername(username: string): this {
    this.adminUsername = username;
    return this.withEnvironment({ KC_BOOTSTRAP_ADMIN_USERNAME: username });
  }

  /** The admin user's password (env `KC_BOOTSTRAP_ADMIN_PASSWORD`, not on the command line). Default: `admin`. */
  withAdminPassword(password: string): this {
    this.adminPassword = password;
    return this.withEnvironment({ KC_BOOTSTRAP_ADMIN_PASSWORD: password });
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
   * With a fixed issuer (withIssuer or the fixtures' `issuer`), discovery names the back-channel endpoints
   * (token, certs, userinfo, introspection, ...) under the URL each request came to, as Keycloak's
   * `--hostname-backchannel-dynamic`: browsers use the issuer, services on a network reach the container
   * by its alias, and every token keeps the one `iss`. Default: every URL under the fixed issuer.
   */
  withHostnameBackchannelDynamic(): this {
    this.backchannelDynamic = true;
    return this;
  }

  /**
   * Serve everything under this path (`--http-relative-path`), as testcontainers-keycloak's method of this
   * name: `/auth` gives `/auth/realms/{realm}/...` and `/auth/health`, and the started container's URLs
   * follow. A leading slash is added, a trailing one dropped; `/` is none. Default: none.
   */
  withContextPath(path: string): this {
    this.contextPath = normaliseRelativePath(path);
    // Also in the environment, where the image's HEALTHCHECK reads it.
    this.withEnvironment({ KC_HTTP_RELATIVE_PATH: this.contextPath });
    return this.waitForHealth(this.contextPath);
  }

  /**
   * Serve https (`--tls`) with a certificate made at start for `localhost`, `127.0.0.1`, `::1`, the host
   * the started container's URLs name ({@link StartedMockIdpContainer.getHost}: `localhost`, or say
   * `172.17.0.1` when the tests run in a container themselves) and `hosts` (say the container's network aliases), signed by a mock CA made at start: the started container's URLs
   * are https, and {@link StartedMockIdpContainer.getCaCertificate} gives the CA to trust. Default: http.
   */
  withTls(options: { hosts?: readonly string[] } = {}): this {
    this.tls = { hosts: [...(options.hosts ?? [])] };
    // Also in the environment, where the image's HEALTHCHECK reads it.
    this.withEnvironment({ MOCK_IDP_TLS: 'true' });
    return this.waitForHealth(this.contextPath);
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
    const fixtures = await readFixturesSummary(this.fixturesPath ?? BUNDLED_FIXTURES);
    if (!this.prebuilt) await this.runPackageServer();
    const runtimeHost =
      this.tls !== undefined ? (await getContainerRuntimeClient()).info.containerRuntime.host : undefined;
    this.withCommand(await this.cliArguments(runtimeHost));
    const started = await super.start();
    return new StartedMockIdpContainer(started, {
      caCertificate: this.tls !== undefined ? await readCaCertificate(started) : undefined,
      realm: fixtures.realm,
      issuer: this.issuer ?? fixtures.issuer,
      qaToken: this.qaToken,
      contextPath: this.contextPath,
      clients: fixtures.clients,
      admin: { username: this.adminUsername, password: this.adminPassword },
    });
  }

  /** The base image gets what the Dockerfile's image has: the bundled CLI, the fixtures, its user and env. */
  private async runPackageServer(): Promise<void> {
    // Files one by one (each world-readable): the server runs as the image's non-root `node` user.
    const file = (path: string) => ({
      source: `${PACKAGE_ROOT}${path}`,
      target: `${APP_DIR}/${path}`,
      mode: READABLE,
    });
    const fixtures = (await readdir(`${PACKAGE_ROOT}fixtures`)).map((name) => file(`fixtures/${name}`));
    this.withCopyFilesToContainer([
      file('bin/mock-idp.js'),
      file('dist/cli.js'),
      file('dist/fixtures-worker.js'),
      file('package.json'),
      ...fixtures,
    ])
      .withEnvironment({ NODE_ENV: 'production', HOST: '0.0.0.0', PORT: String(MOCK_IDP_PORT) })
      .withUser('node')
      .withEntrypoint([...NODE_ENTRYPOINT, `${APP_DIR}/bin/mock-idp.js`]);
  }

  /**
   * Copies the files in and returns the `serve` arguments naming them. `runtimeHost`, the host the started
   * container's URLs will name (`getHost()`: `localhost`, or the Docker bridge's gateway when the tests run
   * in a container), goes in the TLS certificate: without it such a client is refused the certificate.
   */
  private async cliArguments(runtimeHost?: string): Promise<string[]> {
    const args = ['serve'];
    if (this.fixturesPath !== undefined) {
      const target = `${FIXTURES_DIR}/${basename(this.fixturesPath)}`;
      this.withCopyFilesToContainer([{ source: this.fixturesPath, target, mode: READABLE }]);
      args.push('--fixtures', target);
    }
    for (const [index, path] of this.moreRealmFiles.entries()) {
      // A numbered folder each: two files of one name stay apart.
      const target = `${FIXTURES_DIR}/${index + 1}/${basename(path)}`;
      this.withCopyFilesToContainer([{ source: path, target, mode: READABLE }]);
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
    if (this.contextPath !== '') args.push('--http-relative-path', this.contextPath);
    if (this.backchannelDynamic) args.push('--hostname-backchannel-dynamic');
    if (this.tls !== undefined) {
      args.push('--tls', '--tls-ca-out', CA_FILE);
      const hosts = [...this.tls.hosts];
      if (runtimeHost !== undefined && !['localhost', '127.0.0.1', '::1', ...hosts].includes(runtimeHost))
        hosts.push(runtimeHost);
      for (const host of hosts) args.push('--tls-host', host);
    }
    return args;
  }
}

/** The mock CA's certificate, as the server wrote it in the container (read once it is ready). */
async function readCaCertificate(started: StartedTestContainer): Promise<string> {
  const { exitCode, stdout, stderr } = await started.exec(['cat', CA_FILE]);
  if (exitCode !== 0 || !stdout.startsWith('-----BEGIN CERTIFICATE-----'))
    throw new MockIdpContainerError(
      'CA_UNREADABLE',
      `cannot read the CA certificate ${CA_FILE} in the container (exit ${exitCode}): ${stderr}`,
    );
  return stdout;
}
