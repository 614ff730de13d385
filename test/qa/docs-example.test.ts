// The vitest example of docs/qa.md ("In a vitest test"), verbatim: a resource server's checks against minted tokens.
import { createRemoteJWKSet, errors, jwtVerify } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startMockIdp, type MockIdp } from 'mock-idp';

let idp: MockIdp;
beforeAll(async () => {
  idp = await startMockIdp({ clock: '2030-01-01T00:00:00Z', frozen: true, seed: 'docs' });
});
afterAll(() => idp.close());

/** What the API under test does with a bearer token. */
function verify(token: string) {
  const jwks = createRemoteJWKSet(new URL(`${idp.issuer}/protocol/openid-connect/certs`));
  return jwtVerify(token, jwks, {
    issuer: idp.issuer,
    audience: 'payments-api',
    requiredClaims: ['sub'],
    currentDate: idp.clock.now(),
  });
}

const alice = { type: 'access', client: 'web-app', user: 'alice', scope: 'payments.read' } as const;

it('accepts a valid token', async () => {
  const { token, claims } = await idp.mint(alice);
  expect(claims.iat).toBe(Date.parse('2030-01-01T00:00:00Z') / 1000);
  expect((await verify(token)).payload.preferred_username).toBe('alice');
});

it.each([
  ['expired', { expiresIn: -60 }, errors.JWTExpired],
  ['not yet valid', { notBefore: '2030-01-01T01:00:00Z' }, errors.JWTClaimValidationFailed],
  ['for another audience', { claims: { aud: 'other-api' } }, errors.JWTClaimValidationFailed],
  ['without a subject', { claims: { sub: null } }, errors.JWTClaimValidationFailed],
  ['with a broken signature', { signature: 'invalid' }, errors.JWSSignatureVerificationFailed],
  ['signed by an unknown key', { signature: 'unknown-key' }, errors.JWKSNoMatchingKey],
  ['unsigned (alg none)', { signature: 'none' }, errors.JOSENotSupported],
] as const)('rejects a token %s', async (_name, edge, error) => {
  const { token } = await idp.mint({ ...alice, ...edge });
  await expect(verify(token)).rejects.toBeInstanceOf(error);
});

it('rejects a token once the clock passes its exp', async () => {
  const { token } = await idp.mint(alice);
  idp.clock.advance(301);
  await expect(verify(token)).rejects.toBeInstanceOf(errors.JWTExpired);
});

it('sees the token endpoint fail once', async () => {
  await fetch(`${idp.issuer}/mock/faults`, {
    method: 'POST',
    body: JSON.stringify({ endpoint: 'token', status: 503, count: 1 }),
  });
  const token = () =>
    fetch(`${idp.issuer}/protocol/openid-connect/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: 'batch-job',
        client_secret: 'batch-secret',
      }),
    });
  expect((await token()).status).toBe(503);
  expect((await token()).status).toBe(200);
});
