// The Testcontainers example of docs/testcontainers.md as written, plus a Docker guard (readme-example-sync checks it).
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { MockIdpContainer, type StartedMockIdpContainer } from 'mock-idp/testcontainers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skipContainerTests } from './docker.js'; // guard

describe.skipIf(skipContainerTests)('payments API against mock-idp', () => {
  let idp: StartedMockIdpContainer;

  beforeAll(async () => {
    idp = await new MockIdpContainer() // $MOCK_IDP_IMAGE, else the package's server on node:24
      .withFixtures(`${import.meta.dirname}/users.yaml`)
      .withClock('2030-01-01T00:00:00Z', { frozen: true })
      .withSeed('readme')
      .start();
  });

  afterAll(async () => {
    await idp?.stop();
  });

  it('gets a client_credentials token that verifies against the JWKS', async () => {
    const response = await fetch(idp.getTokenEndpoint(), {
      method: 'POST',
      headers: { authorization: `Basic ${btoa('batch-job:batch-secret')}` },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'payments.read' }),
    });
    const { access_token } = (await response.json()) as { access_token: string };

    const jwks = createRemoteJWKSet(new URL(idp.getJwksUri()));
    const { payload } = await jwtVerify(access_token, jwks, {
      issuer: idp.getIssuer(),
      audience: 'payments-api',
      currentDate: new Date('2030-01-01T00:00:00Z'),
    });
    expect(payload.iat).toBe(Date.parse('2030-01-01T00:00:00Z') / 1000);
  });

  it('mints a token with the wrong audience for a negative test', async () => {
    const { token, claims } = await idp.mint({
      type: 'access',
      client: 'batch-job',
      user: 'alice',
      claims: { aud: 'someone-else' },
    });
    expect(claims.aud).toBe('someone-else');

    const jwks = createRemoteJWKSet(new URL(idp.getJwksUri()));
    const verify = jwtVerify(token, jwks, {
      issuer: idp.getIssuer(),
      audience: 'payments-api',
      currentDate: new Date('2030-01-01T00:00:00Z'),
    });
    await expect(verify).rejects.toThrow('unexpected "aud" claim value');
  });
});
