// The README's library quick start, verbatim (test/readme.test.ts checks it): an in-process server in a vitest test.
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startMockIdp, type MockIdp } from 'mock-idp';

let idp: MockIdp;
beforeAll(async () => {
  // Fixtures as an object (or a path to a YAML file); port 0 picks a free port on 127.0.0.1.
  idp = await startMockIdp({
    fixtures: {
      scopes: { 'orders.read': { resource: 'orders-api', roles: ['read'] } },
      clients: {
        'orders-job': { secret: 'job-secret', grants: ['client_credentials'], scopes: ['orders.read'] },
        'orders-api': { secret: 'api-secret' },
      },
    },
  });
});
afterAll(() => idp.close());

it('gives the job a token the orders API accepts', async () => {
  const response = await fetch(`${idp.issuer}/protocol/openid-connect/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${btoa('orders-job:job-secret')}` },
    body: new URLSearchParams({ grant_type: 'client_credentials' }),
  });
  const { access_token } = (await response.json()) as { access_token: string };

  const jwks = createRemoteJWKSet(new URL(`${idp.issuer}/protocol/openid-connect/certs`));
  const { payload } = await jwtVerify(access_token, jwks, { issuer: idp.issuer, audience: 'orders-api' });
  expect(payload.resource_access).toEqual({ 'orders-api': { roles: ['read'] } });
});
