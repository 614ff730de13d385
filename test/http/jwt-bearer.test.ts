// JWT bearer grant (RFC 7523 §2.1): an assertion vault-signer signs with a key of its jwks names a user, who
// gets a token set; every refusal is invalid_grant with its description.
import * as oidc from 'openid-client';
import { describe, expect, it } from 'vitest';
import { grantsFixtures, JWT_BEARER } from '../helpers/grants.js';
import { postForm, type Answer } from '../helpers/http.js';
import { ASSERTION_TYPE, clientAssertion, vaultSignerKey, verifyToken } from '../helpers/jwt.js';
import { useIdp } from '../helpers/server.js';
import { basicFor } from '../helpers/flows.js';

const idp = useIdp(() => ({ fixtures: grantsFixtures() }));

const INGRID_SUB = '7f3e2a10-5b6c-4d7e-8f90-a1b2c3d4e5f6';

/** An assertion for the grant: iss vault-signer, sub ingrid unless `claims` say otherwise. */
const assertionFor = (claims: Record<string, unknown> = {}, audience?: string): Promise<string> =>
  clientAssertion(idp, {
    claims: { sub: 'ingrid', ...claims },
    ...(audience !== undefined ? { audience } : {}),
  });

/** The grant request, vault-signer authenticating with its own client assertion. */
async function jwtBearer(assertion: string, scope = 'openid profile'): Promise<Answer> {
  return postForm(idp.endpoints.token, {
    grant_type: JWT_BEARER,
    assertion,
    scope,
    client_assertion_type: ASSERTION_TYPE,
    client_assertion: await clientAssertion(idp),
  });
}

