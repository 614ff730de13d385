// MockIdpContainer.withContextPath(): the server's command line and environment, the readiness check and the
// started container's URLs, checked without Docker; one real container where Docker is available.
import type { StartedTestContainer } from 'testcontainers';
import { describe, expect, it } from 'vitest';
import { MockIdpContainer, StartedMockIdpContainer } from '../../src/testcontainers/index.js';
import { containerTestsSkipReason, skipContainerTests, useContainer } from './docker.js';

/** What start() would hand Docker, read from the builder without starting anything. */
function planOf(container: MockIdpContainer): {
  args: Promise<string[]>;
  env: Record<string, string>;
  waitPath: unknown;
} {
  const inside = container as unknown as {
    cliArguments(): Promise<string[]>;
    environment: Record<string, string>;
    waitStrategy: { path: unknown };
  };
  return { args: inside.cliArguments(), env: inside.environment, waitPath: inside.waitStrategy.path };
}

/** A started container as far as the URL getters look at it: a host and a mapped port. */
const fakeStarted = {
  getHost: () => 'localhost',
  getFirstMappedPort: () => 32768,
} as unknown as StartedTestContainer;

describe('MockIdpContainer.withContextPath', () => {
  it.each([
    ['/auth', '/auth'],
    ['auth/', '/auth'],
    ['/kc/auth/', '/kc/auth'],
  ])('withContextPath(%j): serve --http-relative-path %s, env and readiness follow', async (given, path) => {
    const plan = planOf(new MockIdpContainer().withSeed('s').withContextPath(given));
    expect(await plan.args).toEqual(['serve', '--seed', 's', '--http-relative-path', path]);
    expect(plan.env['KC_HTTP_RELATIVE_PATH']).toBe(path);
    expect(plan.waitPath).toBe(`${path}/health`);
  });

  it.each([
    ['none given', (c: MockIdpContainer) => c],
    ['withContextPath("/")', (c: MockIdpContainer) => c.withContextPath('/')],
  ])('%s: no flag, readiness at /health', async (_name, configure) => {
    const plan = planOf(configure(new MockIdpContainer()));
    expect(await plan.args).toEqual(['serve']);
    expect(plan.waitPath).toBe('/health');
  });

  it('refuses a path no URL can carry', () => {
    expect(() => new MockIdpContainer().withContextPath('/a b')).toThrow(
      '"/a b" is not a URL path: segment "a b"; give one like /auth',
    );
  });

  it('the started container names its URLs under the context path', () => {
    const started = new StartedMockIdpContainer(fakeStarted, {
      realm: 'mock',
      issuer: undefined,
      contextPath: '/auth',
    });
    expect(started.getBaseUrl()).toBe('http://localhost:32768/auth/realms/mock');
    expect(started.getIssuer()).toBe('http://localhost:32768/auth/realms/mock');
    expect(started.getDiscoveryUrl()).toBe(
      'http://localhost:32768/auth/realms/mock/.well-known/openid-configuration',
    );
    expect(started.getTokenEndpoint()).toBe(
      'http://localhost:32768/auth/realms/mock/protocol/openid-connect/token',
    );
  });
});

describe.skipIf(skipContainerTests)(
  `MockIdpContainer.withContextPath in Docker ${containerTestsSkipReason ?? ''}`,
  () => {
    const idp = useContainer(() => new MockIdpContainer().withContextPath('/auth').start());

    it('serves discovery, /auth/health and a client_credentials token under /auth', async () => {
      expect(idp.getBaseUrl()).toMatch(/\/auth\/realms\/mock$/);
      const discovery = (await (await fetch(idp.getDiscoveryUrl())).json()) as Record<string, unknown>;
      expect(discovery['issuer']).toBe(idp.getBaseUrl());
      const origin = new URL(idp.getBaseUrl()).origin;
      expect((await fetch(`${origin}/auth/health`)).status).toBe(200);
      expect((await fetch(`${origin}/health`)).status).toBe(404);
      const token = await idp.getTokenResponse({ client: 'batch-job' });
      expect(token.access_token.split('.')).toHaveLength(3);
    });
  },
);
