// Admin API changes on replicas sharing one redis-server: a user made at one replica gets a token at the
// other at once (read-your-writes), and the change is gone when the fixtures are replaced.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import KcAdminClient from '@keycloak/keycloak-admin-client';
import { Redis } from 'ioredis';
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  decodeProtectedHeader,
  jwtVerify,
  type JSONWebKeySet,
} from 'jose';
import { describe, expect, it } from 'vitest';
import { basic, postForm } from '../helpers/http.js';
import { SKIP_REDIS, useRedis, type RedisServer } from '../helpers/redis.js';
import { startIdp, useIdp, type TestIdp } from '../helpers/server.js';

const ACME = fileURLToPath(new URL('../fixtures-data/keycloak/acme-realm.json', import.meta.url));

async function adminAt(idp: TestIdp): Promise<KcAdminClient> {
  const kc = new KcAdminClient({ baseUrl: idp.url, realmName: 'master' });
  await kc.auth({ username: 'admin', password: 'admin', grantType: 'password', clientId: 'admin-cli' });
  return kc;
}

/** One redis-server and two replicas A and B of the acme realm on it, for the calling describe block. */
function useReplicas(): { redis: RedisServer; a: TestIdp; b: TestIdp } {
  const redis = useRedis();
  const replica = (): TestIdp => useIdp(() => ({ fixtures: ACME, store: redis.url }));
  return { redis, a: replica(), b: replica() };
}

