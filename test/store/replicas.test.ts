// PRODUCT.md §12: several real `mock-idp serve` processes on one real redis-server behave as one provider.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CompactEncrypt, createRemoteJWKSet, importJWK, jwtVerify, UnsecuredJWT, type JWK } from 'jose';
import { authorize, BATCH_JOB, DEFAULT_FIXTURES, exchangeCode, WEB_APP } from '../helpers/bundled.js';
import { ensureBuilt, runBin, spawnServer, type ServeProcess } from '../helpers/cli.js';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { startMockIdp } from '../../src/index.js';
import { createLogger } from '../../src/log.js';
import { tempDir } from '../helpers/files.js';
import { basic, call, get, postForm, readAnswer, type Answer } from '../helpers/http.js';
import { startRedis, SKIP_REDIS, type RedisServer } from '../helpers/redis.js';
import { endpointsOf } from '../helpers/server.js';

describe.skipIf(SKIP_REDIS)('replicas on one Redis', () => {
  let redis: RedisServer;
  const started: ServeProcess[] = [];

  beforeAll(async () => {
    ensureBuilt();
    redis = await startRedis();
  });
  afterEach(async () => {
    for (const p of started.splice(0)) await p.stop('SIGKILL');
    await redis.flush();
  });
  afterAll(async () => {
    await redis.stop();
  });

  async function replica(args: string[] = []): Promise<ServeProcess> {
    const p = await spawnServer(['--store', redis.url, '--quiet', ...args]);
    started.push(p);
    return p;
  }

  /** Registers a client_credentials client (RFC 7591) at `base`: its registration answer. */
  async function register(base: string): Promise<Record<string, string>> {
    const registered = await fetch(`${base}/clients-registrations/openid-connect`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        redirect_uris: ['http://localhost:4000/cb'],
        grant_types: ['client_credentials'],
        client_name: 'shared',
      }),
    });
    expect(registered.status).toBe(201);
    return (await registered.json()) as Record<string, string>;
  }

  function registeredToken(base: string, r: Record<string, string>): Promise<Answer> {
    const credentials = basic(String(r['client_id']), String(r['client_secret']));
    return postForm(endpointsOf(base).token, { grant_type: 'client_credentials' }, credentials);
  }

  function refresh(base: string, token: string): Promise<Answer> {
    return postForm(endpointsOf(base).token, { grant_type: 'refresh_token', refresh_token: token }, WEB_APP);
  }

  function introspect(base: string, token: string): Promise<Answer> {
    return postForm(endpointsOf(base).introspect, { token }, WEB_APP);
  }

  /**
   * Puts what `seed` writes into Redis, then runs `body` on an in-process provider on that store with the
   * warnings it logs.
   */
  async function onJunk(
    seed: (junk: Redis) => Promise<unknown>,
    body: (idp: Awaited<ReturnType<typeof startMockIdp>>, warnings: string[], junk: Redis) => Promise<void>,
  ): Promise<void> {
    const junk = new Redis(redis.url);
    const warnings: string[] = [];
    try {
      await seed(junk);
      await junk.incr('mock-idp:mock:qa-version');
      const idp = await startMockIdp({
        store: redis.url,
        logger: createLogger(
          'warn',
          () => undefined,
          (line) => warnings.push(line),
        ),
      });
      try {
        await body(idp, warnings, junk);
      } finally {
        await idp.close();
      }
    } finally {
      junk.disconnect();
    }
  }

  it('a code issued at A is exchanged at B; refreshed at B, introspected at C; the key is shared', async () => {
    const [a, b, c] = await Promise.all([replica(), replica(), replica()]);
    const { code } = await authorize(a.base, 'alice');
    const exchanged = await exchangeCode(b.base, code);
    expect(exchanged.status).toBe(200);
    const refreshed = await refresh(b.base, String(exchanged.json['refresh_token']));
    expect(refreshed.status).toBe(200);
    const access = String(refreshed.json['access_token']);
    expect((await introspect(c.base, access)).json['active']).toBe(true);
    // Every replica publishes the one ephemeral key the first one made.
    const jwks = createRemoteJWKSet(new URL(endpointsOf(c.base).certs));
    const { payload } = await jwtVerify(access, jwks);
    expect(payload.sub).toBe('0b7c7f6e-1c2d-4a5b-9c8d-112233445566');
  });

  it('a logout at A ends the session everywhere: a refresh at B is refused', async () => {
    const [a, b] = await Promise.all([replica(), replica()]);
    const { code } = await authorize(a.base, 'alice');
    const tokens = await exchangeCode(a.base, code);
    const refreshToken = String(tokens.json['refresh_token']);
    const logout = await postForm(endpointsOf(a.base).logout, { refresh_token: refreshToken }, WEB_APP);
    expect(logout.status).toBe(204);
    const refused = await refresh(b.base, refreshToken);
    expect(refused.status).toBe(400);
    expect(refused.json['error']).toBe('invalid_grant');
    expect((await introspect(b.base, String(tokens.json['access_token']))).json['active']).toBe(false);
  });

  it('two replicas racing on one code: exactly one 200', async () => {
    const [a, b] = await Promise.all([replica(), replica()]);
    for (let round = 0; round < 5; round++) {
      const { code } = await authorize(a.base, 'alice');
      const answers = await Promise.all([exchangeCode(a.base, code), exchangeCode(b.base, code)]);
      expect(answers.map((r) => r.status).sort()).toEqual([200, 400]);
    }
  });

  it('a device code from A is approved on the page at B and polled at C; a CIBA request from A approved at B: racing polls, one 200', async () => {
    const [a, b, c] = await Promise.all([replica(), replica(), replica()]);
    const device = await postForm(`${a.base}/protocol/openid-connect/auth/device`, { client_id: 'tv-app' });
    expect(device.status, device.text).toBe(200);
    const page = await postForm(`${b.base}/device`, {
      user_code: String(device.json['user_code']),
      login_hint: 'alice',
    });
    expect(page.text).toContain('Done — you may return to your device');
    const poll = { grant_type: 'urn:ietf:params:oauth:grant-type:device_code', client_id: 'tv-app' };
    const tokens = await postForm(endpointsOf(c.base).token, {
      ...poll,
      device_code: String(device.json['device_code']),
    });
    expect(tokens.status, tokens.text).toBe(200);

    const desk = basic('call-center', 'call-secret');
    const ciba = await postForm(
      `${a.base}/protocol/openid-connect/ext/ciba/auth`,
      { scope: 'openid', login_hint: 'bob' },
      desk,
    );
    const id = String(ciba.json['auth_req_id']);
    expect((await call('GET', `${c.base}/mock/ciba`)).json['requests']).toEqual([
      expect.objectContaining({ auth_req_id: id, user: 'bob', status: 'pending' }),
    ]);
    expect((await call('POST', `${b.base}/mock/ciba`, { auth_req_id: id, decision: 'approve' })).status).toBe(
      200,
    );
    const body = { grant_type: 'urn:openid:params:grant-type:ciba', auth_req_id: id };
    const answers = await Promise.all([a, b, c].map((r) => postForm(endpointsOf(r.base).token, body, desk)));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 400, 400]);
  });

  it('the QA clock advanced at A is seen at B', async () => {
    const [a, b] = await Promise.all([replica(), replica()]);
    const set = await call('PUT', `${a.base}/mock/clock`, { now: '2031-05-01T00:00:00Z', frozen: true });
    expect(set.status).toBe(200);
    await call('POST', `${a.base}/mock/clock`, { seconds: 60 });
    await expect
      .poll(async () => (await call('GET', `${b.base}/mock/clock`)).json, { timeout: 5000 })
      .toEqual({ now: '2031-05-01T00:01:00.000Z', epoch: 1935360060, frozen: true });
  });

  it('a fault set at A applies at B; a counted one is used up exactly count times across replicas', async () => {
    const [a, b] = await Promise.all([replica(), replica()]);
    const added = await call('POST', `${a.base}/mock/faults`, { endpoint: 'token', status: 503, count: 3 });
    expect(added.status).toBe(201);
    expect((await call('GET', `${b.base}/mock/faults`)).json['faults']).toEqual([added.json]);
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        postForm(
          endpointsOf([a, b][i % 2]?.base ?? '').token,
          { grant_type: 'client_credentials' },
          BATCH_JOB,
        ),
      ),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 503, 503, 503]);
    expect((await call('GET', `${a.base}/mock/faults`)).json['faults']).toEqual([]);
    await call('POST', `${b.base}/mock/faults`, { endpoint: 'certs', status: 500, count: 'always' });
    expect((await get(endpointsOf(a.base).certs)).status).toBe(500);
    expect((await call('DELETE', `${a.base}/mock/faults`)).json).toEqual({ cleared: 1 });
    expect((await get(endpointsOf(b.base).certs)).status).toBe(200);
  });

  it('a client registered at A is used, read and deleted at B at once; then it is gone at A and C', async () => {
    const [a, b, c] = await Promise.all([replica(), replica(), replica()]);
    const r = await register(a.base);
    const id = r['client_id'];
    const cc = (base: string): Promise<Answer> => registeredToken(base, r);
    // No waiting: B and C look a client they do not know up in the store.
    expect((await cc(b.base)).status).toBe(200);
    const uri = (base: string): string => `${base}/clients-registrations/openid-connect/${id}`;
    const bearer = { authorization: `Bearer ${r['registration_access_token']}` };
    const read = await readAnswer(await fetch(uri(c.base), { headers: bearer }));
    expect(read.status).toBe(200);
    expect(read.json['client_name']).toBe('shared');
    const removed = await fetch(uri(b.base), { method: 'DELETE', headers: bearer });
    expect(removed.status).toBe(204);
    expect((await cc(a.base)).status).toBe(401);
    expect((await cc(c.base)).status).toBe(401);
    const again = await fetch(uri(a.base), { headers: bearer });
    expect(again.status).toBe(401);
  });

  it('a registered client in Redis that does not parse is ignored, logged once, never a 500', async () => {
    await onJunk(
      (junk) => junk.hset('mock-idp:mock:clients', 'junk', '{not json', 'old', JSON.stringify({ id: 'old' })),
      async (a, warnings) => {
        for (const id of ['junk', 'old', 'junk']) {
          const answer = await postForm(
            endpointsOf(a.issuer).token,
            { grant_type: 'client_credentials' },
            basic(id, 'x'),
          );
          expect(answer.status).toBe(401);
        }
        expect(warnings.filter((w) => w.includes('registered client'))).toHaveLength(1);
      },
    );
  });

  it("the request journal is the whole provider's: requests at A and B read at either, cleared at one", async () => {
    const [a, b] = await Promise.all([replica(), replica()]);
    for (const base of [a.base, b.base, a.base])
      await postForm(endpointsOf(base).token, { grant_type: 'client_credentials' }, BATCH_JOB);
    const tokens = async (base: string): Promise<unknown> =>
      (
        (await call('GET', `${base}/mock/requests?endpoint=token`)).json['requests'] as { client: string }[]
      ).map((r) => r.client);
    await expect
      .poll(() => tokens(b.base), { timeout: 5000 })
      .toEqual(['batch-job', 'batch-job', 'batch-job']);
    expect(await tokens(a.base)).toEqual(['batch-job', 'batch-job', 'batch-job']);
    expect((await call('DELETE', `${b.base}/mock/requests`)).json).toEqual({ cleared: 3 });
    expect(await tokens(a.base)).toEqual([]);
  });

  it('the EC key made on first use is one for every replica, chain included', async () => {
    const quiet = createLogger('silent');
    const [a, b] = await Promise.all([
      startMockIdp({ store: redis.url, logger: quiet }),
      startMockIdp({ store: redis.url, logger: quiet }),
    ]);
    try {
      const [ka, kb] = await Promise.all([a.provider.keys.ecKey(), b.provider.keys.ecKey()]);
      expect(ka?.x5c).toHaveLength(2);
      expect(kb?.publicJwk).toEqual(ka?.publicJwk);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('a stored EC key that does not parse (or whose chain is not its own) is replaced, then shared', async () => {
    const quiet = createLogger('silent');
    const first = await startMockIdp({ store: redis.url, logger: quiet });
    const made = await first.provider.keys.ecKey();
    await first.close();
    const junk = new Redis(redis.url);
    const other = JSON.parse(String(await junk.get('mock-idp:mock:ec-signing-key'))) as { x5c: string[] };
    // Another key's scalar under this chain: the chain is not the key's.
    await junk.set(
      'mock-idp:mock:ec-signing-key',
      JSON.stringify({ d: 'A'.repeat(42) + 'E', x5c: other.x5c }),
    );
    junk.disconnect();
    const a = await startMockIdp({ store: redis.url, logger: quiet });
    const b = await startMockIdp({ store: redis.url, logger: quiet });
    try {
      const ka = await a.provider.keys.ecKey();
      expect(ka?.kid).not.toBe(made?.kid);
      expect((await b.provider.keys.ecKey())?.publicJwk).toEqual(ka?.publicJwk);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('shared QA state, signing key and realm secret in Redis that do not parse: ignored or replaced, logged once', async () => {
    await onJunk(
      async (junk) => {
        await junk.hset(
          'mock-idp:mock:qa',
          'clock',
          '{bad',
          'keys',
          '{"order":["gone"],"pems":{}}',
          'fixtures',
          'realm: [',
        );
        await junk.set('mock-idp:mock:signing-key', 'not a key');
        await junk.set('mock-idp:mock:realm-secret', '?');
      },
      async (a, warnings, junk) => {
        const cc = await postForm(
          endpointsOf(a.issuer).token,
          { grant_type: 'client_credentials' },
          BATCH_JOB,
        );
        expect(cc.status).toBe(200);
        const { payload } = await jwtVerify(
          String(cc.json['access_token']),
          createRemoteJWKSet(new URL(endpointsOf(a.issuer).certs)),
        );
        expect(payload.azp).toBe('batch-job');
        expect((await call('GET', `${a.issuer}/mock/clock`)).json['frozen']).toBe(false);
        await junk.incr('mock-idp:mock:qa-version'); // polled again: still said once
        await a.provider.catchUp();
        for (const what of ['clock', 'keys', 'fixtures', 'signing-key', 'realm-secret'])
          expect(
            warnings.filter((w) => w.includes(what)),
            what,
          ).toHaveLength(1);
      },
    );
  });

  it('a key rotated at A is published (and signs) at B; a key removed at A is gone at B', async () => {
    const [a, b] = await Promise.all([replica(), replica()]);
    const before = (await call('GET', `${b.base}/mock/keys`)).json;
    const rotated = await call('POST', `${a.base}/mock/keys/rotate`);
    expect(rotated.status).toBe(201);
    const kid = String(rotated.json['kid']);
    await expect
      .poll(async () => (await call('GET', `${b.base}/mock/keys`)).json['kid'], { timeout: 5000 })
      .toBe(kid);
    const certs = await get(endpointsOf(b.base).certs);
    expect((certs.json['keys'] as { kid: string }[]).map((k) => k.kid)).toContain(kid);
    const cc = await postForm(endpointsOf(b.base).token, { grant_type: 'client_credentials' }, BATCH_JOB);
    const { payload, protectedHeader } = await jwtVerify(
      String(cc.json['access_token']),
      createRemoteJWKSet(new URL(endpointsOf(a.base).certs)),
    );
    expect(protectedHeader.kid).toBe(kid);
    expect(payload.azp).toBe('batch-job');
    const removed = await call('DELETE', `${a.base}/mock/keys/${String(before['kid'])}`);
    expect(removed.status).toBe(200);
    await expect
      .poll(async () => (await call('GET', `${b.base}/mock/keys`)).json['keys'], { timeout: 5000 })
      .toEqual([kid]);
  });

  it('the replicas publish one encryption key: a request object encrypted to A is decrypted at B', async () => {
    const [a, b] = await Promise.all([replica(), replica()]);
    const encOf = async (base: string): Promise<JWK> =>
      ((await get(endpointsOf(base).certs)).json['keys'] as JWK[]).find((k) => k.use === 'enc') as JWK;
    const enc = await encOf(a.base);
    expect(await encOf(b.base)).toEqual(enc);
    const object = new UnsecuredJWT({
      client_id: 'web-app',
      response_type: 'code',
      scope: 'openid',
      state: 'sealed-at-a',
      redirect_uri: 'http://127.0.0.1:3000/callback',
      login_hint: 'alice',
    }).encode();
    const request = await new CompactEncrypt(new TextEncoder().encode(object))
      .setProtectedHeader({ alg: 'RSA-OAEP-256', enc: 'A256GCM', kid: enc.kid as string })
      .encrypt(await importJWK(enc, 'RSA-OAEP-256'));
    const query = new URLSearchParams({ client_id: 'web-app', request });
    const answer = await fetch(`${endpointsOf(b.base).auth}?${query}`, { redirect: 'manual' });
    expect(answer.status).toBe(302);
    const back = new URL(answer.headers.get('location') as string);
    expect(back.searchParams.get('state')).toBe('sealed-at-a');
    expect(back.searchParams.get('code')).toBeTruthy();
  });

  it('a browser signed in at A after fixtures replacements is still signed in at a replica started later', async () => {
    const a = await replica();
    const text = readFileSync(DEFAULT_FIXTURES, 'utf8');
    // Two replacements at A (the same text twice): browser cookies name the generation they were set in.
    for (let i = 0; i < 2; i++)
      expect((await fetch(`${a.base}/mock/fixtures`, { method: 'PUT', body: text })).status).toBe(200);
    const b = await replica();
    const query = (extra: Record<string, string>): string =>
      new URLSearchParams({
        response_type: 'code',
        client_id: 'web-app',
        redirect_uri: 'http://localhost:3000/callback',
        scope: 'openid',
        state: 'st',
        ...extra,
      }).toString();
    const signIn = await fetch(`${endpointsOf(a.base).auth}?${query({ login_hint: 'alice' })}`, {
      redirect: 'manual',
    });
    expect(signIn.status).toBe(302);
    const cookie = signIn.headers
      .getSetCookie()
      .map((line) => line.split(';')[0])
      .join('; ');
    expect(cookie).not.toBe('');
    const silent = await fetch(`${endpointsOf(b.base).auth}?${query({ prompt: 'none' })}`, {
      redirect: 'manual',
      headers: { cookie },
    });
    const back = new URL(silent.headers.get('location') ?? 'http://x/');
    expect(back.searchParams.get('error')).toBeNull();
    expect(back.searchParams.get('code')).not.toBeNull();
  });

  it('fixtures replaced at A are served at B', async () => {
    const [a, b] = await Promise.all([replica(), replica()]);
    const fixtures = [
      'realm: mock',
      'clients:',
      '  night-job: { secret: night-secret, grants: [client_credentials] }',
      '',
    ].join('\n');
    const r = await register(b.base);
    expect((await registeredToken(a.base, r)).status).toBe(200);
    const put = await fetch(`${a.base}/mock/fixtures`, { method: 'PUT', body: fixtures });
    expect(put.status).toBe(200);
    // New fixtures end the registered clients at every replica.
    expect((await registeredToken(a.base, r)).status).toBe(401);
    expect((await registeredToken(b.base, r)).status).toBe(401);
    const night = (base: string): Promise<Answer> =>
      postForm(
        endpointsOf(base).token,
        { grant_type: 'client_credentials' },
        `Basic ${Buffer.from('night-job:night-secret').toString('base64')}`,
      );
    await expect.poll(async () => (await night(b.base)).status, { timeout: 5000 }).toBe(200);
    const old = await postForm(endpointsOf(b.base).token, { grant_type: 'client_credentials' }, BATCH_JOB);
    expect(old.status).toBe(401);
  });

  it('a --watch reload at A is served at B', async () => {
    const files = tempDir();
    try {
      const file = join(files.dir, 'realm.yaml');
      const fixtures = (id: string): string =>
        `realm: mock\nclients:\n  ${id}: { secret: s3cret, grants: [client_credentials] }\n`;
      writeFileSync(file, fixtures('day-job'));
      await replica(['--fixtures', file, '--watch']);
      const b = await replica(['--fixtures', file]);
      const cc = (base: string, id: string): Promise<Answer> =>
        postForm(endpointsOf(base).token, { grant_type: 'client_credentials' }, basic(id, 's3cret'));
      expect((await cc(b.base, 'day-job')).status).toBe(200);
      writeFileSync(file, fixtures('night-job'));
      await expect.poll(async () => (await cc(b.base, 'night-job')).status, { timeout: 10_000 }).toBe(200);
      expect((await cc(b.base, 'day-job')).status).toBe(401);
    } finally {
      files.remove();
    }
  });

  it('a clock moved in-process (idp.clock) at A is seen at B', async () => {
    const a = await startMockIdp({ store: redis.url });
    try {
      const b = await replica();
      a.clock.set({ now: '2032-02-02T00:00:00Z', frozen: true });
      a.clock.advance(30);
      await expect
        .poll(async () => (await call('GET', `${b.base}/mock/clock`)).json, { timeout: 5000 })
        .toEqual({ now: '2032-02-02T00:00:30.000Z', epoch: 1959292830, frozen: true });
    } finally {
      await a.close();
    }
  });

  it('kill -9 of A and a restart lose nothing: its sessions are still active', async () => {
    const a = await replica();
    const { code } = await authorize(a.base, 'alice');
    const tokens = await exchangeCode(a.base, code);
    const cc = await postForm(endpointsOf(a.base).token, { grant_type: 'client_credentials' }, BATCH_JOB);
    await a.stop('SIGKILL');
    const again = await replica();
    const refreshed = await refresh(again.base, String(tokens.json['refresh_token']));
    expect(refreshed.status).toBe(200);
    const active = await postForm(
      endpointsOf(again.base).introspect,
      { token: String(cc.json['access_token']) },
      WEB_APP,
    );
    expect(active.json['active']).toBe(true);
  });

  it('Redis stopped mid-run: 503 temporarily_unavailable and /health 503, then recovery by itself', async () => {
    const a = await replica();
    const { code } = await authorize(a.base, 'alice');
    const tokens = await exchangeCode(a.base, code);
    await redis.stop();
    try {
      const down = await postForm(endpointsOf(a.base).token, { grant_type: 'client_credentials' }, BATCH_JOB);
      expect(down.status).toBe(503);
      expect(down.json['error']).toBe('temporarily_unavailable');
      const introspected = await introspect(a.base, String(tokens.json['access_token']));
      expect(introspected.status).toBe(503);
      const health = await get(new URL(a.base).origin + '/health');
      expect(health.status).toBe(503);
      expect(String(health.json['reason'])).toContain('Redis');
      const auth = await fetch(
        `${endpointsOf(a.base).auth}?response_type=code&client_id=web-app&redirect_uri=${encodeURIComponent('http://localhost:3000/callback')}&login_hint=alice`,
        { redirect: 'manual' },
      );
      expect(auth.status).toBe(503);
    } finally {
      await redis.start();
    }
    await expect
      .poll(async () => (await get(new URL(a.base).origin + '/health')).status, { timeout: 10_000 })
      .toBe(200);
    // The store came back empty (no persistence): new sign-ins work again.
    const fresh = await postForm(endpointsOf(a.base).token, { grant_type: 'client_credentials' }, BATCH_JOB);
    expect(fresh.status).toBe(200);
  });
});

describe.skipIf(SKIP_REDIS)('--store at start', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    ensureBuilt();
    redis = await startRedis(['--requirepass', 'sekret']);
  });
  afterAll(async () => {
    await redis.stop();
  });

  /** Bad --store values: the URL (given the password-protected Redis's port) and what the error says. */
  const BAD: [string, (port: number) => string, RegExp][] = [
    [
      'a malformed URL',
      () => 'redis//nope',
      /--store "redis\/\/nope" is not a URL: expected memory or redis:\/\//,
    ],
    ['an unknown scheme', () => 'postgres://127.0.0.1:5432', /unknown scheme "postgres"/],
    ['a URL without a host', () => 'redis:///0', /names no host/],
    ['a database that is no number', () => 'redis://127.0.0.1:6379/x', /database number/],
    [
      'an unreachable Redis',
      () => 'redis://127.0.0.1:1',
      /cannot use Redis at redis:\/\/127\.0\.0\.1:1.*ECONNREFUSED/,
    ],
    ['a wrong password', (port) => `redis://:wrong@127.0.0.1:${port}`, /redis:\/\/:\*\*\*@127.*WRONGPASS/],
    ['no password where Redis wants one', (port) => `redis://127.0.0.1:${port}`, /NOAUTH/],
  ];

  it.each(BAD)('%s: a clear error, exit 1, nothing listening', async (_name, url, message) => {
    const result = await runBin(['serve', '--port', '0', '--store', url(redis.port)]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toContain('wrong@');
    expect(result.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(result.stdout).not.toContain('listening on');
  });

  it.each(BAD)('%s: startMockIdp({ store }) rejects with the same message', async (_name, url, message) => {
    await expect(startMockIdp({ store: url(redis.port) })).rejects.toThrow(message);
  });

  it('a malformed MOCK_IDP_STORE: the same error, exit 1', async () => {
    const result = await runBin(['serve', '--port', '0'], { MOCK_IDP_STORE: 'redis//nope' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^MOCK_IDP_STORE "redis\/\/nope" is not a URL/m);
    expect(result.stderr).not.toContain('--store');
  });

  it('the right password and MOCK_IDP_STORE: serves', async () => {
    const p = await spawnServer([], { MOCK_IDP_STORE: `redis://:sekret@127.0.0.1:${redis.port}/2` });
    try {
      const cc = await postForm(endpointsOf(p.base).token, { grant_type: 'client_credentials' }, BATCH_JOB);
      expect(cc.status).toBe(200);
    } finally {
      await p.stop();
    }
  });
});

describe.skipIf(SKIP_REDIS)('rediss:// (Redis over TLS)', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    ensureBuilt();
    redis = await startRedis([], { tls: true });
  });
  afterAll(async () => {
    await redis.stop();
  });

  it('with the CA in NODE_EXTRA_CA_CERTS: replicas over TLS, a code issued at A exchanged at B', async () => {
    const env = { NODE_EXTRA_CA_CERTS: String(redis.caFile) };
    const args = ['--store', String(redis.tlsUrl), '--quiet'];
    const [a, b] = await Promise.all([spawnServer(args, env), spawnServer(args, env)]);
    try {
      const { code } = await authorize(a.base, 'alice');
      expect((await exchangeCode(b.base, code)).status).toBe(200);
    } finally {
      await a.stop();
      await b.stop();
    }
  });

  it('a CA the process does not trust: a clear error naming the certificate, exit 1', async () => {
    const result = await runBin(['serve', '--port', '0', '--store', String(redis.tlsUrl)]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/cannot use Redis at rediss:\/\/localhost:\d+\/?: .*certificate/);
    expect(result.stdout).not.toContain('listening on');
  });
});
