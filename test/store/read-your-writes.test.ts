// Replicas on one real redis-server never disagree: a write acknowledged at one is seen by the very next
// request at another (no waiting), and a Redis that comes back empty is re-seeded from the replicas.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { Redis } from 'ioredis';
import { authorize, BATCH_JOB, exchangeCode, WEB_APP } from '../helpers/bundled.js';
import { basic, call, get, postForm, type Answer } from '../helpers/http.js';
import { heldLine, startRedis, SKIP_REDIS, type RedisServer } from '../helpers/redis.js';
import { endpointsOf } from '../helpers/server.js';
import { startMockIdp, type MockIdp } from '../../src/index.js';
import { createLogger } from '../../src/log.js';

/** 2031-05-01T00:00:00Z in epoch seconds. */
const MAY_2031 = 1_935_360_000;

const clientCredentials = (base: string, credentials = BATCH_JOB): Promise<Answer> =>
  postForm(endpointsOf(base).token, { grant_type: 'client_credentials' }, credentials);

const accessToken = async (base: string, credentials = BATCH_JOB): Promise<string> => {
  const answer = await clientCredentials(base, credentials);
  expect(answer.status, JSON.stringify(answer.json)).toBe(200);
  return String(answer.json['access_token']);
};

/** The signing keys' kids in certs: the RSA keys first, then the EC key (versions 3 and 4). */
const signingKids = async (base: string): Promise<string[]> => {
  const certs = await get(endpointsOf(base).certs);
  expect(certs.status, JSON.stringify(certs.json)).toBe(200);
  return (certs.json['keys'] as { kid: string; use: string }[])
    .filter((k) => k.use === 'sig')
    .map((k) => k.kid);
};

const health = (idp: MockIdp): Promise<Answer> => get(`${idp.url}/health`);

/**
 * A write at A, then at once the request at B that must see it; run three rounds in a row, so a replica
 * that only catches up on its timer fails.
 */
const WRITES: [string, (a: string, b: string, round: number) => Promise<void>][] = [
  [
    'a clock move: the next token at B is issued at the moved time',
    async (a, b, round) => {
      const moved = await call('PUT', `${a}/mock/clock`, {
        now: new Date((MAY_2031 + round * 60) * 1000).toISOString(),
        frozen: true,
      });
      expect(moved.status).toBe(200);
      expect(decodeJwt(await accessToken(b)).iat).toBe(MAY_2031 + round * 60);
    },
  ],
  [
    'a fault added: the next token request at B fails with it',
    async (a, b) => {
      const added = await call('POST', `${a}/mock/faults`, { endpoint: 'token', status: 503, count: 1 });
      expect(added.status).toBe(201);
      const failed = await clientCredentials(b);
      expect(failed.status).toBe(503);
      expect(failed.json['error']).toBe('temporarily_unavailable');
      expect((await clientCredentials(b)).status).toBe(200);
    },
  ],
  [
    'a key rotation: the next token at B is signed with the new key, which A publishes',
    async (a, b) => {
      const rotated = await call('POST', `${a}/mock/keys/rotate`);
      expect(rotated.status).toBe(201);
      const token = await accessToken(b);
      expect(decodeProtectedHeader(token).kid).toBe(rotated.json['kid']);
      await jwtVerify(token, createRemoteJWKSet(new URL(endpointsOf(a).certs)));
    },
  ],
  [
    'a fixtures PUT: the next token requests at B know the new client and refuse the one it dropped',
    async (a, b, round) => {
      const fixtures = `realm: mock\nclients:\n  night-${round}: { secret: s${round}, grants: [client_credentials] }\n`;
      const put = await fetch(`${a}/mock/fixtures`, { method: 'PUT', body: fixtures });
      expect(put.status).toBe(200);
      const dropped = round === 1 ? BATCH_JOB : basic(`night-${round - 1}`, `s${round - 1}`);
      const refused = await clientCredentials(b, dropped);
      expect(refused.status).toBe(401);
      expect(refused.json['error']).toBe('invalid_client');
      expect(decodeJwt(await accessToken(b, basic(`night-${round}`, `s${round}`))).azp).toBe(
        `night-${round}`,
      );
    },
  ],
  [
    'a client registered, then deleted: the next token request at B authenticates it, then refuses it',
    async (a, b) => {
      const registration = `${a}/clients-registrations/openid-connect`;
      const registered = await fetch(registration, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          redirect_uris: ['http://localhost:4000/cb'],
          grant_types: ['client_credentials'],
        }),
      });
      expect(registered.status).toBe(201);
      const r = (await registered.json()) as Record<string, string>;
      const credentials = basic(String(r['client_id']), String(r['client_secret']));
      expect(decodeJwt(await accessToken(b, credentials)).azp).toBe(r['client_id']);
      const deleted = await fetch(`${registration}/${String(r['client_id'])}`, {
        method: 'DELETE',
        headers: { Authorization: `Bearer ${String(r['registration_access_token'])}` },
      });
      expect(deleted.status).toBe(204);
      const refused = await clientCredentials(b, credentials);
      expect(refused.status).toBe(401);
      expect(refused.json['error']).toBe('invalid_client');
    },
  ],
];

