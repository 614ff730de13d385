// The Redis store: a realm's sessions, codes, spent codes, pushed requests, revocations, assertion ids,
// ended-session tombstones, faults and journal under `mock-idp:{realm}:`, shared by every process on the same
// Redis. Expiry is decided on the mock clock; Redis TTLs (a day past the mock expiry) only clean up. Single-use
// things are atomic in Redis: GETDEL takes a code, a pushed request or a session, SET NX records an assertion
// id, a Lua script expires.
import type { Redis as RedisClient } from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import type { FaultStore } from './faults.js';
import type { JournalStore } from './journal.js';
import { RedisFaults } from './redis-faults.js';
import { RedisJournal } from './redis-journal.js';
import {
  markerKey,
  parseRecord,
  versionKey,
  type Present,
  type RedisRealm,
  type RunOnStore,
} from './redis-records.js';
import {
  ASSERTION_TOLERANCE_S,
  type AssertionOptions,
  BACKCHANNEL_KEEP_S,
  type BackchannelChange,
  type BackchannelRequest,
  type CodeGrant,
  type PushedRequest,
  type Session,
  type SessionEndListener,
  type SessionEndReason,
  type SessionPage,
  type StateStore,
} from './state-store.js';
import { API_VERSIONS, METHODS } from '../fixtures/versions.js';
import {
  redact,
  StoreError,
  type SharedQaState,
  type SharedRealms,
  type SharedVersion,
  type StoreBackend,
  type StoreHealth,
} from './backend.js';

/** How often, and how far apart, sharing a value is tried while Redis is away (about ten seconds). */
const SHARE_ATTEMPTS = 20;
const SHARE_RETRY_MS = 500;

/** Redis keeps a record this long past its expiry by the mock clock (which may stand still or jump). */
const CLEANUP_MS = 24 * 3600 * 1000;

const sessionSchema = z.object({
  id: z.string(),
  clientId: z.string(),
  clients: z.array(z.string()),
  issuer: z.string(),
  browser: z.boolean(),
  username: z.string().optional(),
  sub: z.string(),
  authTime: z.number(),
  expiresAt: z.number(),
});

const codeSchema = z.object({
  code: z.string(),
  clientId: z.string(),
  redirectUri: z.string(),
  scopes: z.array(z.string()),
  sessionId: z.string(),
  username: z.string(),
  nonce: z.string().optional(),
  codeChallenge: z.string().optional(),
  codeChallengeMethod: z.enum(['S256', 'plain']).optional(),
  dpopJkt: z.string().optional(),
  expiresAt: z.number(),
  apiVersion: z.literal(API_VERSIONS).optional(),
  method: z.enum(METHODS).optional(),
});

const pushedSchema = z.object({
  requestUri: z.string(),
  clientId: z.string(),
  params: z.record(z.string(), z.string()),
  expiresAt: z.number(),
});

const backchannelSchema = z.object({
  kind: z.enum(['device', 'ciba']),
  id: z.string(),
  userCode: z.string().optional(),
  clientId: z.string(),
  scopes: z.array(z.string()),
  username: z.string().optional(),
  bindingMessage: z.string().optional(),
  status: z.enum(['pending', 'approved', 'denied']),
  decidedAt: z.number().optional(),
  interval: z.number(),
  polledAt: z.number().optional(),
  createdAt: z.number(),
  expiresAt: z.number(),
  autoApproveAt: z.number().optional(),
  apiVersion: z.literal(API_VERSIONS),
});

/** How often a back-channel change is tried when other processes keep writing the same request. */
const CHANGE_ATTEMPTS = 20;

/**
 * Compare-and-set of a back-channel request: KEYS[1] the record, KEYS[2] the set of ids; ARGV[1] the value
 * read, ARGV[2] the id, ARGV[3] the new value ('' removes it), ARGV[4] its PX. 0 when another write came first.
 */
const CHANGE_SCRIPT = `
local current = redis.call('GET', KEYS[1])
if (current or '') ~= ARGV[1] then return 0 end
if ARGV[3] == '' then
  redis.call('DEL', KEYS[1])
  redis.call('SREM', KEYS[2], ARGV[2])
else
  redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[4])
end
return 1
`;

