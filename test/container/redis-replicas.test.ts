// Two mock-idp containers on one Redis, as the README's Docker flags run them: the store
// by MOCK_IDP_STORE, a redis-server on the host reached through the Docker bridge's gateway. A code issued
// at one container is exchanged at the other; a logout at the other ends the session at the first.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MockIdpContainer, type StartedMockIdpContainer } from '../../src/testcontainers/index.js';
import { authorize, exchangeCode, WEB_APP } from '../helpers/bundled.js';
import { postForm } from '../helpers/http.js';
import { SKIP_REDIS, useRedis } from '../helpers/redis.js';
import { endpointsOf } from '../helpers/server.js';
import { containerTestsSkipReason, skipContainerTests } from './docker.js';

/** Redis listens beyond loopback (on the bridge's gateway) for this test: with a password. */
const PASSWORD = 'container-test';

/**
 * The host's address on Docker's default bridge network, where containers reach the host: the network's
 * Gateway, else (an engine that leaves it out of `network inspect`) docker0's address, else the subnet's
 * first host, which Docker gives the bridge.
 */
function bridgeGateway(): string {
  // Debian's client first, as docker.ts runs it.
  const binary = existsSync('/usr/bin/docker') ? '/usr/bin/docker' : 'docker';
  const docker = spawnSync(binary, ['network', 'inspect', 'bridge', '-f', '{{json .IPAM.Config}}'], {
    encoding: 'utf8',
  });
  const ipv4 = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/;
  let config: { Gateway?: string; Subnet?: string }[] = [];
  try {
    config = JSON.parse(docker.stdout) as typeof config;
  } catch {
    // no JSON: the engine's answer is in the error below
  }
  const ofBridge = config.find((c) => ipv4.test(c.Gateway ?? ''))?.Gateway;
  if (ofBridge !== undefined) return ofBridge;
  const docker0 = networkInterfaces()['docker0']?.find((a) => a.family === 'IPv4')?.address;
  if (docker0 !== undefined) return docker0;
  const subnet = config.map((c) => /^(\d+\.\d+\.\d+\.)0\/\d+$/.exec(c.Subnet ?? '')).find((m) => m !== null);
  if (subnet?.[1] !== undefined) return `${subnet[1]}1`;
  throw new Error(`cannot find the Docker bridge's gateway: ${docker.stderr || docker.stdout}`);
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
