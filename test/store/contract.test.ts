// The StateStore contract, one suite run against both stores: memory and a real redis-server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { Clock } from '../../src/clock.js';
import { createLogger } from '../../src/log.js';
import type {
  BackchannelRequest,
  CodeGrant,
  Session,
  SessionEndReason,
  StateStore,
} from '../../src/store/state-store.js';
import { JOURNAL_CAPACITY, type JournalRecord } from '../../src/store/journal.js';
import type { StoreBackend } from '../../src/store/backend.js';
import { openStore } from '../../src/store/open.js';
import { startRedis, SKIP_REDIS, type RedisServer } from '../helpers/redis.js';

const START = Date.UTC(2030, 0, 1) / 1000;

interface Kind {
  name: 'memory' | 'redis';
  skip: boolean;
}

const KINDS: Kind[] = [
  { name: 'memory', skip: false },
  { name: 'redis', skip: SKIP_REDIS },
];

function session(id: string, expiresAt = START + 600): Session {
  return {
    id,
    clientId: 'web-app',
    clients: ['web-app'],
    issuer: 'http://127.0.0.1/realms/contract',
    browser: true,
    username: 'alice',
    sub: 'sub-alice',
    authTime: START,
    expiresAt,
  };
}

function code(value: string, sessionId: string): CodeGrant {
  return {
    code: value,
    clientId: 'web-app',
    redirectUri: 'http://localhost:3000/callback',
    scopes: ['openid'],
    sessionId,
    username: 'alice',
    nonce: 'n0',
    codeChallenge: 'c'.repeat(43),
    codeChallengeMethod: 'S256',
    dpopJkt: 'k'.repeat(43),
    expiresAt: START + 60,
  };
}