const spentSchema = z.object({ sessionId: z.string(), expiresAt: z.number() });

/** Removes the sessions of the index whose expiresAt (by the mock clock, ARGV[1]) has passed; returns them. */
const EXPIRE_SCRIPT = `
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
-- KEYS[2]: the ids in lexical order (pages); every session removed here leaves it too.
local out = {}
for _, id in ipairs(ids) do
  local key = ARGV[2] .. id
  local raw = redis.call('GET', key)
  local ok, s = false, nil
  if raw then ok, s = pcall(cjson.decode, raw) end
  if not raw or not ok or type(s) ~= 'table' or type(s.expiresAt) ~= 'number' then
    redis.call('ZREM', KEYS[1], id)
    redis.call('ZREM', KEYS[2], id)
  elseif s.expiresAt <= tonumber(ARGV[1]) then
    redis.call('DEL', key)
    redis.call('ZREM', KEYS[1], id)
    redis.call('ZREM', KEYS[2], id)
    table.insert(out, raw)
  else
    redis.call('ZADD', KEYS[1], s.expiresAt, id)
  end
end
return out
`;

/**
 * Writes back what a store that came back empty lost, unless the seed marker (KEYS[1]) is there again with a
 * version (KEYS[2]) as late as this one: one atomic step, so of several replicas noticing it the one that
 * had applied the latest version wins, and the others adopt. KEYS[2] the version,
 * KEYS[3] the QA hash, KEYS[4] the registered clients, KEYS[5..] the values shared at start; ARGV: the marker,
 * the version, the number of QA fields then their field/value pairs, the same for the clients, then one value
 * per shared key.
 */
const RESEED_SCRIPT = `
local stored = tonumber(redis.call('GET', KEYS[2]) or '')
if redis.call('EXISTS', KEYS[1]) == 1 and stored ~= nil and stored >= tonumber(ARGV[2]) then return 0 end
local i = 3
local n = tonumber(ARGV[i])
for j = 1, n do redis.call('HSET', KEYS[3], ARGV[i + 2 * j - 1], ARGV[i + 2 * j]) end
i = i + 2 * n + 1
n = tonumber(ARGV[i])
redis.call('DEL', KEYS[4])
for j = 1, n do redis.call('HSET', KEYS[4], ARGV[i + 2 * j - 1], ARGV[i + 2 * j]) end
i = i + 2 * n
for k = 5, #KEYS do redis.call('SET', KEYS[k], ARGV[i + k - 4]) end
redis.call('SET', KEYS[2], ARGV[2])
redis.call('SET', KEYS[1], ARGV[1])
return 1
`;

class RedisStateStore implements StateStore {
  readonly faults: FaultStore;
  readonly journal: JournalStore;
  readonly #realm: RedisRealm;
  readonly #redis: RedisClient;
  readonly #clock: Clock;
  readonly #prefix: string;
  readonly #index: string;
  /** Every session id with score 0, so ZRANGEBYLEX pages them in id order. */
  readonly #order: string;
  readonly #listeners: SessionEndListener[] = [];
  readonly #run: RunOnStore;
  tombstoneSeconds = 0;

  constructor(realm: RedisRealm, clock: Clock) {
    this.#realm = realm;
    this.#redis = realm.redis;
    this.#clock = clock;
    this.#prefix = realm.prefix;
    this.#index = `${this.#prefix}sessions`;
    this.#order = `${this.#prefix}session-ids`;
    this.#run = realm.run;
    this.faults = new RedisFaults(realm);
    this.journal = new RedisJournal(realm);
  }