describe.skipIf(SKIP_REDIS)('replicas read their writes and survive an emptied Redis', () => {
  let redis: RedisServer;
  const running: MockIdp[] = [];
  const quiet = createLogger('silent');

  beforeAll(async () => {
    redis = await startRedis();
  });
  afterEach(async () => {
    for (const idp of running.splice(0)) await idp.close();
    await redis.flush();
  });
  afterAll(async () => {
    await redis.stop();
  });

  async function replica(store = redis.url): Promise<MockIdp> {
    const idp = await startMockIdp({ store, logger: quiet });
    running.push(idp);
    return idp;
  }

  it.each(WRITES)('%s (no waiting)', async (_name, writeThenRead) => {
    const [a, b] = [await replica(), await replica()];
    for (const round of [1, 2, 3]) await writeThenRead(a.issuer, b.issuer, round);
  });

  it('a QA read at B right after a write at A sees it', async () => {
    const [a, b] = [await replica(), await replica()];
    for (const seconds of [60, 120, 180]) {
      await call('PUT', `${a.issuer}/mock/clock`, { now: '2031-05-01T00:00:00Z', frozen: true });
      await call('POST', `${a.issuer}/mock/clock`, { seconds });
      expect((await call('GET', `${b.issuer}/mock/clock`)).json['epoch']).toBe(MAY_2031 + seconds);
    }
  });

  /** What A held before the store was emptied: a code not yet exchanged, a refresh token, the key. */
  async function before(
    a: MockIdp,
  ): Promise<{ code: string; refreshToken: string; kid: string; kids: string[] }> {
    await call('PUT', `${a.issuer}/mock/clock`, { now: '2031-05-01T00:00:00Z', frozen: true });
    const exchanged = await exchangeCode(a.issuer, (await authorize(a.issuer, 'alice')).code);
    expect(exchanged.status).toBe(200);
    const { code } = await authorize(a.issuer, 'bob');
    const kids = await signingKids(a.issuer);
    expect(kids).toHaveLength(2);
    return { code, refreshToken: String(exchanged.json['refresh_token']), kid: String(kids[0]), kids };
  }

  /** After the re-seeding: one key and clock everywhere, and what only Redis held answers invalid_grant. */
  async function after(
    a: MockIdp,
    b: MockIdp,
    held: { code: string; refreshToken: string; kid: string; kids: string[] },
  ): Promise<void> {
    const c = await replica();
    // The RSA key and the EC key: both written back, so every replica publishes the same two.
    for (const idp of [a, b, c]) expect(await signingKids(idp.issuer)).toEqual(held.kids);
    const token = await accessToken(c.issuer);
    expect(decodeProtectedHeader(token).kid).toBe(held.kid);
    expect(decodeJwt(token).iat).toBe(MAY_2031);
    const introspected = await postForm(endpointsOf(a.issuer).introspect, { token }, WEB_APP);
    expect(introspected.json['active']).toBe(true);
    const refreshed = await postForm(
      endpointsOf(b.issuer).token,
      { grant_type: 'refresh_token', refresh_token: held.refreshToken },
      WEB_APP,
    );
    expect(refreshed.status).toBe(400);
    expect(refreshed.json).toMatchObject({ error: 'invalid_grant', error_description: 'Session not active' });
    const exchanged = await exchangeCode(c.issuer, held.code);
    expect(exchanged.status).toBe(400);
    expect(exchanged.json).toMatchObject({
      error: 'invalid_grant',
      error_description: 'Code not valid (unknown, or already used: codes are single-use)',
    });
    // New sign-ins work at every replica.
    const { code } = await authorize(b.issuer, 'alice');
    expect((await exchangeCode(c.issuer, code)).status).toBe(200);
  }

  it('FLUSHALL: /health 503 with the reason until re-seeded, then UP; a replica started after agrees', async () => {
    const [a, b] = [await replica(), await replica()];
    const held = await before(a);
    const admin = new Redis(redis.url);
    try {
      // Emptied, and writes held off for a moment (in the same step): the re-seeding waits, so /health can
      // be seen before it.
      await admin.multi().flushall().client('PAUSE', '2000', 'WRITE').exec();
      const down = await health(a);
      expect(down.status).toBe(503);
      expect(down.json).toEqual({
        status: 'DOWN',
        reason: 'the store came back empty; re-seeding realm "mock" from the replicas',
      });
    } finally {
      admin.disconnect();
    }
    await expect.poll(async () => (await health(a)).status, { timeout: 10_000 }).toBe(200);
    // B too, once it has written back what it holds and the store lacks (at once, or after A's re-seeding).
    await expect.poll(async () => (await health(b)).json, { timeout: 10_000 }).toEqual({ status: 'UP' });
    await after(a, b, held);
  });

  it('re-seeded first by a replica that never used the EC key: the one that did writes it back', async () => {
    const [a, b] = [await replica(), await replica()];
    const held = await before(a);
    const admin = new Redis(redis.url);
    try {
      // B, which has not published the EC key (made on first use, at A), notices first: its re-seeding
      // runs first once writes resume, and cannot write back a key it does not hold.
      await admin.multi().flushall().client('PAUSE', '2000', 'WRITE').exec();
      expect((await health(b)).status).toBe(503);
    } finally {
      admin.disconnect();
    }
    for (const idp of [a, b])
      await expect.poll(async () => (await health(idp)).json, { timeout: 10_000 }).toEqual({ status: 'UP' });
    await after(a, b, held);
  });

  it('emptied and re-seeded by a replica that never used the EC key, unseen by the one that did: it writes the key back when it looks', async () => {
    const line = await heldLine(redis);
    try {
      const a = await replica(line.url);
      const b = await replica();
      const held = await before(a);
      // A sees nothing of Redis while it is emptied and B re-seeds it without the EC key (made at A only).
      line.hold();
      await redis.flush();
      await expect.poll(async () => (await health(b)).json, { timeout: 10_000 }).toEqual({ status: 'UP' });
      line.release();
      // A finds the store re-seeded by another: it writes back the values it holds that are missing there.
      await expect.poll(async () => (await health(a)).json, { timeout: 10_000 }).toEqual({ status: 'UP' });
      await after(a, b, held);
    } finally {
      for (const idp of running.splice(0)) await idp.close();
      await line.close();
    }
  });

  it("a real restart of redis-server without persistence (--save ''): re-seeded on reconnect", async () => {
    const [a, b] = [await replica(), await replica()];
    const held = await before(a);
    await redis.stop();
    try {
      expect((await health(a)).status).toBe(503);
    } finally {
      await redis.start();
    }
    for (const idp of [a, b])
      await expect.poll(async () => (await health(idp)).json, { timeout: 10_000 }).toEqual({ status: 'UP' });
    await after(a, b, held);
  });
});
