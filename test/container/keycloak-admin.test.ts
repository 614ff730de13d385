// The Testcontainers names testcontainers-keycloak users call: a realm import file, the admin user, the auth
// server URL; then the admin client creates a user in the imported realm and that user gets a token.
import { fileURLToPath } from 'node:url';
import KcAdminClient from '@keycloak/keycloak-admin-client';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import type { StartedTestContainer } from 'testcontainers';
import { describe, expect, it } from 'vitest';
import { MockIdpContainer, StartedMockIdpContainer } from '../../src/testcontainers/index.js';
import { readFixturesSummary } from '../../src/testcontainers/fixtures-summary.js';
import { containerTestsSkipReason, skipContainerTests, useContainer } from './docker.js';

const ACME = fileURLToPath(new URL('../fixtures-data/keycloak/acme-realm.json', import.meta.url));

/** What start() would hand Docker, read from the builder without starting anything. */
function planOf(container: MockIdpContainer): { args: Promise<string[]>; env: Record<string, string> } {
  const inside = container as unknown as {
    cliArguments(): Promise<string[]>;
    environment: Record<string, string>;
  };
  return { args: inside.cliArguments(), env: inside.environment };
}

describe('MockIdpContainer as testcontainers-keycloak names it', () => {
  it('withRealmImportFile, withAdminUsername and withAdminPassword: the flags and the environment', async () => {
    const plan = planOf(
      new MockIdpContainer()
        .withRealmImportFile(ACME)
        .withRealmImportFile('/tmp/other/realm.json')
        .withAdminUsername('root')
        .withAdminPassword('root-pw'),
    );
    expect(await plan.args).toEqual([
      'serve',
      '--fixtures',
      '/fixtures/acme-realm.json',
      '--fixtures',
      '/fixtures/1/realm.json',
    ]);
    expect(plan.env).toMatchObject({
      KC_BOOTSTRAP_ADMIN_USERNAME: 'root',
      KC_BOOTSTRAP_ADMIN_PASSWORD: 'root-pw',
    });
  });

  it('reads the realm name and the clients of a realm import file for the URLs and the token flows', async () => {
    const summary = await readFixturesSummary(ACME);
    expect(summary.realm).toBe('acme');
    expect(summary.clients.get('web-app')).toMatchObject({ id: 'web-app', secret: 'web-secret' });
    expect(summary.clients.get('spa')).toMatchObject({ id: 'spa', authMethods: ['none'] });
  });

  it('getAuthServerUrl is the origin and context path; the admin user defaults to admin/admin', () => {
    const fake = {
      getHost: () => 'localhost',
      getFirstMappedPort: () => 32768,
    } as unknown as StartedTestContainer;
    const started = new StartedMockIdpContainer(fake, {
      realm: 'acme',
      issuer: undefined,
      contextPath: '/auth',
    });
    expect(started.getAuthServerUrl()).toBe('http://localhost:32768/auth');
    expect(started.getBaseUrl()).toBe('http://localhost:32768/auth/realms/acme');
    expect([started.getAdminUsername(), started.getAdminPassword()]).toEqual(['admin', 'admin']);
  });
});

describe.skipIf(skipContainerTests)(`a realm import file in Docker ${containerTestsSkipReason ?? ''}`, () => {
  const kc = useContainer(() =>
    new MockIdpContainer()
      .withRealmImportFile(ACME)
      .withAdminUsername('root')
      .withAdminPassword('root-pw')
      .start(),
  );

  it('the admin client creates a user in the imported realm, who then gets a token', async () => {
    expect(kc.getAdminUsername()).toBe('root');
    const admin = new KcAdminClient({ baseUrl: kc.getAuthServerUrl(), realmName: 'master' });
    await admin.auth({
      username: kc.getAdminUsername(),
      password: kc.getAdminPassword(),
      grantType: 'password',
      clientId: 'admin-cli',
    });
    admin.setConfig({ realmName: 'acme' });
    const { id } = await admin.users.create({ username: 'erin', enabled: true });
    await admin.users.resetPassword({
      id,
      credential: { type: 'password', value: 'erin-pw', temporary: false },
    });
    const form = new URLSearchParams({
      grant_type: 'password',
      client_id: 'web-app',
      client_secret: 'web-secret',
      username: 'erin',
      password: 'erin-pw',
    });
    const answer = await fetch(`${kc.getBaseUrl()}/protocol/openid-connect/token`, {
      method: 'POST',
      body: form,
    });
    expect(answer.status).toBe(200);
    const { access_token: token } = (await answer.json()) as { access_token: string };
    const jwks = createRemoteJWKSet(new URL(kc.getJwksUri()));
    const { payload } = await jwtVerify(token, jwks, { issuer: kc.getBaseUrl() });
    expect(payload).toMatchObject({ sub: id, preferred_username: 'erin', azp: 'web-app' });
  });
});