describe.each(KINDS)('StateStore contract: $name', ({ name, skip }) => {
  let redis: RedisServer | undefined;
  let backend: StoreBackend;
  let realmCount = 0;
  const warnings: string[] = [];

  beforeAll(async () => {
    if (skip) return;
    if (name === 'redis') redis = await startRedis();
    const log = createLogger(
      'warn',
      () => undefined,
      (line) => warnings.push(line),
    );
    backend = await openStore(redis?.url ?? 'memory', log, () => new Error('the store is unavailable'));
  });
  afterAll(async () => {
    await backend?.close();
    await redis?.stop();
  });

  /** A fresh realm's store on a frozen clock, and what its listeners were told. */
  function fresh(): { store: StateStore; clock: Clock; ended: [string, SessionEndReason][]; realm: string } {
    const realm = `contract${++realmCount}`;
    const clock = new Clock({ startMs: START * 1000, frozen: true });
    const store = backend.storeFor(realm, clock);
    store.tombstoneSeconds = 1800;
    const ended: [string, SessionEndReason][] = [];
    store.onSessionEnd((s, reason) => ended.push([s.id, reason]));
    return { store, clock, ended, realm };
  }

  it.skipIf(skip)('a session is active until its expiry by the mock clock, then ended', async () => {
    const { store, clock, ended } = fresh();
    await store.addSession(session('s1'));
    expect(await store.activeSession('s1')).toEqual(session('s1'));
    expect(await store.sessionStatus('s1')).toBe('active');
    expect((await store.sessions()).map((s) => s.id)).toEqual(['s1']);
    clock.advance(600);
    expect(await store.activeSession('s1')).toBeUndefined();
    expect(await store.sessionStatus('s1')).toBe('ended');
    expect(await store.expireSessions()).toBe(1);
    expect(ended).toEqual([['s1', 'expired']]);
    expect(await store.sessionStatus('s1')).toBe('ended');
    expect(await store.expireSessions()).toBe(0);
    expect(await store.sessionStatus('never')).toBe('unknown');
  });

  it.skipIf(skip).each([
    ['one client, the one it was opened for', 'web-app', ['web-app']],
    ['several clients', 'web-app', ['web-app', 'spa', 'cli']],
    ['one client, not the one it was opened for', 'web-app', ['spa']],
    ['its client after another', 'web-app', ['spa', 'web-app']],
    ['no client yet', 'web-app', []],
  ])('a session with %s reads back as it was written', async (_what, clientId, clients) => {
    const { store, ended } = fresh();
    const written: Session = { ...session('c1'), clientId, clients: [...clients] };
    await store.addSession(written);
    expect(await store.activeSession('c1')).toEqual(written);
    expect((await store.sessionPage(undefined, 10)).sessions).toEqual([written]);
    expect(await store.sessions()).toEqual([written]);
    const ends: Session[] = [];
    store.onSessionEnd((s) => ends.push(s));
    expect(await store.endSession('c1', 'qa')).toBe(true);
    expect(ended).toEqual([['c1', 'qa']]);
    expect(ends).toEqual([written]);
  });

  it.skipIf(skip)('saveSession writes changes back, and never brings an ended session back', async () => {
    const { store } = fresh();
    await store.addSession(session('s2'));
    const s = (await store.activeSession('s2')) as Session;
    s.clients.push('spa');
    s.expiresAt = START + 1200;
    await store.saveSession(s);
    expect(await store.activeSession('s2')).toMatchObject({
      clients: ['web-app', 'spa'],
      expiresAt: START + 1200,
    });
    expect(await store.endSession('s2', 'logout')).toBe(true);
    await store.saveSession(s);
    expect(await store.activeSession('s2')).toBeUndefined();
    expect(await store.sessionStatus('s2')).toBe('ended');
  });

  it.skipIf(skip)(
    'endSession tells the listeners once; a session never held leaves a tombstone',
    async () => {
      const { store, ended } = fresh();
      await store.addSession(session('s3'));
      const both = await Promise.all([store.endSession('s3', 'logout'), store.endSession('s3', 'logout')]);
      expect(both.sort()).toEqual([false, true]);
      expect(ended).toEqual([['s3', 'logout']]);
      expect(await store.endSession('offline', 'revoked')).toBe(false);
      expect(await store.sessionStatus('offline')).toBe('ended');
    },
  );

  it.skipIf(skip)(
    'sessionPage: id order after a position, lapsed and ended sessions left out, more when others follow',
    async () => {
      const { store, clock } = fresh();
      for (const id of ['p3', 'p1', 'p5', 'p2', 'p4']) await store.addSession(session(id));
      await store.addSession(session('p0', START + 10));
      const ids = async (after: string | undefined, limit: number) => {
        const page = await store.sessionPage(after, limit);
        return [page.sessions.map((s) => s.id), page.more];
      };
      expect(await ids(undefined, 2)).toEqual([['p0', 'p1'], true]);
      expect(await store.sessionPage(undefined, 1)).toEqual({
        sessions: [session('p0', START + 10)],
        more: true,
      });
      expect(await ids('p1', 2)).toEqual([['p2', 'p3'], true]);
      expect(await ids('p3', 2)).toEqual([['p4', 'p5'], false]);
      expect(await ids('p5', 2)).toEqual([[], false]);
      // A position between ids, or of a session that has ended, still works.
      expect(await ids('p2a', 10)).toEqual([['p3', 'p4', 'p5'], false]);
      await store.endSession('p3', 'qa');
      expect(await ids('p2', 2)).toEqual([['p4', 'p5'], false]);
      clock.advance(10);
      expect(await ids(undefined, 2)).toEqual([['p1', 'p2'], true]);
      await store.addSession(session('p25'));
      expect(await ids('p2', 1)).toEqual([['p25'], true]);
      expect(await store.endAllSessions('qa')).toBe(5);
      expect(await ids(undefined, 10)).toEqual([[], false]);
    },
  );

  it.skipIf(skip)(
    'sessionPage over thousands, added out of order, a third ended: every page walk lists the rest in order',
    async () => {
      const { store } = fresh();
      // 2,500 ids in a scrambled order (a step coprime to the count), zero-padded so text order = number order.
      const ids = Array.from({ length: 2500 }, (_, i) => `m${String((i * 1237) % 2500).padStart(4, '0')}`);
      for (const id of ids) await store.addSession(session(id));
      const ended = ids.filter((_, i) => i % 3 === 0);
      for (const id of ended) await store.endSession(id, 'qa');
      const walk = async (limit: number): Promise<string[]> => {
        const seen: string[] = [];
        let after: string | undefined;
        for (;;) {
          const page = await store.sessionPage(after, limit);
          seen.push(...page.sessions.map((s) => s.id));
          if (!page.more) return seen;
          after = seen[seen.length - 1];
        }
      };
      const rest = ids.filter((id) => !ended.includes(id)).sort();
      expect(await walk(100)).toEqual(rest);
      expect(await walk(7)).toEqual(rest);
    },
  );

  it.skipIf(skip)(
    'sessionPage across many merges: ended ids gone, an id ended and opened again listed once',
    async () => {
      const { store } = fresh();
      const ids = Array.from({ length: 5000 }, (_, i) => `r${String((i * 2003) % 5000).padStart(4, '0')}`);
      const walk = async (limit: number): Promise<string[]> => {
        const seen: string[] = [];
        let after: string | undefined;
        for (;;) {
          const page = await store.sessionPage(after, limit);
          seen.push(...page.sessions.map((s) => s.id));
          if (!page.more) return seen;
          after = seen[seen.length - 1];
        }
      };
      const live = new Set<string>();
      for (const [i, id] of ids.entries()) {
        await store.addSession(session(id));
        live.add(id);
        // Every 7th id ends at once; every 11th of the earlier ones ends and comes back under its id.
        if (i % 7 === 0) {
          await store.endSession(id, 'qa');
          live.delete(id);
        }
        const back = ids[i - 600];
        if (i % 11 === 0 && back !== undefined && live.has(back)) {
          await store.endSession(back, 'qa');
          await store.addSession(session(back));
        }
        if (i === 2500) expect(await walk(250)).toEqual([...live].sort());
      }
      const rest = [...live].sort();
      expect(await walk(100)).toEqual(rest);
      expect(await walk(9)).toEqual(rest);
    },
  );

  it.skipIf(skip)('endAllSessions ends every session and drops every code', async () => {
    const { store, ended } = fresh();
    await store.addSession(session('a'));
    await store.addSession(session('b'));
    await store.addCode(code('c1', 'a'));
    expect(await store.endAllSessions('qa')).toBe(2);
    expect(ended.map(([id]) => id).sort()).toEqual(['a', 'b']);
    expect(await store.sessions()).toEqual([]);
    expect(await store.takeCode('c1')).toBeUndefined();
  });

  it.skipIf(skip)(
    'a code is taken once, even by racing callers; a spent code names its session',
    async () => {
      const { store } = fresh();
      await store.addCode(code('c2', 's'));
      const taken = await Promise.all(Array.from({ length: 8 }, () => store.takeCode('c2')));
      expect(taken.filter((t) => t !== undefined)).toEqual([code('c2', 's')]);
      await store.markCodeSpent(code('c2', 's'));
      expect(await store.spentCodeSession('c2')).toBe('s');
      expect(await store.spentCodeSession('other')).toBeUndefined();
    },
  );

  it.skipIf(skip)('a pushed request is taken once, even by racing callers, with its parameters', async () => {
    const { store } = fresh();
    const pushed = {
      requestUri: 'urn:ietf:params:oauth:request_uri:p1',
      clientId: 'web-app',
      params: { response_type: 'code', redirect_uri: 'http://app.test/cb', login_hint: 'alice' },
      expiresAt: START + 60,
    };
    await store.addPushedRequest(pushed);
    const taken = await Promise.all(
      Array.from({ length: 8 }, () => store.takePushedRequest(pushed.requestUri)),
    );
    expect(taken.filter((t) => t !== undefined)).toEqual([pushed]);
    expect(await store.takePushedRequest('urn:ietf:params:oauth:request_uri:other')).toBeUndefined();
  });

  it.skipIf(skip)(
    'a back-channel request: found by its user code, changed atomically under racing writers, taken once',
    async () => {
      const { store } = fresh();
      const request: BackchannelRequest = {
        kind: 'device',
        id: 'dc1',
        userCode: 'BCDF-GHJK',
        clientId: 'tv-app',
        scopes: ['openid'],
        status: 'pending',
        interval: 5,
        createdAt: START,
        expiresAt: START + 600,
        apiVersion: 1,
      };
      await store.addBackchannelRequest(request);
      expect(await store.deviceCodeOf('BCDF-GHJK')).toBe('dc1');
      expect(await store.deviceCodeOf('XXXX-XXXX')).toBeUndefined();
      expect(await store.backchannelRequest('dc1')).toEqual(request);
      // Eight writers each add 1 to the interval: none is lost.
      await Promise.all(
        Array.from({ length: 8 }, () =>
          store.changeBackchannelRequest('dc1', (r) => ({
            next: r !== undefined ? { ...r, interval: r.interval + 1 } : undefined,
            result: undefined,
          })),
        ),
      );
      expect((await store.backchannelRequest('dc1'))?.interval).toBe(13);
      const unchanged = await store.changeBackchannelRequest('dc1', (r) => ({
        next: undefined,
        result: r?.id,
      }));
      expect(unchanged).toBe('dc1');
      expect((await store.backchannelRequests()).map((r) => r.id)).toEqual(['dc1']);
      // Eight takers: one gets it.
      const taken = await Promise.all(
        Array.from({ length: 8 }, () =>
          store.changeBackchannelRequest('dc1', (r) => ({
            next: r !== undefined ? null : undefined,
            result: r,
          })),
        ),
      );
      expect(taken.filter((t) => t !== undefined)).toHaveLength(1);
      expect(await store.backchannelRequest('dc1')).toBeUndefined();
      expect(await store.backchannelRequests()).toEqual([]);
    },
  );

  it.skipIf(skip)(
    'revocations and assertion ids: revoked stays revoked, an assertion id is used once',
    async () => {
      const { store } = fresh();
      expect(await store.isRevoked('j1')).toBe(false);
      await store.revoke('j1', START + 300);
      expect(await store.isRevoked('j1')).toBe(true);
      expect(await store.isRevoked(undefined)).toBe(false);
      const uses = await Promise.all(
        Array.from({ length: 6 }, () => store.useAssertion('web-app', 'a1', START + 60)),
      );
      expect(uses.filter(Boolean)).toHaveLength(1);
      expect(await store.useAssertion('spa', 'a1', START + 60)).toBe(true);
    },
  );

  it.skipIf(skip)(
    'faults: listed in the order added, taken per endpoint, a counted one used up exactly count times',
    async () => {
      const { store } = fresh();
      const first = await store.faults.add({ endpoint: 'token', status: 503, remaining: 3 });
      const second = await store.faults.add({ endpoint: 'certs', delayMs: 10, remaining: 'always' });
      const third = await store.faults.add({ endpoint: 'token', status: 400, error: 'x', remaining: 1 });
      expect((await store.faults.list()).map((f) => f.id)).toEqual([first.id, second.id, third.id]);
      expect(await store.faults.take('userinfo')).toBeUndefined();
      const taken = await Promise.all(Array.from({ length: 8 }, () => store.faults.take('token')));
      expect(taken.map((f) => f?.status ?? null).sort()).toEqual([
        400,
        503,
        503,
        503,
        null,
        null,
        null,
        null,
      ]);
      expect(taken.find((f) => f?.status === 400)).toEqual({ ...third, remaining: 0 });
      for (let i = 0; i < 3; i++) expect(await store.faults.take('certs')).toEqual(second);
      expect(await store.faults.list()).toEqual([second]);
      expect(await store.faults.clear()).toBe(1);
      expect(await store.faults.list()).toEqual([]);
      expect(await store.faults.take('certs')).toBeUndefined();
    },
  );

  it.skipIf(skip)(
    'the journal keeps the last JOURNAL_CAPACITY records in order, filters and clears',
    async () => {
      const { store } = fresh();
      const record = (i: number): JournalRecord => ({
        time: new Date((START + i) * 1000).toISOString(),
        method: 'POST',
        path: '/realms/contract/protocol/openid-connect/token',
        endpoint: 'token',
        status: i % 2 === 0 ? 200 : 401,
        client: 'batch-job',
        grant: 'client_credentials',
        user: null,
        error: i % 2 === 0 ? null : 'invalid_client',
        durationMs: 1.5,
      });
      for (let i = 0; i < JOURNAL_CAPACITY + 5; i++) store.journal.add(record(i));
      const all = await store.journal.list();
      expect(all).toHaveLength(JOURNAL_CAPACITY);
      expect(all[0]).toEqual(record(5));
      expect(all.at(-1)).toEqual(record(JOURNAL_CAPACITY + 4));
      expect(await store.journal.list({ status: { exact: 401 } })).toHaveLength(JOURNAL_CAPACITY / 2);
      const last = JOURNAL_CAPACITY + 4;
      expect(await store.journal.list({ limit: 3 })).toEqual([
        record(last - 2),
        record(last - 1),
        record(last),
      ]);
      expect(await store.journal.list({ limit: 2, status: { exact: 401 } })).toEqual([
        record(last - 3),
        record(last - 1),
      ]);
      expect(await store.journal.size()).toBe(JOURNAL_CAPACITY);
      expect(await store.journal.clear()).toBe(JOURNAL_CAPACITY);
      expect(await store.journal.list()).toEqual([]);
      expect(await store.journal.size()).toBe(0);
    },
  );

  // Only Redis holds data another program could have written.
  if (name === 'redis')
    it.skipIf(skip)('data in Redis that does not parse is absent, logged once, never an error', async () => {
      const { store, realm } = fresh();
      const client = new Redis((redis as RedisServer).url);
      try {
        await client.set(`mock-idp:${realm}:session:junk`, '{not json');
        await client.set(`mock-idp:${realm}:session:old`, JSON.stringify({ id: 'old', v: 1 }));
        await client.set(`mock-idp:${realm}:code:junk`, 'plain text');
        await client.zadd(`mock-idp:${realm}:sessions`, START + 100, 'junk', START + 100, 'old');
        expect(await store.activeSession('junk')).toBeUndefined();
        expect(await store.activeSession('old')).toBeUndefined();
        expect(await store.sessions()).toEqual([]);
        expect(await store.takeCode('junk')).toBeUndefined();
        expect(await store.sessionStatus('junk')).toBe('unknown');
        expect(warnings.filter((w) => w.includes('a session in Redis does not parse'))).toHaveLength(1);
        await client.rpush(`mock-idp:${realm}:faults:token`, '{not json', JSON.stringify({ id: 'x' }));
        expect(await store.faults.list()).toEqual([]);
        await store.faults.add({ endpoint: 'token', status: 503, remaining: 1 });
        expect((await store.faults.take('token'))?.status).toBe(503);
        expect(await store.faults.take('token')).toBeUndefined();
        expect(warnings.filter((w) => w.includes('a fault in Redis does not parse'))).toHaveLength(1);
        await client.rpush(`mock-idp:${realm}:journal`, 'junk', '{"time":1}', 'junk');
        expect(await store.journal.list()).toEqual([]);
        expect(warnings.filter((w) => w.includes('a journal record in Redis does not parse'))).toHaveLength(
          1,
        );
      } finally {
        client.disconnect();
      }
    });
});
