// A Keycloak realm JSON client with "Require DPoP bound tokens" (attribute dpop.bound.access.tokens) gets
// tokens only with a DPoP proof, as in Keycloak; a client without it still may send none.
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import { expectOAuthError } from '../helpers/assert.js';
import { tempDir } from '../helpers/files.js';
import { basic, postForm } from '../helpers/http.js';
import { useIdp } from '../helpers/server.js';

const tmp = tempDir();
afterAll(() => tmp.remove());
const realmFile = join(tmp.dir, 'dpop-realm.json');
writeFileSync(
  realmFile,
  JSON.stringify({
    realm: 'dpop',
    clients: [
      {
        clientId: 'bound-job',
        secret: 'bound-secret',
        standardFlowEnabled: false,
        serviceAccountsEnabled: true,
        attributes: { 'dpop.bound.access.tokens': 'true' },
      },
      {
        clientId: 'plain-job',
        secret: 'plain-secret',
        standardFlowEnabled: false,
        serviceAccountsEnabled: true,
        attributes: { 'dpop.bound.access.tokens': 'false' },
      },
    ],
  }),
);

const idp = useIdp(() => ({ fixtures: realmFile }));
const { publicKey, privateKey } = await generateKeyPair('ES256');
const jwk = await exportJWK(publicKey);

const proof = (): Promise<string> =>
  new SignJWT({ htm: 'POST', htu: idp.endpoints.token, jti: randomUUID() })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk })
    .setIssuedAt()
    .sign(privateKey);

const clientCredentials = (id: string, secret: string, dpop?: string) =>
  postForm(
    idp.endpoints.token,
    { grant_type: 'client_credentials' },
    { authorization: basic(id, secret), ...(dpop !== undefined ? { headers: { dpop } } : {}) },
  );

describe('dpop.bound.access.tokens', () => {
  it('"true": a token request without a proof is refused, one with a proof gets a DPoP token', async () => {
    const refused = await clientCredentials('bound-job', 'bound-secret');
    expectOAuthError(refused, 400, 'invalid_dpop_proof');
    expect(refused.json['error_description']).toBe(
      'Client "bound-job" requires a DPoP proof: send a DPoP header',
    );
    const bound = await clientCredentials('bound-job', 'bound-secret', await proof());
    expect(bound.status, bound.text).toBe(200);
    expect(bound.json['token_type']).toBe('DPoP');
  });

  it('"false": no proof needed', async () => {
    const answer = await clientCredentials('plain-job', 'plain-secret');
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json['token_type']).toMatch(/^bearer$/i);
  });
});