  #key(kind: string, id: string): string {
    return `${this.#prefix}${kind}:${id}`;
  }

  /** PX for a record the mock clock expires at `expiresAt`: the mock lifetime left plus a day. */
  #ttl(expiresAt: number): number {
    return Math.max(0, Math.min(expiresAt - this.#clock.nowSeconds(), 10 * 365 * 86400)) * 1000 + CLEANUP_MS;
  }

  /** A stored record, or undefined when there is none or it does not parse (said once). */
  #parse<T extends object>(raw: string | null, schema: z.ZodType<T>, what: string): Present<T> | undefined {
    return parseRecord(this.#realm, raw, schema, what);
  }

  #session(raw: string | null): Session | undefined {
    return this.#parse(raw, sessionSchema, 'session');
  }

  /** Stores a record that the mock clock expires at `expiresAt` (Redis keeps it a day longer). */
  async #put(kind: string, id: string, value: object, expiresAt: number): Promise<void> {
    await this.#redis.set(this.#key(kind, id), JSON.stringify(value), 'PX', this.#ttl(expiresAt));
  }

  onSessionEnd(listener: SessionEndListener): void {
    this.#listeners.push(listener);
  }

  async #tellEnded(session: Session, reason: SessionEndReason): Promise<void> {
    const now = this.#clock.nowSeconds();
    const until = Math.max(session.expiresAt, now) + this.tombstoneSeconds;
    await this.#redis.set(this.#key('ended', session.id), String(until), 'PX', this.#ttl(until));
    for (const listener of this.#listeners) listener(session, reason);
  }

  addSession(session: Session): Promise<void> {
    return this.#run(async () => {
      await this.#redis
        .multi()
        .set(this.#key('session', session.id), JSON.stringify(session), 'PX', this.#ttl(session.expiresAt))
        .zadd(this.#index, session.expiresAt, session.id)
        .zadd(this.#order, 0, session.id)
        .exec();
    });
  }

  saveSession(session: Session): Promise<void> {
    return this.#run(async () => {
      await this.#redis
        .multi()
        .set(
          this.#key('session', session.id),
          JSON.stringify(session),
          'PX',
          this.#ttl(session.expiresAt),
          'XX',
        )
        .zadd(this.#index, 'XX', session.expiresAt, session.id)
        .exec();
    });
  }

  activeSession(id: string | undefined): Promise<Session | undefined> {
    if (id === undefined) return Promise.resolve(undefined);
    return this.#run(async () => {
      const s = this.#session(await this.#redis.get(this.#key('session', id)));
      return s !== undefined && s.expiresAt > this.#clock.nowSeconds() ? s : undefined;
    });
  }

  sessions(): Promise<Session[]> {
    return this.#run(async () => {
      const now = this.#clock.nowSeconds();
      const ids = await this.#redis.zrangebyscore(this.#index, `(${now}`, '+inf');
      if (ids.length === 0) return [];
      const raws = await this.#redis.mget(ids.map((id) => this.#key('session', id)));
      return raws
        .map((raw) => this.#session(raw))
        .filter((s): s is Session => s !== undefined && s.expiresAt > now);
    });
  }

  sessionPage(after: string | undefined, limit: number): Promise<SessionPage> {
    return this.#run(async () => {
      const now = this.#clock.nowSeconds();
      const sessions: Session[] = [];
      let from = after === undefined ? '-' : `(${after}`;
      for (;;) {
        const ids = await this.#redis.zrangebylex(this.#order, from, '+', 'LIMIT', 0, limit + 1);
        if (ids.length === 0) return { sessions, more: false };
        const raws = await this.#redis.mget(ids.map((id) => this.#key('session', id)));
        const gone: string[] = [];
        for (const [i, id] of ids.entries()) {
          const raw = raws[i] ?? null;
          // Only Redis's clean-up TTL removes a record without its id (every other removal takes both).
          if (raw === null) gone.push(id);
          const s = this.#session(raw);
          if (s === undefined || s.expiresAt <= now) continue;
          if (sessions.length === limit) return { sessions, more: true };
          sessions.push(s);
        }
        if (gone.length > 0) await this.#redis.zrem(this.#order, ...gone);
        if (ids.length <= limit) return { sessions, more: false };
        from = `(${ids[ids.length - 1] as string}`;
      }
    });
  }

  sessionStatus(id: string): Promise<'active' | 'ended' | 'unknown'> {
    return this.#run(async () => {
      const now = this.#clock.nowSeconds();
      const [raw, until] = await this.#redis.mget(this.#key('session', id), this.#key('ended', id));
      const session = this.#session(raw ?? null);
      if (session !== undefined) return session.expiresAt > now ? 'active' : 'ended';
      return until != null && Number(until) > now ? 'ended' : 'unknown';
    });
  }

  /** Takes a session out atomically: of several processes ending it, one gets it (and tells its listeners). */
  async #take(id: string): Promise<Session | undefined> {
    const results = await this.#redis
      .multi()
      .getdel(this.#key('session', id))
      .zrem(this.#index, id)
      .zrem(this.#order, id)
      .exec();
    const raw = results?.[0]?.[1];
    return this.#session(typeof raw === 'string' ? raw : null);
  }

  endSession(id: string, reason: SessionEndReason): Promise<boolean> {
    return this.#run(async () => {
      const session = await this.#take(id);
      const now = this.#clock.nowSeconds();
      if (session === undefined) {
        const until = now + this.tombstoneSeconds;
        await this.#redis.set(this.#key('ended', id), String(until), 'PX', this.#ttl(until));
        return false;
      }
      await this.#tellEnded(session, session.expiresAt > now ? reason : 'expired');
      return true;
    });
  }

  endAllSessions(reason: SessionEndReason): Promise<number> {
    return this.#run(async () => {
      const now = this.#clock.nowSeconds();
      const ids = await this.#redis.zrange(this.#index, '0', '-1');
      let active = 0;
      for (const id of ids) {
        const session = await this.#take(id);
        if (session === undefined) continue;
        const live = session.expiresAt > now;
        if (live) active++;
        await this.#tellEnded(session, live ? reason : 'expired');
      }
      await this.#deleteMatching(`${this.#prefix}code:*`);
      return active;
    });
  }

  async #deleteMatching(pattern: string): Promise<void> {
    let cursor = '0';
    do {
      const [next, keys] = await this.#redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      if (keys.length > 0) await this.#redis.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
  }

  expireSessions(): Promise<number> {
    return this.#run(async () => {
      const now = this.#clock.nowSeconds();
      const raws = (await this.#redis.eval(
        EXPIRE_SCRIPT,
        2,
        this.#index,
        this.#order,
        String(now),
        `${this.#prefix}session:`,
      )) as string[];
      let n = 0;
      for (const raw of raws) {
        const session = this.#session(raw);
        if (session === undefined) continue;
        await this.#tellEnded(session, 'expired');
        n++;
      }
      return n;
    });
  }

  addCode(grant: CodeGrant): Promise<void> {
    return this.#run(async () => {
      await this.#put('code', grant.code, grant, grant.expiresAt);
    });
  }

  takeCode(code: string): Promise<CodeGrant | undefined> {
    return this.#run(async () => {
      return this.#parse(await this.#redis.getdel(this.#key('code', code)), codeSchema, 'code');
    });
  }

  markCodeSpent(grant: CodeGrant): Promise<void> {
    return this.#run(async () => {
      const spent = { sessionId: grant.sessionId, expiresAt: grant.expiresAt };
      await this.#put('spent', grant.code, spent, grant.expiresAt);
    });
  }

  spentCodeSession(code: string): Promise<string | undefined> {
    return this.#run(async () => {
      const spent = this.#parse(await this.#redis.get(this.#key('spent', code)), spentSchema, 'spent code');
      return spent !== undefined && spent.expiresAt > this.#clock.nowSeconds() ? spent.sessionId : undefined;
    });
  }

  addPushedRequest(request: PushedRequest): Promise<void> {
    return this.#run(async () => {
      await this.#put('par', request.requestUri, request, request.expiresAt);
    });
  }

  takePushedRequest(requestUri: string): Promise<PushedRequest | undefined> {
    return this.#run(async () => {
      const raw = await this.#redis.getdel(this.#key('par', requestUri));
      return this.#parse(raw, pushedSchema, 'pushed request');
    });
  }

  addBackchannelRequest(request: BackchannelRequest): Promise<void> {
    return this.#run(async () => {
      const until = request.expiresAt + BACKCHANNEL_KEEP_S;
      const multi = this.#redis
        .multi()
        .set(this.#key('backchannel', request.id), JSON.stringify(request), 'PX', this.#ttl(until))
        .sadd(this.#key('backchannel-ids', 'all'), request.id);
      if (request.userCode !== undefined)
        multi.set(this.#key('user-code', request.userCode), request.id, 'PX', this.#ttl(until));
      await multi.exec();
    });
  }

  backchannelRequest(id: string): Promise<BackchannelRequest | undefined> {
    return this.#run(async () =>
      this.#parse(
        await this.#redis.get(this.#key('backchannel', id)),
        backchannelSchema,
        'back-channel request',
      ),
    );
  }

  deviceCodeOf(userCode: string): Promise<string | undefined> {
    return this.#run(async () => (await this.#redis.get(this.#key('user-code', userCode))) ?? undefined);
  }

  changeBackchannelRequest<T>(
    id: string,
    change: (current: BackchannelRequest | undefined) => BackchannelChange<T>,
  ): Promise<T> {
    return this.#run(async () => {
      const key = this.#key('backchannel', id);
      for (let attempt = 1; ; attempt++) {
        const raw = await this.#redis.get(key);
        const current = this.#parse(raw, backchannelSchema, 'back-channel request');
        const { next, result } = change(current);
        if (next === undefined) return result;
        const value = next === null ? '' : JSON.stringify(next);
        const px = next === null ? 0 : this.#ttl(next.expiresAt + BACKCHANNEL_KEEP_S);
        const done = await this.#redis.eval(
          CHANGE_SCRIPT,
          2,
          key,
          this.#key('backchannel-ids', 'all'),
          raw ?? '',
          id,
          value,
          String(px),
        );
        if (done === 1) return result;
        if (attempt >= CHANGE_ATTEMPTS)
          throw new StoreError(`back-channel request ${id} kept changing under ${CHANGE_ATTEMPTS} attempts`);
      }
    });
  }

  backchannelRequests(): Promise<BackchannelRequest[]> {
    return this.#run(async () => {
      const index = this.#key('backchannel-ids', 'all');
      const ids = await this.#redis.smembers(index);
      if (ids.length === 0) return [];
      const raws = await this.#redis.mget(ids.map((id) => this.#key('backchannel', id)));
      const out: BackchannelRequest[] = [];
      const gone: string[] = [];
      raws.forEach((raw, i) => {
        const request = this.#parse(raw, backchannelSchema, 'back-channel request');
        if (request !== undefined) out.push(request);
        else gone.push(ids[i] as string);
      });
      if (gone.length > 0) await this.#redis.srem(index, ...gone);
      return out;
    });
  }

  revoke(jti: string, exp: number): Promise<void> {
    return this.#run(async () => {
      await this.#redis.set(this.#key('revoked', jti), String(exp), 'PX', this.#ttl(exp));
    });
  }

  isRevoked(jti: string | undefined): Promise<boolean> {
    if (jti === undefined) return Promise.resolve(false);
    return this.#run(async () => (await this.#redis.exists(this.#key('revoked', jti))) === 1);
  }

  useAssertion(clientId: string, jti: string, exp: number, options: AssertionOptions = {}): Promise<boolean> {
    return this.#run(async () => {
      const key = this.#key('jti', `${clientId}\u0000${jti}`);
      // By the mock clock only: kept for the mock time left to exp, in real time (Redis cannot follow a
      // mock clock, and one that is frozen or real never passes exp sooner than that).
      // Otherwise kept until both the mock and the real clock have passed exp (+ tolerance), as the memory
      // store does, and a day more.
      const realNow = Math.floor(Clock.realMs() / 1000);
      const ms =
        options.mockClockOnly === true
          ? Math.max(exp - this.#clock.nowSeconds(), 1) * 1000
          : (Math.max(exp - Math.min(this.#clock.nowSeconds(), realNow), 0) + ASSERTION_TOLERANCE_S) * 1000 +
            CLEANUP_MS;
      const ok = await this.#redis.set(key, String(exp), 'PX', ms, 'NX');
      return ok === 'OK';
    });
  }

  async close(): Promise<void> {}
}

/**
 * Writes a shared value (ARGV[1] kind, ARGV[2] value) if the version (KEYS[2]) is still ARGV[3] ('0': none);
 * new fixtures end the registered clients (KEYS[3]) unless ARGV[4] is '1' (a change through the admin API).
 * The new version, or -1 when another change came first.
 */
const WRITE_IF_SCRIPT = `
local current = redis.call('GET', KEYS[2]) or '0'
if current ~= ARGV[3] then return -1 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
if ARGV[1] == 'fixtures' and ARGV[4] ~= '1' then redis.call('DEL', KEYS[3]) end
return redis.call('INCR', KEYS[2])
`;

/** The realms made and deleted at run time (outside every realm's `mock-idp:{realm}:` keys). */
const REALMS = 'mock-idp-realms';
const REALMS_VERSION = 'mock-idp-realms-version';

/**
 * Records a new realm (ARGV[1] name, ARGV[2] record) unless a realm of that name is recorded and not
 * deleted; bumps the version (KEYS[2]). 1 when recorded.
 */
const CREATE_REALM_SCRIPT = `
local current = redis.call('HGET', KEYS[1], ARGV[1])
if current and not string.find(current, '"deleted":true', 1, true) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('INCR', KEYS[2])
return 1
`;

class RedisBackend implements StoreBackend {
  readonly kind = 'redis';
  readonly #redis: RedisClient;
  readonly #log: Logger;
  readonly #where: string;
  readonly #reportedBad = new Set<string>();
  readonly #unavailable: () => Error;
  /** Per realm: what takes the versions the request path reads. */
  readonly #observers = new Map<string, (seen: SharedVersion) => Promise<void>>();
  readonly #reconnected: (() => void)[] = [];
  /** Per realm: why it is not serving as it should (re-seeding an empty store). */
  readonly #down = new Map<string, string>();
  /** Per realm: store key → the value this process shared (kept to write back into an empty store). */
  readonly #sharedValues = new Map<string, Map<string, string>>();
  lastError: string | undefined;

  constructor(redis: RedisClient, log: Logger, where: string, unavailable: () => Error) {
    this.#redis = redis;
    this.#log = log;
    this.#where = where;
    this.#unavailable = unavailable;
  }

  /** Every failure of Redis a request meets becomes the caller's `unavailable` error. */
  #run: RunOnStore = async (op) => {
    try {
      return await op();
    } catch {
      throw this.#unavailable();
    }
  };

  /** Data that does not parse counts as absent; said once per kind, never a 500. */
  #badData = (what: string): void => {
    if (this.#reportedBad.has(what)) return;
    this.#reportedBad.add(what);
    this.#log.warn(
      `mock-idp: a ${what} in Redis does not parse (another program's key, an older format?): ignored`,
    );
  };

  storeFor(realm: string, clock: Clock): StateStore {
    const parts = {
      redis: this.#redis,
      prefix: `mock-idp:${realm}:`,
      badData: this.#badData,
      run: this.#run,
      observe: async (seen: SharedVersion) => {
        // Catching up is best effort: a store away now is the endpoint's to answer (503) if it needs it.
        await this.#observers
          .get(realm)?.(seen)
          .catch(() => undefined);
      },
    };
    return new RedisStateStore(parts, clock);
  }

  async shared(
    realm: string,
    name: string,
    make: () => Promise<string>,
    valid: (value: string) => boolean,
  ): Promise<string> {
    const key = `mock-idp:${realm}:${name}`;
    // A value made after start (the encryption key, made in the background; the EC key, on first use) may
    // meet Redis away for a moment: tried again, with the value made once, rather than failing for good.
    let made: Promise<string> | undefined;
    const makeOnce = (): Promise<string> => (made ??= make());
    let value: string | undefined;
    for (let attempt = 1; value === undefined; attempt++) {
      try {
        value = await this.#share(key, name, makeOnce, valid);
      } catch (err) {
        // Only Redis is waited for: a value that cannot be made fails at once.
        const makeFailed =
          made !== undefined &&
          (await made.then(
            () => false,
            () => true,
          ));
        if (makeFailed || attempt >= SHARE_ATTEMPTS) throw err;
        await sleep(SHARE_RETRY_MS);
      }
    }
    let values = this.#sharedValues.get(realm);
    if (values === undefined) this.#sharedValues.set(realm, (values = new Map()));
    values.set(key, value);
    return value;
  }

  async #share(
    key: string,
    name: string,
    make: () => Promise<string>,
    valid: (value: string) => boolean,
  ): Promise<string> {
    const existing = await this.#redis.get(key);
    if (existing !== null && valid(existing)) return existing;
    const value = await make();
    if (existing !== null) {
      this.#badData(name);
      await this.#redis.set(key, value);
      return value;
    }
    // The first process to store it wins; the others load the winner's.
    if ((await this.#redis.set(key, value, 'NX')) === 'OK') return value;
    const winner = await this.#redis.get(key);
    return winner !== null && valid(winner) ? winner : value;
  }

  /** The connection is back: whoever listens checks the store did not come back empty. */
  reconnected(): void {
    for (const listener of this.#reconnected) listener();
  }

  sharedQa = (realm: string): SharedQaState => {
    const prefix = `mock-idp:${realm}:`;
    const hash = `${prefix}qa`;
    const version = versionKey(prefix);
    const marker = markerKey(prefix);
    const clients = `${prefix}clients`;
    return {
      version: () =>
        this.#run(async () => {
          const [v, m] = await this.#redis.mget(version, marker);
          return { version: v ?? null, marker: m ?? null };
        }),
      read: () => this.#run(() => this.#redis.hgetall(hash)),
      write: (kind, value) =>
        this.#run(async () => {
          const multi = this.#redis.multi().hset(hash, kind, value);
          if (kind === 'fixtures') multi.del(clients);
          const results = await multi.incr(version).exec();
          const made = results?.[results.length - 1]?.[1];
          return { version: typeof made === 'number' ? made : Number.NaN };
        }),
      writeIf: (kind, value, expected, keepClients) =>
        this.#run(async () => {
          const made = await this.#redis.eval(
            WRITE_IF_SCRIPT,
            3,
            hash,
            version,
            clients,
            kind,
            value,
            expected,
            keepClients === true ? '1' : '0',
          );
          return typeof made === 'number' && made > 0 ? { version: made } : undefined;
        }),
      clients: () => this.#run(() => this.#redis.hgetall(clients)),
      addClient: (id, record) =>
        this.#run(async () => {
          const results = await this.#redis.multi().hsetnx(clients, id, record).incr(version).exec();
          return results?.[0]?.[1] === 1;
        }),
      removeClient: (id) =>
        this.#run(async () => {
          const results = await this.#redis.multi().hdel(clients, id).incr(version).exec();
          return results?.[0]?.[1] === 1;
        }),
      onObserved: (listener) => {
        this.#observers.set(realm, listener);
      },
      onReconnect: (listener) => {
        this.#reconnected.push(listener);
      },
      mark: (id) =>
        this.#run(async () => {
          await this.#redis.set(marker, id, 'NX');
        }),
      reseed: (seed) =>
        this.#run(async () => {
          const shared = [...(this.#sharedValues.get(realm) ?? new Map<string, string>())];
          const pairs = (record: Record<string, string>): string[] => [
            String(Object.keys(record).length),
            ...Object.entries(record).flat(),
          ];
          const done = await this.#redis.eval(
            RESEED_SCRIPT,
            4 + shared.length,
            marker,
            version,
            hash,
            clients,
            ...shared.map(([key]) => key),
            seed.marker,
            seed.version,
            ...pairs(seed.qa),
            ...pairs(seed.clients),
            ...shared.map(([, value]) => value),
          );
          return done === 1;
        }),
      setDown: (reason) => {
        if (reason === undefined) this.#down.delete(realm);
        else this.#down.set(realm, reason);
      },
    };
  };

  forget(realm: string): void {
    this.#sharedValues.delete(realm);
    this.#down.delete(realm);
  }

  sharedRealms: SharedRealms = {
    version: () => this.#run(async () => (await this.#redis.get(REALMS_VERSION)) ?? null),
    read: () => this.#run(() => this.#redis.hgetall(REALMS)),
    create: (name, text) =>
      this.#run(async () => {
        const done = await this.#redis.eval(
          CREATE_REALM_SCRIPT,
          2,
          REALMS,
          REALMS_VERSION,
          name,
          JSON.stringify({ text }),
        );
        return done === 1;
      }),
    remove: (name) =>
      this.#run(async () => {
        const prefix = `mock-idp:${name}:`;
        // Everything the realm kept goes: its sessions, codes, faults and journal, and the values shared at
        // start (signing keys, encryption key, realm secret), so a realm made again under the name is a new
        // one, with its own keys, as in Keycloak. Only its version and seed marker stay: the version moves, so
        // the next request for the realm at every replica finds it deleted.
        const keep = new Set([versionKey(prefix), markerKey(prefix)]);
        let cursor = '0';
        do {
          const [next, keys] = await this.#redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
          const gone = keys.filter((key) => !keep.has(key));
          if (gone.length > 0) await this.#redis.unlink(...gone);
          cursor = next;
        } while (cursor !== '0');
        await this.#redis
          .multi()
          .hset(REALMS, name, JSON.stringify({ deleted: true }))
          .del(`${prefix}qa`, `${prefix}clients`)
          .incr(versionKey(prefix))
          .incr(REALMS_VERSION)
          .exec();
        this.#sharedValues.delete(name);
      }),
  };

  health(): StoreHealth {
    if (this.#redis.status === 'ready') {
      const [reason] = this.#down.values();
      return reason === undefined ? { ok: true } : { ok: false, reason };
    }
    return {
      ok: false,
      reason: `Redis at ${this.#where} is unavailable (${this.#redis.status}${this.lastError !== undefined ? `: ${this.lastError}` : ''})`,
    };
  }

  async close(): Promise<void> {
    this.#redis.disconnect();
  }
}

