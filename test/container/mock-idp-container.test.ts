// MockIdpContainer against the real image: a mounted fixtures file, discovery → token → introspection, JWKS.
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MockIdpContainer, MockIdpContainerError } from '../../src/testcontainers/index.js';
import { containerTestsSkipReason, skipContainerTests, useContainer } from './docker.js';
import { basic } from '../helpers/http.js';
import { clientCredentials, writeTempFixtures } from './test-fixtures.js';

describe.skipIf(skipContainerTests)(`MockIdpContainer ${containerTestsSkipReason ?? ''}`, () => {
  describe('with a mounted fixtures file and real time', () => {
    let fixtures: Awaited<ReturnType<typeof writeTempFixtures>>;
    beforeAll(async () => {
      fixtures = await writeTempFixtures();
    });
    afterAll(async () => {
      await fixtures?.remove();
    });
    const idp = useContainer(() => new MockIdpContainer().withFixtures(fixtures.path).start());

    it('serves the realm named in the fixtures under the mapped port', async () => {
      const origin = `http://${idp.getHost()}:${idp.getMappedPort(8080)}`;
      expect(idp.getRealm()).toBe('ci-realm');
      expect(idp.getIssuer()).toBe(`${origin}/realms/ci-realm`);
      const health = await fetch(`${origin}/health`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: 'UP' });
    });

    it('runs discovery → client_credentials → introspection; the token verifies against the JWKS', async () => {
      const discovery = await fetch(idp.getDiscoveryUrl());
      expect(discovery.status).toBe(200);
      const metadata = (await discovery.json()) as Record<string, string>;
      expect(metadata.issuer).toBe(idp.getIssuer());
      expect(metadata.token_endpoint).toBe(idp.getTokenEndpoint());
      expect(metadata.jwks_uri).toBe(idp.getJwksUri());
      expect(metadata.introspection_endpoint).toBe(idp.getIntrospectionEndpoint());
      const mappedPort = `:${idp.getMappedPort(8080)}/`;
      for (const key of ['authorization_endpoint', 'token_endpoint', 'jwks_uri', 'introspection_endpoint']) {
        expect(metadata[key], key).toContain(mappedPort);
      }

      const accessToken = await clientCredentials(metadata.token_endpoint ?? '');
      const jwks = createRemoteJWKSet(new URL(metadata.jwks_uri ?? ''));
      const { payload, protectedHeader } = await jwtVerify(accessToken, jwks, {
        issuer: idp.getIssuer(),
        audience: 'payments-api',
      });
      expect(protectedHeader.alg).toBe('RS256');
      expect(payload.azp).toBe('batch-job');

      const introspection = await fetch(metadata.introspection_endpoint ?? '', {
        method: 'POST',
        headers: { authorization: basic('payments-api', 'rs-secret') },
        body: new URLSearchParams({ token: accessToken }),
      });
      expect(introspection.status).toBe(200);
      expect(await introspection.json()).toMatchObject({
        active: true,
        iss: idp.getIssuer(),
        client_id: 'batch-job',
      });
    });

    it('mint() rejects with MINT_FAILED and the status when the server refuses', async () => {
      const refused = idp.mint({ type: 'access', client: 'no-such-client' });
      await expect(refused).rejects.toBeInstanceOf(MockIdpContainerError);
      await expect(refused).rejects.toMatchObject({ code: 'MINT_FAILED', status: 400 });
    });
  });

  describe('with the bundled fixtures', () => {
    const idp = useContainer(() => new MockIdpContainer().start());

    it('serves fixtures/default.yaml in realm mock', async () => {
      expect(idp.getIssuer()).toMatch(/\/realms\/mock$/);
      const discovery = await fetch(idp.getDiscoveryUrl());
      expect(discovery.status).toBe(200);
      expect(((await discovery.json()) as { issuer: string }).issuer).toBe(idp.getIssuer());
    });
  });

  it('start() rejects with the server message when the fixtures file is invalid', async () => {
    const broken = await writeTempFixtures('clients:\n  web: { secrt: x }\n');
    try {
      await expect(new MockIdpContainer().withFixtures(broken.path).start()).rejects.toThrow(
        /\/fixtures\/users\.yaml:2:\d+.*secrt/,
      );
    } finally {
      await broken.remove();
    }
  });

  it('start() rejects with FIXTURES_UNREADABLE when the fixtures file is missing', async () => {
    await expect(new MockIdpContainer().withFixtures('/no/such/users.yaml').start()).rejects.toMatchObject({
      code: 'FIXTURES_UNREADABLE',
    });
  });
});