describe.skipIf(SKIP_REDIS)('admin changes on two replicas', () => {
  const { redis, a, b } = useReplicas();

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

  it('a client made by dynamic registration gets tokens after admin changes, at the same replica and at another', async () => {
    const registration = await fetch(`${a.url}/realms/acme/clients-registrations/openid-connect`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'registered', grant_types: ['client_credentials'] }),
    });
    expect(registration.status).toBe(201);
    const { client_id: id, client_secret: secret } = (await registration.json()) as Record<string, string>;
    const serviceGrant = (idp: TestIdp) =>
      postForm(
        `${idp.url}/realms/acme/protocol/openid-connect/token`,
        { grant_type: 'client_credentials' },
        { headers: { authorization: basic(id ?? '', secret ?? '') } },
      );
    const atA = await adminAt(a);
    const atB = await adminAt(b);
    await atA.users.create({ realm: 'acme', username: 'after-registration', enabled: true });
    await atB.realms.update({ realm: 'acme' }, { displayName: 'Acme, changed at B' });
    for (const idp of [a, b]) {
      const answer = await serviceGrant(idp);
      expect(answer.status, JSON.stringify(answer.json)).toBe(200);
      const issuer = `${idp.url}/realms/acme`;
      const jwks = createRemoteJWKSet(new URL(`${issuer}/protocol/openid-connect/certs`));
      const { payload } = await jwtVerify(String(answer.json['access_token']), jwks, { issuer });
      expect(payload['azp']).toBe(id);
    }
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

  /** A replica started now serves each of `realms` (a grant in each answers 200). */
  const expectServedByNewReplica = async (realms: string[]): Promise<void> => {
    const d = await startIdp({ fixtures: ACME, store: redis.url });
    try {
      for (const realm of realms) {
        const answer = await grantIn(d, realm);
        expect(answer.status, `${realm}: ${JSON.stringify(answer.json)}`).toBe(200);
      }
    } finally {
      await d.close();
    }
  };

  it('a realm made at run time is written back when the store comes back empty', async () => {
    const atA = await adminAt(a);
    await atA.realms.create(depot('kept'));
    await redis.flush();
    // Replicas are started once the running ones are UP again (docs/replicas.md: one started before they
    // noticed the empty store makes keys of its own). It never saw "kept": the realm it makes starts the
    // list again without it.
    for (const idp of [a, b])
      await expect.poll(async () => (await fetch(`${idp.url}/health`)).status, { timeout: 10_000 }).toBe(200);
    const c = await startIdp({ fixtures: ACME, store: redis.url });
    try {
      await (await adminAt(c)).realms.create(depot('fresh'));
      // A's next request for "kept" finds it missing from the list and writes it back before answering
      // (or finds it written back already, by B or by A's poll): a replica started after serves both.
      expect((await grantIn(a, 'kept')).status).toBe(200);
      await expectServedByNewReplica(['kept', 'fresh']);
    } finally {
      await c.close();
    }
  });

  it('a realm made at run time is written back when another replica wrote back the list first without it', async () => {
    const atA = await adminAt(a);
    await atA.realms.create(depot('second-kept'));
    // In one step, so no replica sees the list missing: emptied, and the list written again as a replica
    // that never saw "second-kept" writes it (its one realm, a new epoch).
    const admin = new Redis(redis.url);
    try {
      await admin
        .multi()
        .flushall()
        .hset('mock-idp-realms', 'other', JSON.stringify({ text: JSON.stringify(depot('other')) }))
        .set('mock-idp-realms-version', '1')
        .set('mock-idp-realms-epoch', 'written-back-elsewhere')
        .exec();
    } finally {
      admin.disconnect();
    }
    expect((await grantIn(a, 'second-kept')).status).toBe(200);
    await expectServedByNewReplica(['second-kept', 'other']);
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

describe.skipIf(SKIP_REDIS)('a fixture realm deleted (and made again) on two replicas', () => {
  const { a, b } = useReplicas();

  const acme = (): Record<string, unknown> =>
    JSON.parse(readFileSync(ACME, 'utf8')) as Record<string, unknown>;
  const discovery = (idp: TestIdp) => fetch(`${idp.url}/realms/acme/.well-known/openid-configuration`);
  const jwksAt = async (idp: TestIdp): Promise<JSONWebKeySet> => {
    const response = await fetch(`${idp.url}/realms/acme/protocol/openid-connect/certs`);
    expect(response.status).toBe(200);
    return (await response.json()) as JSONWebKeySet;
  };
  const serviceToken = async (idp: TestIdp): Promise<string> => {
    const answer = await postForm(`${idp.url}/realms/acme/protocol/openid-connect/token`, {
      grant_type: 'client_credentials',
      client_id: 'billing-job',
      client_secret: 'job-secret',
    });
    expect(answer.status, JSON.stringify(answer.json)).toBe(200);
    return String(answer.json['access_token']);
  };

  it('deleted and made again at A before B is asked: B serves the new realm, old tokens do not verify', async () => {
    const old = await serviceToken(b);
    const oldKid = decodeProtectedHeader(old).kid;
    const atA = await adminAt(a);
    await atA.realms.del({ realm: 'acme' });
    await atA.realms.create(acme());
    // B's very next request: the new realm's keys, not the deleted one's.
    for (const idp of [b, a]) {
      const jwks = await jwksAt(idp);
      expect(jwks.keys.map((k) => k.kid)).not.toContain(oldKid);
      await expect(jwtVerify(old, createLocalJWKSet(jwks))).rejects.toThrow();
      // Tokens of the new realm verify at either replica's keys.
      await jwtVerify(await serviceToken(idp), createLocalJWKSet(await jwksAt(idp === a ? b : a)));
    }
  });

  it('deleted at A: the next request at B gets 404, three times in a row', async () => {
    const atA = await adminAt(a);
    for (const round of [1, 2, 3]) {
      expect((await discovery(b)).status, `round ${round}`).toBe(200);
      await atA.realms.del({ realm: 'acme' });
      const gone = await discovery(b);
      expect(gone.status, `round ${round}`).toBe(404);
      expect(await gone.json()).toMatchObject({ error: 'Realm does not exist' });
      await atA.realms.create(acme());
    }
  });
});

describe.skipIf(SKIP_REDIS)('a fixture realm deleted at A, asked at B next', () => {
  const { a, b } = useReplicas();

  it('gets 404 for its discovery and its token endpoint at once, and B lists it no more', async () => {
    expect((await fetch(`${b.url}/realms/acme/.well-known/openid-configuration`)).status).toBe(200);
    await (await adminAt(a)).realms.del({ realm: 'acme' });
    const gone = await fetch(`${b.url}/realms/acme/.well-known/openid-configuration`);
    expect(gone.status).toBe(404);
    const token = await postForm(`${b.url}/realms/acme/protocol/openid-connect/token`, {
      grant_type: 'client_credentials',
      client_id: 'billing-job',
      client_secret: 'job-secret',
    });
    expect(token.status).toBe(404);
    expect((await (await adminAt(b)).realms.find()).map((r) => r.realm)).not.toContain('acme');
  });
});
