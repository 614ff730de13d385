// idp.token(): a real token response from a real flow (client_credentials, or the code flow with login_hint
// and PKCE), verified with jose as a client would; the journal shows the flow ran over HTTP.
import {
  calculateJwkThumbprint,
  createLocalJWKSet,
  exportJWK,
  generateKeyPair,
  jwtVerify,
  type JSONWebKeySet,
} from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { TokenFlowError } from '../../src/index.js';
import { useIdp, Y2030 } from '../helpers/server.js';

const idp = useIdp();
let jwks: ReturnType<typeof createLocalJWKSet>;
beforeAll(async () => {
  jwks = createLocalJWKSet((await (await fetch(idp.endpoints.certs)).json()) as JSONWebKeySet);
});

describe('idp.token()', () => {
  it('client_credentials: a form-urlencoded Basic secret from the fixtures', async () => {
    const tokens = await idp.token({ client: 'ledger-sync', scope: 'ledger.read' });
    const { payload } = await jwtVerify(tokens.access_token, jwks, {
      issuer: idp.issuer,
      audience: 'ledger-api',
    });
    expect(payload).toMatchObject({ azp: 'ledger-sync', scope: 'ledger.read' });
    expect(tokens.id_token).toBeUndefined();
  });

  it.each([
    ['a confidential client (Basic)', 'teller-web', 'ingrid', 'Ingrid Fjeld'],
    ['a client_secret_post client', 'counter-app', 'ola', 'Ola Strand'],
    ['a public client with PKCE required and a /* redirect URI', 'kiosk-spa', 'ola', 'Ola Strand'],
  ])('the code flow for %s', async (_name, client, user, name) => {
    const tokens = await idp.token({ client, user, scope: 'openid profile' });
    const { payload } = await jwtVerify(tokens.id_token as string, jwks, {
      issuer: idp.issuer,
      audience: client,
    });
    expect(payload).toMatchObject({ preferred_username: user, name, azp: client });
    expect(tokens.refresh_token).toEqual(expect.any(String));
  });

  it('runs over HTTP: the journal shows authorize and token', async () => {
    await fetch(`${idp.issuer}/mock/requests`, { method: 'DELETE' });
    await idp.token({ client: 'teller-web', user: 'BID:17037912345' });
    expect(idp.requests().map((r) => [r.endpoint, r.status, r.user])).toEqual([
      ['auth', 302, 'ingrid'],
      ['token', 200, 'ingrid'],
    ]);
  });

  it.each([
    ['an unknown client', { client: 'nobody' }, /unknown client "nobody"/],
    ['an unknown user', { client: 'teller-web', user: 'nobody' }, /user "nobody" is not a fixture user/],
    ['a private_key_jwt client', { client: 'vault-signer' }, /authenticates with private_key_jwt.*mint\(\)/],
    [
      'a scope the client may not have',
      { client: 'ledger-sync', scope: 'nope' },
      /answered 400: .*invalid_scope/,
    ],
    ['a wrong secret', { client: 'ledger-sync', secret: 'wrong' }, /answered 401/],
  ])('%s is a TokenFlowError that says why', async (_name, request, message) => {
    const error = await idp.token(request).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokenFlowError);
    expect((error as Error).message).toMatch(message);
  });
});

// The proofs are made on the realm's mock clock: frozen in 2030 here, a proof on the real clock is refused.
describe('idp.token({ dpop }) with the clock frozen in 2030', () => {
  const frozen = useIdp({ clock: Y2030, frozen: true });
  const verify = async (token: string): Promise<Record<string, unknown>> => {
    const keys = (await (await fetch(frozen.endpoints.certs)).json()) as JSONWebKeySet;
    return (
      await jwtVerify(token, createLocalJWKSet(keys), {
        issuer: frozen.issuer,
        currentDate: frozen.clock.now(),
      })
    ).payload;
  };

  it.each(['ES256', 'ES384', 'RS256', 'PS256', 'Ed25519'])(
    'client_credentials with a %s key pair: token_type DPoP, cnf.jkt its thumbprint',
    async (alg) => {
      const keyPair = await generateKeyPair(alg);
      const tokens = await frozen.token({ client: 'ledger-sync', scope: 'ledger.read', dpop: keyPair });
      expect(tokens.token_type).toBe('DPoP');
      const jkt = await calculateJwkThumbprint(await exportJWK(keyPair.publicKey));
      expect((await verify(tokens.access_token))['cnf']).toEqual({ jkt });
    },
  );

  it('the code flow of a public client: the access and the refresh token bound to the key', async () => {
    const keyPair = await generateKeyPair('ES256');
    const tokens = await frozen.token({ client: 'kiosk-spa', user: 'ola', dpop: keyPair });
    const jkt = await calculateJwkThumbprint(await exportJWK(keyPair.publicKey));
    expect(tokens.token_type).toBe('DPoP');
    expect((await verify(tokens.access_token))['cnf']).toEqual({ jkt });
    const [, payload] = (tokens.refresh_token as string).split('.') as [string, string];
    expect(JSON.parse(Buffer.from(payload, 'base64url').toString())).toMatchObject({ cnf: { jkt } });
  });

  it('a key that cannot sign is a TokenFlowError that says so', async () => {
    const keyPair = await generateKeyPair('ECDH-ES');
    const error = await frozen.token({ client: 'ledger-sync', dpop: keyPair }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokenFlowError);
    expect((error as TokenFlowError).message).toMatch(/dpop: the key \(ECDH\) cannot sign a DPoP proof/);
  });
});
