// MockIdpContainer withIssuer on a Docker network: another container reaches it by alias and sees that issuer.
import { GenericContainer, Network, type StartedNetwork, type StartedTestContainer } from 'testcontainers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MockIdpContainer, type StartedMockIdpContainer } from '../../src/testcontainers/index.js';
import { containerTestsSkipReason, skipContainerTests } from './docker.js';
import { writeTempFixtures } from './test-fixtures.js';

const ISSUER = 'http://mock-idp:8080/realms/ci-realm';

// Runs in the peer container (the same image has node): discovery, then a token, over the network alias.
const PEER_SCRIPT = `
const discovery = await (await fetch('${ISSUER}/.well-known/openid-configuration')).json();
const response = await fetch(discovery.token_endpoint, {
  method: 'POST',
  headers: { authorization: 'Basic ' + btoa('batch-job:batch-secret') },
  body: new URLSearchParams({ grant_type: 'client_credentials' }),
});
const { access_token } = await response.json();
const iss = JSON.parse(Buffer.from(access_token.split('.')[1], 'base64url')).iss;
console.log(JSON.stringify({ issuer: discovery.issuer, tokenEndpoint: discovery.token_endpoint, iss }));
`;

describe.skipIf(skipContainerTests)(`MockIdpContainer withIssuer ${containerTestsSkipReason ?? ''}`, () => {
  let fixtures: Awaited<ReturnType<typeof writeTempFixtures>>;
  let network: StartedNetwork;
  let idp: StartedMockIdpContainer;
  let peer: StartedTestContainer;
  beforeAll(async () => {
    fixtures = await writeTempFixtures();
    network = await new Network().start();
    idp = await new MockIdpContainer()
      .withFixtures(fixtures.path)
      .withIssuer(ISSUER)
      .withNetwork(network)
      .withNetworkAliases('mock-idp')
      .start();
    // An idle peer on the same network; exiting on SIGTERM lets stop() return at once.
    peer = await new GenericContainer(process.env.MOCK_IDP_IMAGE ?? '')
      .withNetwork(network)
      .withEntrypoint([
        'node',
        '-e',
        "process.on('SIGTERM', () => process.exit(0)); setInterval(() => {}, 1e6)",
      ])
      .start();
  });
  afterAll(async () => {
    await peer?.stop();
    await idp?.stop();
    await network?.stop();
    await fixtures?.remove();
  });

  it('reports the fixed issuer, while its URLs stay reachable from the host', async () => {
    expect(idp.getIssuer()).toBe(ISSUER);
    const discovery = (await (await fetch(idp.getDiscoveryUrl())).json()) as { issuer: string };
    expect(discovery.issuer).toBe(ISSUER);
  });

  it('serves another container on the network under that issuer', async () => {
    const result = await peer.exec(['node', '--input-type=module', '-e', PEER_SCRIPT]);
    expect(result.exitCode, result.output).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      issuer: ISSUER,
      tokenEndpoint: `${ISSUER}/protocol/openid-connect/token`,
      iss: ISSUER,
    });
  });
});
