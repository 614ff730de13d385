// Admin API changes on replicas sharing one redis-server: a user made at one replica gets a token at the
// other at once (read-your-writes), and the change is gone when the fixtures are replaced.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import KcAdminClient from '@keycloak/keycloak-admin-client';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postForm } from '../helpers/http.js';
import { startRedis, SKIP_REDIS, type RedisServer } from '../helpers/redis.js';
import { startIdp, type TestIdp } from '../helpers/server.js';

const ACME = fileURLToPath(new URL('../fixtures-data/keycloak/acme-realm.json', import.meta.url));

describe.skipIf(SKIP_REDIS)('admin changes on two replicas', () => {
  let redis: RedisServer;
  let a: TestIdp;
  let b: TestIdp;

  beforeAll(async () => {
    redis = await startRedis();
    a = await startIdp({ fixtures: ACME, store: redis.url });
    b = await startIdp({ fixtures: ACME, store: redis.url });
  }, 60_000);

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await redis?.stop();
  });

  const passwordGrant = (idp: TestIdp, username: string, password: string) =>
    postForm(`${idp.url}/realms/acme/protocol/openid-connect/token`, {
      grant_type: 'password',
      client_id: 'web-app',
      client_secret: 'web-secret',
      username,
      password,
    });

  it('a user made at A gets a token at B on the next request, three times in a row', async () => {
    const kc = new KcAdminClient({ baseUrl: a.url, realmName: 'master' });
    await kc.auth({ username: 'admin', password: 'admin', grantType: 'password', clientId: 'admin-cli' });
    kc.setConfig({ realmName: 'acme' });
    for (const n of [1, 2, 3]) {
      const { id } = await kc.users.create({
        username: `replica-${n}`,
        enabled: true,
        credentials: [{ type: 'password', value: `pw-${n}`, temporary: false }],
      });
      const answer = await passwordGrant(b, `replica-${n}`, `pw-${n}`);
      expect(answer.status, JSON.stringify(answer.json)).toBe(200);
      const issuer = `${b.url}/realms/acme`;
      const jwks = createRemoteJWKSet(new URL(`${issuer}/protocol/openid-connect/certs`));
      const { payload } = await jwtVerify(String(answer.json['access_token']), jwks, { issuer });
      expect(payload.sub).toBe(id);
    }
    // B's admin API answers what A made.
    const atB = new KcAdminClient({ baseUrl: b.url, realmName: 'master' });
    await atB.auth({ username: 'admin', password: 'admin', grantType: 'password', clientId: 'admin-cli' });
    atB.setConfig({ realmName: 'acme' });
    expect((await atB.users.find({ search: 'replica-' })).map((u) => u.username)).toEqual([
      'replica-1',
      'replica-2',
      'replica-3',
    ]);
  });

  it('a fixtures replacement drops what the admin API made, at every replica', async () => {
    const replaced = await fetch(`${a.url}/realms/acme/mock/fixtures`, {
      method: 'PUT',
      body: readFileSync(ACME, 'utf8'),
    });
    expect(replaced.status).toBe(200);
    const answer = await passwordGrant(b, 'replica-1', 'pw-1');
    expect(answer.status).toBe(401);
    expect(answer.json).toMatchObject({
      error: 'invalid_grant',
      error_description: 'Invalid user credentials',
    });
  });

  const adminAt = async (idp: TestIdp): Promise<KcAdminClient> => {
    const kc = new KcAdminClient({ baseUrl: idp.url, realmName: 'master' });
    await kc.auth({ username: 'admin', password: 'admin', grantType: 'password', clientId: 'admin-cli' });
    return kc;
  };

  const grantIn = (idp: TestIdp, realm: string) =>
    postForm(`${idp.url}/realms/${realm}/protocol/openid-connect/token`, {
      grant_type: 'password',
      client_id: 'depot-app',
      client_secret: 'depot-secret',
      username: 'keeper',
      password: 'keeper-pw',
    });

  const depot = (realm: string) => ({
    realm,
    enabled: true,
    clients: [
      {
        clientId: 'depot-app',
        secret: 'depot-secret',
        publicClient: false,
        directAccessGrantsEnabled: true,
      },
    ],
    users: [
      {
        username: 'keeper',
        enabled: true,
        credentials: [{ type: 'password', value: 'keeper-pw', temporary: false }],
      },
    ],
  });

  it('a realm made at A is served by B on the next request, and deleted at B is gone at A at once', async () => {
    const atA = await adminAt(a);
    const atB = await adminAt(b);
    await atA.realms.create(depot('depot'));
    const answer = await grantIn(b, 'depot');
    expect(answer.status, JSON.stringify(answer.json)).toBe(200);
    // A token of B verifies with A's keys: one realm, one key.
    const issuer = `${a.url}/realms/depot`;
    const jwks = createRemoteJWKSet(new URL(`${issuer}/protocol/openid-connect/certs`));
    const { payload } = await jwtVerify(String(answer.json['access_token']), jwks);
    expect(payload.iss).toBe(`${b.url}/realms/depot`);
    expect((await atB.realms.find()).map((r) => r.realm)).toContain('depot');
    // A change made at B is served at A (the realm's own shared state).
    await atB.users.create({
      realm: 'depot',
      username: 'second',
      enabled: true,
      credentials: [{ type: 'password', value: 'second-pw', temporary: false }],
    });
    expect((await atA.users.find({ realm: 'depot', username: 'second' })).length).toBe(1);
    // The name is taken at every replica.
    await expect(atB.realms.create({ realm: 'depot', enabled: true })).rejects.toMatchObject({
      response: { status: 409 },
    });

    await atB.realms.del({ realm: 'depot' });
    const gone = await fetch(`${a.url}/realms/depot/.well-known/openid-configuration`);
    expect(gone.status).toBe(404);
    expect((await grantIn(a, 'depot')).status).toBe(404);
    expect(await atA.realms.findOne({ realm: 'depot' })).toBeNull();
    expect((await atA.realms.find()).map((r) => r.realm)).not.toContain('depot');

    // Made again, it starts afresh everywhere (the deleted realm's users do not come back).
    await atA.realms.create(depot('depot'));
    expect((await grantIn(b, 'depot')).status).toBe(200);
    expect(await atB.users.find({ realm: 'depot', username: 'second' })).toEqual([]);
  });

  it('a realm made at run time is written back when the store comes back empty', async () => {
    const atA = await adminAt(a);
    await atA.realms.create(depot('kept'));
    await redis.flush();
    // A's next request for it finds the list gone and writes it back; a replica started now serves it.
    expect((await grantIn(a, 'kept')).status).toBe(200);
    const c = await startIdp({ fixtures: ACME, store: redis.url });
    try {
      const answer = await grantIn(c, 'kept');
      expect(answer.status, JSON.stringify(answer.json)).toBe(200);
    } finally {
      await c.close();
    }
  });

  it('users made at A and B at the same moment are all kept', async () => {
    const atA = await adminAt(a);
    const atB = await adminAt(b);
    const names = Array.from({ length: 12 }, (_, n) => `together-${String(n).padStart(2, '0')}`);
    await Promise.all(
      names.map((username, n) =>
        (n % 2 === 0 ? atA : atB).users.create({ realm: 'acme', username, enabled: true }),
      ),
    );
    for (const kc of [atA, atB]) {
      const found = await kc.users.find({ realm: 'acme', search: 'together-', max: 100 });
      expect(found.map((u) => u.username).sort()).toEqual(names);
    }
  });
});
