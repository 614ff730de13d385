// MockIdpContainer.withTls(): the server's command line and readiness checked without Docker; in Docker, a
// client trusting getCaCertificate() gets a token over https, and the module's own calls trust it too.
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import * as client from 'openid-client';
import { Agent, fetch as undiciFetch } from 'undici';
import { describe, expect, it } from 'vitest';
import { MockIdpContainer } from '../../src/testcontainers/index.js';
import { containerTestsSkipReason, skipContainerTests, useContainer } from './docker.js';

/** What start() would hand Docker, read from the builder without starting anything. */
function planOf(container: MockIdpContainer): {
  args: (runtimeHost?: string) => Promise<string[]>;
  env: Record<string, string>;
  tls: unknown;
} {
  const inside = container as unknown as {
    cliArguments(runtimeHost?: string): Promise<string[]>;
    environment: Record<string, string>;
    waitStrategy: { protocol: unknown };
  };
  return {
    args: (runtimeHost) => inside.cliArguments(runtimeHost),
    env: inside.environment,
    tls: inside.waitStrategy.protocol,
  };
}

describe('MockIdpContainer.withTls', () => {
  it('serve --tls, the CA written where the started container reads it, the hosts asked for', async () => {
    const plan = planOf(new MockIdpContainer().withTls({ hosts: ['mock-idp', '10.9.8.7'] }));
    expect(await plan.args()).toEqual([
      'serve',
      '--tls',
      '--tls-ca-out',
      '/tmp/mock-idp-ca.pem',
      '--tls-host',
      'mock-idp',
      '--tls-host',
      '10.9.8.7',
    ]);
    expect(plan.env['MOCK_IDP_TLS']).toBe('true');
    expect(plan.tls).toBe('https');
  });

  // The host Testcontainers' URLs name: the Docker bridge's gateway when the tests run in a container.
  it.each([
    ['localhost', []],
    ['127.0.0.1', []],
    ['mock-idp', []],
    ['172.17.0.1', ['--tls-host', '172.17.0.1']],
  ])('the container runtime host %s is named in the certificate unless already there', async (host, more) => {
    const plan = planOf(new MockIdpContainer().withTls({ hosts: ['mock-idp'] }));
    expect(await plan.args(host)).toEqual([
      'serve',
      '--tls',
      '--tls-ca-out',
      '/tmp/mock-idp-ca.pem',
      '--tls-host',
      'mock-idp',
      ...more,
    ]);
  });

  it('without it: http, and no CA', async () => {
    const plan = planOf(new MockIdpContainer());
    expect(await plan.args()).toEqual(['serve']);
    expect(plan.tls).toBe('http');
  });
});

describe.skipIf(skipContainerTests)(
  `MockIdpContainer.withTls in Docker ${containerTestsSkipReason ?? ''}`,
  () => {
    const idp = useContainer(() => new MockIdpContainer().withTls().start());

    it('a client that trusts getCaCertificate() gets a token over https, verified with jose', async () => {
      const ca = idp.getCaCertificate();
      expect(ca).toMatch(/^-----BEGIN CERTIFICATE-----/);
      expect(idp.getBaseUrl()).toMatch(/^https:\/\//);
      const dispatcher = new Agent({ connect: { ca } });
      const trusting = (url: string | URL, init: RequestInit = {}): Promise<Response> =>
        undiciFetch(url, { ...(init as object), dispatcher }) as unknown as Promise<Response>;
      const config = await client.discovery(
        new URL(idp.getIssuer()),
        'batch-job',
        undefined,
        client.ClientSecretBasic('batch-secret'),
        { [client.customFetch]: (url, options) => trusting(url, options as RequestInit) },
      );
      config[client.customFetch] = (url, options) => trusting(url, options as RequestInit);
      expect(config.serverMetadata().token_endpoint).toBe(idp.getTokenEndpoint());
      const tokens = await client.clientCredentialsGrant(config);
      const jwks = (await (await trusting(idp.getJwksUri())).json()) as JSONWebKeySet;
      const { payload } = await jwtVerify(tokens.access_token, createLocalJWKSet(jwks), {
        issuer: idp.getIssuer(),
      });
      expect(payload['azp']).toBe('batch-job');
    });

    it('a client that does not trust it is refused', async () => {
      await expect(fetch(idp.getDiscoveryUrl())).rejects.toThrow('fetch failed');
    });

    it("the module's own calls (getTokenResponse, mint) trust the CA", async () => {
      const token = await idp.getTokenResponse({ client: 'batch-job' });
      expect(token.access_token.split('.')).toHaveLength(3);
      const minted = await idp.mint({ type: 'access', client: 'batch-job' });
      expect(minted.claims['iss']).toBe(idp.getIssuer());
    });
  },
);
