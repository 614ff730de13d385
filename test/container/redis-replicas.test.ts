// Two mock-idp containers on one Redis, as the README's Docker flags run them: the store
// by MOCK_IDP_STORE, a redis-server on the host reached through the Docker bridge's gateway. A code issued
// at one container is exchanged at the other; a logout at the other ends the session at the first.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MockIdpContainer, type StartedMockIdpContainer } from '../../src/testcontainers/index.js';
import { authorize, exchangeCode, WEB_APP } from '../helpers/bundled.js';
import { postForm } from '../helpers/http.js';
import { SKIP_REDIS, useRedis } from '../helpers/redis.js';
import { endpointsOf } from '../helpers/server.js';
import { containerTestsSkipReason, skipContainerTests } from './docker.js';

/** Redis listens beyond loopback (on the bridge's gateway) for this test: with a password. */
const PASSWORD = 'container-test';

/** The host's address on Docker's default bridge network, where containers reach the host. */
function bridgeGateway(): string {
  // Debian's client first, as docker.ts runs it.
  const binary = existsSync('/usr/bin/docker') ? '/usr/bin/docker' : 'docker';
  const format = '{{(index .IPAM.Config 0).Gateway}}';
  const docker = spawnSync(binary, ['network', 'inspect', 'bridge', '-f', format], { encoding: 'utf8' });
  const gateway = docker.stdout.trim();
  if (docker.status !== 0 || !/^\d+\.\d+\.\d+\.\d+$/.test(gateway))
    throw new Error(`cannot find the Docker bridge's gateway: ${docker.stderr || gateway}`);
  return gateway;
}

describe.skipIf(skipContainerTests || SKIP_REDIS)(
  `two containers on one Redis ${containerTestsSkipReason ?? ''}`,
  () => {
    // Redis listens on the bridge's gateway too, for the containers to reach it.
    let gateway: string;
    beforeAll(() => {
      gateway = bridgeGateway();
    });
    const redis = useRedis(() => ['--bind', `127.0.0.1 ${gateway}`, '--requirepass', PASSWORD]);
    let a: StartedMockIdpContainer;
    let b: StartedMockIdpContainer;

    beforeAll(async () => {
      const store = `redis://:${PASSWORD}@${gateway}:${redis.port}`;
      const replica = (): Promise<StartedMockIdpContainer> =>
        new MockIdpContainer().withEnvironment({ MOCK_IDP_STORE: store }).start();
      [a, b] = await Promise.all([replica(), replica()]);
    });
    afterAll(async () => {
      await a?.stop();
      await b?.stop();
    });

    it('a code issued at one container is exchanged at the other; a logout there ends it at the first', async () => {
      const { code } = await authorize(a.getIssuer(), 'alice');
      const tokens = await exchangeCode(b.getIssuer(), code);
      expect(tokens.status).toBe(200);
      const refreshToken = String(tokens.json['refresh_token']);
      const introspected = await postForm(
        endpointsOf(a.getIssuer()).introspect,
        { token: String(tokens.json['access_token']) },
        WEB_APP,
      );
      expect(introspected.json['active']).toBe(true);
      const logout = await postForm(
        endpointsOf(b.getIssuer()).logout,
        { refresh_token: refreshToken },
        WEB_APP,
      );
      expect(logout.status).toBe(204);
      const refused = await postForm(
        endpointsOf(a.getIssuer()).token,
        { grant_type: 'refresh_token', refresh_token: refreshToken },
        WEB_APP,
      );
      expect(refused.json['error']).toBe('invalid_grant');
    });
  },
);