describe('JWT bearer grant', () => {
  it.each([
    ['a username', 'ingrid', undefined],
    ["a user's sub", INGRID_SUB, undefined],
    ['a username, aud the issuer', 'ingrid', 'issuer'],
  ])('sub %s: a token set for that user', async (_name, sub, aud) => {
    const assertion = await assertionFor({ sub }, aud === 'issuer' ? idp.issuer : undefined);
    const answer = await jwtBearer(assertion);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json).toMatchObject({ token_type: 'bearer', scope: 'openid profile' });
    const access = await verifyToken(idp, answer.json['access_token'] as string);
    expect(access.claims).toMatchObject({ sub: INGRID_SUB, azp: 'vault-signer', name: 'Ingrid Fjeld' });
    const id = await verifyToken(idp, answer.json['id_token'] as string, 'vault-signer');
    expect(id.claims).toMatchObject({ sub: INGRID_SUB, sid: answer.json['sid'] });
  });

  it('openid-client genericGrantRequest with PrivateKeyJwt client authentication', async () => {
    const config = await oidc.discovery(
      new URL(idp.issuer),
      'vault-signer',
      undefined,
      oidc.PrivateKeyJwt({ key: await vaultSignerKey(), kid: 'vault-signer-2024' }),
      { execute: [oidc.allowInsecureRequests] },
    );
    const tokens = await oidc.genericGrantRequest(config, JWT_BEARER, {
      assertion: await assertionFor({ sub: 'ola' }),
      scope: 'openid profile ledger.read',
    });
    expect(tokens.claims()).toMatchObject({ iss: idp.issuer, aud: 'vault-signer', name: 'Ola Strand' });
    expect(tokens.refresh_token).toBeDefined();
  });

  it('an assertion is single-use', async () => {
    const assertion = await assertionFor();
    expect((await jwtBearer(assertion)).status).toBe(200);
    const again = await jwtBearer(assertion);
    expect(again.status).toBe(400);
    expect(again.json).toEqual({
      error: 'invalid_grant',
      error_description: 'Invalid assertion: jti was already used (assertions are single-use)',
    });
  });

  const now = (): number => Math.floor(Date.now() / 1000);
  it.each<[string, () => Promise<Answer>, number, Record<string, string>]>([
    [
      'a client that does not list the grant',
      async () =>
        postForm(
          idp.endpoints.token,
          { grant_type: JWT_BEARER, assertion: await assertionFor() },
          basicFor('teller-web'),
        ),
      400,
      {
        error: 'unauthorized_client',
        error_description: 'Client "teller-web" is not allowed the JWT bearer grant',
      },
    ],
    [
      'no assertion',
      async () =>
        postForm(idp.endpoints.token, {
          grant_type: JWT_BEARER,
          client_assertion_type: ASSERTION_TYPE,
          client_assertion: await clientAssertion(idp),
        }),
      400,
      { error: 'invalid_request', error_description: 'Missing parameter: assertion' },
    ],
    [
      'an assertion that is not a JWT',
      () => jwtBearer('not.a.jwt'),
      400,
      { error: 'invalid_grant', error_description: 'Invalid assertion: not a JWT' },
    ],
    [
      'iss another client',
      async () => jwtBearer(await assertionFor({ iss: 'teller-web' })),
      400,
      {
        error: 'invalid_grant',
        error_description: 'Invalid assertion: iss check failed: unexpected "iss" claim value',
      },
    ],
    [
      'aud neither the issuer nor the token endpoint',
      async () => jwtBearer(await assertionFor({}, 'http://elsewhere.test/token')),
      400,
      {
        error: 'invalid_grant',
        error_description: 'Invalid assertion: aud check failed: unexpected "aud" claim value',
      },
    ],
    [
      'no exp',
      async () => jwtBearer(await assertionFor({ exp: undefined })),
      400,
      {
        error: 'invalid_grant',
        error_description: 'Invalid assertion: exp missing: missing required "exp" claim',
      },
    ],
    [
      'expired',
      async () => jwtBearer(await assertionFor({ iat: now() - 600, exp: now() - 300 })),
      400,
      {
        error: 'invalid_grant',
        error_description: 'Invalid assertion: "exp" claim timestamp check failed',
      },
    ],
    [
      'nbf in the future',
      async () => jwtBearer(await assertionFor({ nbf: now() + 600 })),
      400,
      {
        error: 'invalid_grant',
        error_description: 'Invalid assertion: nbf check failed: "nbf" claim timestamp check failed',
      },
    ],
    [
      'iat in the future',
      async () => jwtBearer(await assertionFor({ iat: now() + 600, exp: now() + 660 })),
      400,
      {
        error: 'invalid_grant',
        error_description: 'Invalid assertion: "iat" is in the future (by the mock clock and by real time)',
      },
    ],
    [
      'no jti',
      async () => jwtBearer(await assertionFor({ jti: undefined })),
      400,
      {
        error: 'invalid_grant',
        error_description: 'Invalid assertion: jti missing: missing required "jti" claim',
      },
    ],
    [
      'no sub',
      async () => jwtBearer(await assertionFor({ sub: undefined })),
      400,
      { error: 'invalid_grant', error_description: 'Invalid assertion: "sub" claim missing' },
    ],
    [
      'sub no user',
      async () => jwtBearer(await assertionFor({ sub: 'nobody' })),
      400,
      {
        error: 'invalid_grant',
        error_description: `Invalid assertion: sub "nobody" is neither a username nor a user's sub`,
      },
    ],
    [
      'signed by a key not in the jwks',
      async () => {
        const { privateKey } = await (await import('jose')).generateKeyPair('RS256');
        return jwtBearer(await clientAssertion(idp, { key: privateKey, claims: { sub: 'ingrid' } }));
      },
      400,
      { error: 'invalid_grant', error_description: 'Invalid assertion: signature verification failed' },
    ],
    [
      'a scope the client may not request',
      async () => jwtBearer(await assertionFor(), 'statements'),
      400,
      {
        error: 'invalid_scope',
        error_description:
          'Invalid scopes: statements (client "vault-signer" may request: openid profile ledger.read)',
      },
    ],
  ])('refused: %s', async (_name, request, status, body) => {
    const answer = await request();
    expect(answer.status, answer.text).toBe(status);
    expect(answer.json).toEqual(body);
  });
});
