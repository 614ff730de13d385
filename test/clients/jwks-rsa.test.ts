// jwks-rsa + jsonwebtoken, as a resource server verifies access and ID tokens from the JWKS.
import jwt from 'jsonwebtoken';
import jwksRsa from 'jwks-rsa';
import { describe, expect, it } from 'vitest';
import { clientCredentials, loginTokens } from '../helpers/flows.js';
import { decode } from '../helpers/jwt.js';
import { useIdp, type TestIdp } from '../helpers/server.js';

const idp = useIdp();
const past = useIdp({ clock: '2020-01-01T00:00:00Z', frozen: true });

async function verify(target: TestIdp, token: string, audience: string): Promise<jwt.JwtPayload> {
  const jwks = jwksRsa({ jwksUri: target.endpoints.certs, cache: false });
  const key = await jwks.getSigningKey(decode(token).header.kid);
  return jwt.verify(token, key.getPublicKey(), {
    algorithms: ['RS256'],
    issuer: target.issuer,
    audience,
  }) as jwt.JwtPayload;
}

describe('jwks-rsa + jsonwebtoken', () => {
  it('verifies a client_credentials access token for its resource', async () => {
    const { json } = await clientCredentials(idp, 'ledger.read');
    const payload = await verify(idp, json.access_token, 'ledger-api');
    expect(payload).toMatchObject({
      azp: 'ledger-sync',
      typ: 'Bearer',
      scope: 'ledger.read',
      aud: 'ledger-api',
    });
  });

  it('verifies an ID token for its client', async () => {
    const t = await loginTokens(idp, { scope: 'openid profile', nonce: 'n-jwks' });
    const payload = await verify(idp, t.id_token as string, 'teller-web');
    expect(payload).toMatchObject({ typ: 'ID', nonce: 'n-jwks', name: 'Ingrid Fjeld' });
  });

  it.each<[string, () => Promise<{ token: string; target: TestIdp; audience: string }>, string]>([
    [
      'a wrong audience',
      async () => ({
        token: (await clientCredentials(idp, 'statements')).json.access_token,
        target: idp,
        audience: 'ledger-api',
      }),
      'JsonWebTokenError',
    ],
    [
      'a tampered signature',
      async () => ({
        token: `${(await clientCredentials(idp, 'ledger.read')).json.access_token.slice(0, -6)}AAAAAA`,
        target: idp,
        audience: 'ledger-api',
      }),
      'JsonWebTokenError',
    ],
    [
      'an expired token (clock in 2020)',
      async () => ({
        token: (await clientCredentials(past, 'ledger.read')).json.access_token,
        target: past,
        audience: 'ledger-api',
      }),
      'TokenExpiredError',
    ],
    [
      'a key of another server',
      async () => ({
        token: (await clientCredentials(past, 'ledger.read')).json.access_token,
        target: idp,
        audience: 'ledger-api',
      }),
      'SigningKeyNotFoundError',
    ],
  ])('rejects %s', async (_name, make, errorName) => {
    const { token, target, audience } = await make();
    const error = await verify(target, token, audience).catch((e: unknown) => e);
    expect((error as Error).name).toBe(errorName);
  });
});
