// DPoP across replicas on one real redis-server: a proof's jti spent at one replica is spent at every one,
// and a token bound at one is checked with its key at another.
import { createHash, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockIdp, type MockIdp } from '../../src/index.js';
import { createLogger } from '../../src/log.js';
import { BATCH_JOB, DEFAULT_FIXTURES } from '../helpers/bundled.js';
import { expectOAuthError } from '../helpers/assert.js';
import { postForm, readAnswer } from '../helpers/http.js';
import { startRedis, SKIP_REDIS, type RedisServer } from '../helpers/redis.js';
import { endpointsOf, Y2030 } from '../helpers/server.js';
import { DPOP_IAT_WINDOW_S } from '../../src/oauth/dpop.js';

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

// A proof is accepted only while the mock clock is within its iat window, so its spent jti is kept no
// longer than that, even with the mock clock frozen years ahead of the real one.
describe.skipIf(SKIP_REDIS)('DPoP proof ids in Redis with the mock clock frozen in 2030', () => {
  let redis: RedisServer;
  let idp: MockIdp;
  let client: Redis;

  beforeAll(async () => {
    redis = await startRedis();
    idp = await startMockIdp({
      fixtures: DEFAULT_FIXTURES,
      store: redis.url,
      host: '127.0.0.1',
      port: 0,
      clock: Y2030,
      frozen: true,
      logger: createLogger('silent'),
    });
    client = new Redis(redis.url);
  });
  afterAll(async () => {
    client?.disconnect();
    await idp?.close();
    await redis?.stop();
  });

  const proofAt = (htu: string, iat: number): Promise<string> =>
    new SignJWT({ htm: 'POST', htu, jti: randomUUID(), iat })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk })
      .sign(privateKey);

  it('each spent jti expires within the window in real time, and a replay inside it is still refused', async () => {
    const token = `${idp.url}/realms/mock/protocol/openid-connect/token`;
    const now = idp.clock.nowSeconds();
    const proofs = await Promise.all(
      [-DPOP_IAT_WINDOW_S, -30, 0, 30, DPOP_IAT_WINDOW_S].map((d) => proofAt(token, now + d)),
    );
    for (const dpop of proofs) {
      const answer = await postForm(
        token,
        { grant_type: 'client_credentials' },
        { authorization: BATCH_JOB, headers: { dpop } },
      );
      expect(answer.status, answer.text).toBe(200);
    }
    const keys = await client.keys('*jti:DPoP proof*');
    expect(keys).toHaveLength(proofs.length);
    const ttls = await Promise.all(keys.map((k) => client.pttl(k)));
    for (const ttl of ttls) {
      expect(ttl).toBeGreaterThan(0);
      // iat + window is at most two windows ahead of the mock clock's now.
      expect(ttl).toBeLessThanOrEqual(2 * DPOP_IAT_WINDOW_S * 1000);
    }
    const again = await postForm(
      token,
      { grant_type: 'client_credentials' },
      { authorization: BATCH_JOB, headers: { dpop: proofs[2] as string } },
    );
    expectOAuthError(again, 400, 'invalid_dpop_proof');
  });
});
