// MockIdpContainer withClock/withSeed/withKey and mint(): fixed time, the given key, tokens that verify.
import { generateKeyPairSync } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MockIdpContainer } from '../../src/testcontainers/index.js';
import { containerTestsSkipReason, skipContainerTests, useContainer } from './docker.js';
import { clientCredentials, writeTempFixtures } from './test-fixtures.js';

const START = '2030-01-01T00:00:00Z';
const START_EPOCH = Date.parse(START) / 1000;
const title = `MockIdpContainer withClock, withSeed, withKey, mint() ${containerTestsSkipReason ?? ''}`;

describe.skipIf(skipContainerTests)(title, () => {
  const key = generateKeyPairSync('rsa', { modulusLength: 2048 });
  let fixtures: Awaited<ReturnType<typeof writeTempFixtures>>;
  let keyPath: string;
  beforeAll(async () => {
    fixtures = await writeTempFixtures();
    // Private keys are usually owner-only; the container's non-root user must still read the copy.
    keyPath = join(dirname(fixtures.path), 'signing-key.pem');
    await writeFile(keyPath, key.privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  });
  afterAll(async () => {
    await fixtures?.remove();
  });
  const idp = useContainer(() =>
    new MockIdpContainer()
      .withFixtures(fixtures.path)
      .withClock(START, { frozen: true })
      .withSeed('container-test')
      .withKey(keyPath)
      .start(),
  );

  it('issues tokens at the fixed, frozen time', async () => {
    const first = decodeJwt(await clientCredentials(idp.getTokenEndpoint()));
    expect(first.iat).toBe(START_EPOCH);
    expect(first.exp).toBe(START_EPOCH + 300);
    const second = decodeJwt(await clientCredentials(idp.getTokenEndpoint()));
    expect(second.iat).toBe(START_EPOCH);
    expect(second.jti).not.toBe(first.jti);
  });

  it('signs with the key given to withKey', async () => {
    const jwks = (await (await fetch(idp.getJwksUri())).json()) as {
      keys: { n?: string; use?: string; kty?: string }[];
    };
    // The RSA signing key is the given one; the EC key (ES256, interface version 3) is made beside it.
    const signing = jwks.keys.filter((k) => k.use === 'sig' && k.kty === 'RSA');
    expect(signing.map((k) => k.n)).toEqual([key.publicKey.export({ format: 'jwk' }).n]);
  });

  it('mints a token for a fixture user, signed with the JWKS key, at the fixed time', async () => {
    const minted = await idp.mint({
      type: 'access',
      client: 'batch-job',
      user: 'alice',
      claims: { custom: 'yes' },
    });
    expect(minted.header).toMatchObject({ alg: 'RS256', kid: expect.any(String) });
    expect(minted.claims).toMatchObject({
      iat: START_EPOCH,
      iss: idp.getIssuer(),
      azp: 'batch-job',
      custom: 'yes',
      name: 'Alice Nordmann',
    });
    const { payload } = await jwtVerify(minted.token, createRemoteJWKSet(new URL(idp.getJwksUri())), {
      issuer: idp.getIssuer(),
      currentDate: new Date(START),
    });
    expect(payload).toEqual(minted.claims);
  });
});