/** Connects to Redis and checks it answers; a clear StoreError (nothing listening yet) when it does not. */
export async function openRedisBackend(
  url: URL,
  log: Logger,
  unavailable: () => Error,
): Promise<StoreBackend> {
  const { Redis } = await import('ioredis');
  const where = redact(url);
  let started = false;
  let lastStartError: string | undefined;
  let down = false;
  const redis = new Redis(url.href, {
    lazyConnect: true,
    // While disconnected, commands fail at once (a 503) instead of queueing until Redis is back.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: 2000,
    connectTimeout: 3000,
    // Commands issued in the same event-loop turn (concurrent requests' store reads and writes, fault
    // checks, journal appends) go out in one write and come back in one read.
    enableAutoPipelining: true,
    // At start, one attempt; once running, reconnect for ever (recovering by itself).
    retryStrategy: (times) => (started ? Math.min(times * 100, 1000) : null),
    ...(url.protocol === 'rediss:' ? { tls: {} } : {}),
  });
  const backend = new RedisBackend(redis, log, where, unavailable);
  redis.on('error', (err: Error) => {
    if (!started) {
      lastStartError = err.message;
      return;
    }
    backend.lastError = err.message;
    if (!down)
      log.error(`mock-idp: lost the store at ${where}: ${err.message} (answering 503 until it is back)`);
    down = true;
  });
  redis.on('ready', () => {
    if (down) log.warn(`mock-idp: the store at ${where} is back`);
    down = false;
    backend.lastError = undefined;
    backend.reconnected();
  });
  try {
    await redis.connect();
    await redis.ping();
  } catch (err) {
    redis.disconnect();
    const message = lastStartError ?? (err as Error).message;
    throw new StoreError(`--store: cannot use Redis at ${where}: ${message}`);
  }
  started = true;
  return backend;
}
