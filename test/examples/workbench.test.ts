// The one-call token and journal example of docs/qa.md (shown there without this line), run as a test.
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startMockIdp, type MockIdp } from 'mock-idp';

let idp: MockIdp;
beforeAll(async () => {
  idp = await startMockIdp(); // the bundled fixtures: users alice, bob, carol; clients web-app, batch-job, …
});
afterAll(() => idp.close());

it('gets a real token response for a user in one call, and shows what was sent', async () => {
  // The code flow over HTTP: authorize with login_hint and PKCE, then the code exchange.
  const tokens = await idp.token({ client: 'web-app', user: 'alice', scope: 'openid profile' });
  const jwks = createRemoteJWKSet(new URL(`${idp.issuer}/protocol/openid-connect/certs`));
  const { payload } = await jwtVerify(tokens.id_token ?? '', jwks, {
    issuer: idp.issuer,
    audience: 'web-app',
  });
  expect(payload.name).toBe('Alice Nordmann');

  // A machine token: client_credentials with the client's secret from the fixtures.
  const machine = await idp.token({ client: 'batch-job', scope: 'payments.read' });
  expect(machine.scope).toBe('payments.read');

  // The request journal: what reached the realm, newest last, without secrets, codes or tokens.
  expect(idp.requests({ endpoint: 'token' }).map((r) => [r.client, r.grant, r.user, r.status])).toEqual([
    ['web-app', 'authorization_code', 'alice', 200],
    ['batch-job', 'client_credentials', null, 200],
  ]);
});
