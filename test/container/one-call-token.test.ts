// StartedMockIdpContainer: getAccessToken / getTokenResponse run the real flows against the container,
// with the client secrets read from the mounted fixtures; requests() reads its journal.
import {
  calculateJwkThumbprint,
  createRemoteJWKSet,
  decodeJwt,
  exportJWK,
  generateKeyPair,
  jwtVerify,
} from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MockIdpContainer } from '../../src/testcontainers/index.js';
import { containerTestsSkipReason, skipContainerTests, useContainer } from './docker.js';
import { TEST_FIXTURES, writeTempFixtures } from './test-fixtures.js';

/** The shared test realm plus a web app for the code flow, with a secret that needs form-encoding. */
const FIXTURES = TEST_FIXTURES.replace(
  'clients:\n',
  "clients:\n  web-app:\n    secret: 'web secret/with+chars'\n    redirectUris: [http://localhost:3000/*]\n",
);

describe.skipIf(skipContainerTests)(
  `one-call tokens from the container ${containerTestsSkipReason ?? ''}`,
  () => {
    let fixtures: Awaited<ReturnType<typeof writeTempFixtures>>;
    beforeAll(async () => {
      fixtures = await writeTempFixtures(FIXTURES);
    });
    afterAll(async () => {
      await fixtures?.remove();
    });
    const idp = useContainer(() =>
      new MockIdpContainer().withFixtures(fixtures.path).withQaToken('qa-secret-1').start(),
    );

    it('getAccessToken: client_credentials with the secret of the fixtures', async () => {
      const token = await idp.getAccessToken({ client: 'batch-job', scope: 'payments.read' });
      const { payload } = await jwtVerify(token, createRemoteJWKSet(new URL(idp.getJwksUri())), {
        issuer: idp.getIssuer(),
        audience: 'payments-api',
      });
      expect(payload['azp']).toBe('batch-job');
    });

    it('getTokenResponse: the code flow for a user (login_hint, PKCE)', async () => {
      const tokens = await idp.getTokenResponse({
        client: 'web-app',
        user: 'alice',
        scope: 'openid profile',
      });
      const { payload } = await jwtVerify(
        tokens.id_token as string,
        createRemoteJWKSet(new URL(idp.getJwksUri())),
        {
          issuer: idp.getIssuer(),
          audience: 'web-app',
        },
      );
      expect(payload).toMatchObject({ preferred_username: 'alice', name: 'Alice Nordmann' });
    });

    it('requests(): the journal, through the QA token', async () => {
      const journal = await idp.requests({ endpoint: 'token' });
      expect(journal.map((r) => [r.client, r.status])).toEqual([
        ['batch-job', 200],
        ['web-app', 200],
      ]);
    });
  },
);

describe.skipIf(skipContainerTests)(
  `one-call tokens from a container whose clock is set ${containerTestsSkipReason ?? ''}`,
  () => {
    const idp = useContainer(() =>
      new MockIdpContainer().withClock('2030-01-01T00:00:00Z', { frozen: true }).start(),
    );

    it('getTokenResponse({ dpop }): the proof is made on the server clock, the token bound to the key', async () => {
      const keys = await generateKeyPair('ES256');
      const tokens = await idp.getTokenResponse({ client: 'batch-job', dpop: keys });
      expect(tokens.token_type).toMatch(/^dpop$/i);
      const claims = decodeJwt(tokens.access_token);
      expect(claims['iat']).toBe(Date.parse('2030-01-01T00:00:00Z') / 1000);
      expect(claims['cnf']).toEqual({ jkt: await calculateJwkThumbprint(await exportJWK(keys.publicKey)) });
    });
  },
);
