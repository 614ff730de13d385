// DPoP across replicas on one real redis-server: a proof's jti spent at one replica is spent at every one,
// and a token bound at one is checked with its key at another.
import { createHash, randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockIdp, type MockIdp } from '../../src/index.js';
import { createLogger } from '../../src/log.js';
import { BATCH_JOB, DEFAULT_FIXTURES } from '../helpers/bundled.js';
import { expectOAuthError } from '../helpers/assert.js';
import { postForm, readAnswer } from '../helpers/http.js';
import { startRedis, SKIP_REDIS, type RedisServer } from '../helpers/redis.js';
import { endpointsOf } from '../helpers/server.js';

/** Both replicas answer as this issuer, so one proof's htu names the token endpoint of either. */
const ISSUER = 'http://idp.test/realms/mock';
const { publicKey, privateKey } = await generateKeyPair('ES256');
const jwk = await exportJWK(publicKey);

describe.skipIf(SKIP_REDIS)('DPoP on replicas sharing one Redis', () => {
  let redis: RedisServer;
  let a: MockIdp;
  let b: MockIdp;

  beforeAll(async () => {
    redis = await startRedis();
    const options = {
      fixtures: DEFAULT_FIXTURES,
      store: redis.url,
      issuer: ISSUER,
      host: '127.0.0.1',
      port: 0,
      logger: createLogger('silent'),
    };
    a = await startMockIdp(options);
    b = await startMockIdp(options);
  });
  afterAll(async () => {
    await Promise.all([a.close(), b.close()]);
    await redis.stop();
  });

  const local = (idp: MockIdp) => endpointsOf(`${idp.url}/realms/mock`);
  const proof = (htm: string, htu: string, claims: Record<string, unknown> = {}): Promise<string> =>
    new SignJWT({ htm, htu, jti: randomUUID(), ...claims })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk })
      .setIssuedAt()
      .sign(privateKey);
  const clientCredentials = (idp: MockIdp, dpop: string) =>
    postForm(
      local(idp).token,
      { grant_type: 'client_credentials' },
      { authorization: BATCH_JOB, headers: { dpop } },
    );

  it('a proof used at one replica is refused at the other', async () => {
    const once = await proof('POST', `${ISSUER}/protocol/openid-connect/token`);
    const first = await clientCredentials(a, once);
    expect(first.status, first.text).toBe(200);
    const again = await clientCredentials(b, once);
    expectOAuthError(again, 400, 'invalid_dpop_proof');
    expect(again.json['error_description']).toMatch(/jti was already used/);
  });

  it('a token bound at one replica is answered at the other only with a proof of its key', async () => {
    const issued = await clientCredentials(a, await proof('POST', `${ISSUER}/protocol/openid-connect/token`));
    expect(issued.status, issued.text).toBe(200);
    const token = issued.json['access_token'] as string;
    const userinfo = `${ISSUER}/protocol/openid-connect/userinfo`;
    const ath = createHash('sha256').update(token).digest('base64url');
    const answer = await readAnswer(
      await fetch(local(b).userinfo, {
        headers: { authorization: `DPoP ${token}`, dpop: await proof('GET', userinfo, { ath }) },
      }),
    );
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json['preferred_username']).toBe('service-account-batch-job');
  });
});
