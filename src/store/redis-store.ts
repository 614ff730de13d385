// The Redis store: a realm's records (sessions, codes, spent codes, pushed requests, revocations, assertion ids,
// ended-session tombstones), faults and journal under `mock-idp:{realm}:`, shared by every process on the same
// Redis. Expiry is decided on the mock clock; Redis TTLs (a day past the mock expiry) only clean up. Single-use
// things are atomic in Redis: GETDEL takes a record, SET NX adds one, Lua scripts change and expire.
import type { Redis as RedisClient } from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';
import { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import { RealmState } from './realm-state.js';
import type {
  Lifetime,
  PageOptions,
  RecordChange,
  RecordKind,
  RecordPage,
  RecordStore,
} from './record-store.js';
import { RedisFaults } from './redis-faults.js';
import { redisEvents } from './redis-events.js';
import { RedisJournal } from './redis-journal.js';
import { markerKey, readRecord, versionKey, type RedisRealm, type RunOnStore } from './redis-records.js';
import type { StateStore } from './state-store.js';
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

/** How often a change is tried when other processes keep writing the same record. */
const CHANGE_ATTEMPTS = 20;

/**
 * Compare-and-set of a record: KEYS[1] the record, KEYS[2] its kind's ids in order, KEYS[3] its kind's expiry
 * index; ARGV[1] the value read, ARGV[2] the id, ARGV[3] the new value ('' removes it), ARGV[4] its PX, ARGV[5]
 * its expiry (the index's score), ARGV[6] '1' when the kind is ordered, ARGV[7] '1' when it is expiring.
 * 0 when another write came first.
 */
const CHANGE_SCRIPT = `
local current = redis.call('GET', KEYS[1])
if (current or '') ~= ARGV[1] then return 0 end
if ARGV[3] == '' then
  redis.call('DEL', KEYS[1])
  if ARGV[6] == '1' then redis.call('ZREM', KEYS[2], ARGV[2]) end
  if ARGV[7] == '1' then redis.call('ZREM', KEYS[3], ARGV[2]) end
else
  redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[4])
  if ARGV[6] == '1' then redis.call('ZADD', KEYS[2], 0, ARGV[2]) end
  if ARGV[7] == '1' then redis.call('ZADD', KEYS[3], ARGV[5], ARGV[2]) end
end
return 1
`;

/** SET NX of a record and, when it was absent, its index entries (keys and ARGV as CHANGE_SCRIPT's). */
const ADD_SCRIPT = `
if not redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[4], 'NX') then return 0 end
if ARGV[6] == '1' then redis.call('ZADD', KEYS[2], 0, ARGV[2]) end
if ARGV[7] == '1' then redis.call('ZADD', KEYS[3], ARGV[5], ARGV[2]) end
return 1
`;

/**
 * Takes the records of the expiry index KEYS[1] whose expiry (the mock clock's, ARGV[1]) has passed, and their
 * ids out of the order KEYS[2]; ARGV[2] the records' key prefix. Returns them.
 */
const TAKE_EXPIRED_SCRIPT = `
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
local out = {}
for _, id in ipairs(ids) do
  local key = ARGV[2] .. id
  local raw = redis.call('GET', key)
  if raw then
    redis.call('DEL', key)
    table.insert(out, raw)
  end
  redis.call('ZREM', KEYS[1], id)
  redis.call('ZREM', KEYS[2], id)
end
return out
`;

/**
 * Writes back what a store that came back empty lost, unless the seed marker (KEYS[1]) is there again with a
 * version (KEYS[2]) as late as this one: one atomic step, so of several replicas noticing it the one that
 * had applied the latest version wins, and the others adopt, writing back only the shared values the winner
 * did not hold (made on first use, the EC key say: a replica that never used it re-seeds without it). KEYS[2] the version,
 * KEYS[3] the QA hash, KEYS[4] the registered clients, KEYS[5..] the values shared at start; ARGV: the marker,
 * the version, the number of QA fields then their field/value pairs, the same for the clients, then one value
 * per shared key.
 */
const RESEED_SCRIPT = `
local qa = 3
local clients = qa + 2 * tonumber(ARGV[qa]) + 1
local values = clients + 2 * tonumber(ARGV[clients])
local stored = tonumber(redis.call('GET', KEYS[2]) or '')
if redis.call('EXISTS', KEYS[1]) == 1 and stored ~= nil and stored >= tonumber(ARGV[2]) then
  for k = 5, #KEYS do redis.call('SET', KEYS[k], ARGV[values + k - 4], 'NX') end
  return 0
end
for j = 1, tonumber(ARGV[qa]) do redis.call('HSET', KEYS[3], ARGV[qa + 2 * j - 1], ARGV[qa + 2 * j]) end
redis.call('DEL', KEYS[4])
for j = 1, tonumber(ARGV[clients]) do redis.call('HSET', KEYS[4], ARGV[clients + 2 * j - 1], ARGV[clients + 2 * j]) end
for k = 5, #KEYS do redis.call('SET', KEYS[k], ARGV[values + k - 4]) end
redis.call('SET', KEYS[2], ARGV[2])
redis.call('SET', KEYS[1], ARGV[1])
return 1
`;

/**
 * A realm's records in Redis: `{prefix}{kind}:{id}` holds a record's JSON, with a TTL that only cleans up (the
 * mock lifetime left plus a day); an ordered kind's ids are in the sorted set `{prefix}{kind}-ids` (score 0,
 * so ZRANGEBYLEX pages them), an expiring kind's in `{prefix}{kind}s` scored by expiry.
 */
class RedisRecords implements RecordStore {
  readonly #realm: RedisRealm;
  readonly #redis: RedisClient;
  readonly #clock: Clock;
  readonly #prefix: string;
  readonly #run: RunOnStore;

  constructor(realm: RedisRealm, clock: Clock) {
    this.#realm = realm;
    this.#redis = realm.redis;
    this.#clock = clock;
    this.#prefix = realm.prefix;
    this.#run = realm.run;
  }

  #key(kind: RecordKind<unknown>, id: string): string {
    return `${this.#prefix}${kind.name}:${id}`;
  }

  #orderKey(kind: RecordKind<unknown>): string {
    return `${this.#prefix}${kind.name}-ids`;
  }

  #expiryKey(kind: RecordKind<unknown>): string {
    return `${this.#prefix}${kind.name}s`;
  }

  /** PX for a record of this lifetime: the lifetime left plus a day, or by the real clock alone (`either`). */
  #px(life: Lifetime): number {
    const mockMs = Math.max(0, Math.min(life.expiresAt - this.#clock.nowSeconds(), 10 * 365 * 86400)) * 1000;
    if (life.realUntilMs === undefined) return mockMs + CLEANUP_MS;
    const realMs = life.realUntilMs - Clock.realMs();
    // Redis cannot follow a mock clock: kept by the real one, which never passes the bound sooner.
    if (life.real === 'either') return Math.max(realMs, 1000);
    return Math.max(mockMs, realMs, 0) + CLEANUP_MS;
  }

  /** A stored record, or undefined when there is none or it does not parse (said once per kind). */
  #parse<T>(kind: RecordKind<T>, raw: unknown): T | undefined {
    return readRecord(this.#realm, raw, (value) => kind.parse(value), kind.what);
  }

  /** The keys and arguments CHANGE_SCRIPT and ADD_SCRIPT take for a new value ('' removes). */
  #scriptArgs<T>(kind: RecordKind<T>, id: string, current: string, value: T | null): (string | number)[] {
    const life = value !== null ? kind.lifetime(value) : undefined;
    return [
      3,
      this.#key(kind as RecordKind<unknown>, id),
      this.#orderKey(kind as RecordKind<unknown>),
      this.#expiryKey(kind as RecordKind<unknown>),
      current,
      id,
      value !== null ? JSON.stringify(value) : '',
      life !== undefined ? String(this.#px(life)) : '0',
      life !== undefined ? String(life.expiresAt) : '0',
      kind.ordered === true || kind.expiring === true ? '1' : '0',
      kind.expiring === true ? '1' : '0',
    ];
  }

  get<T>(kind: RecordKind<T>, id: string): Promise<T | undefined> {
    return this.#run(async () =>
      this.#parse(kind, await this.#redis.get(this.#key(kind as RecordKind<unknown>, id))),
    );
  }

  put<T>(kind: RecordKind<T>, id: string, value: T, options: { ifPresent?: boolean } = {}): Promise<void> {
    return this.#run(async () => {
      const k = kind as RecordKind<unknown>;
      const life = kind.lifetime(value);
      const json = JSON.stringify(value);
      const px = this.#px(life);
      if (kind.ordered !== true && kind.expiring !== true) {
        if (options.ifPresent === true) await this.#redis.set(this.#key(k, id), json, 'PX', px, 'XX');
        else await this.#redis.set(this.#key(k, id), json, 'PX', px);
        return;
      }
      const multi = this.#redis.multi();
      if (options.ifPresent === true) {
        multi.set(this.#key(k, id), json, 'PX', px, 'XX');
        if (kind.expiring === true) multi.zadd(this.#expiryKey(k), 'XX', life.expiresAt, id);
      } else {
        multi.set(this.#key(k, id), json, 'PX', px).zadd(this.#orderKey(k), 0, id);
        if (kind.expiring === true) multi.zadd(this.#expiryKey(k), life.expiresAt, id);
      }
      await multi.exec();
    });
  }

  add<T>(kind: RecordKind<T>, id: string, value: T): Promise<boolean> {
    return this.#run(async () => {
      if (kind.ordered === true || kind.expiring === true) {
        const [n, ...args] = this.#scriptArgs(kind, id, '', value);
        return (await this.#redis.eval(ADD_SCRIPT, n as number, ...args)) === 1;
      }
      const px = this.#px(kind.lifetime(value));
      const ok = await this.#redis.set(
        this.#key(kind as RecordKind<unknown>, id),
        JSON.stringify(value),
        'PX',
        px,
        'NX',
      );
      return ok === 'OK';
    });
  }

  /** Takes a record out atomically: of several processes taking it, one gets it. */
  take<T>(kind: RecordKind<T>, id: string): Promise<T | undefined> {
    return this.#run(async () => {
      const k = kind as RecordKind<unknown>;
      if (kind.ordered !== true && kind.expiring !== true)
        return this.#parse(kind, await this.#redis.getdel(this.#key(k, id)));
      const multi = this.#redis.multi().getdel(this.#key(k, id)).zrem(this.#orderKey(k), id);
      if (kind.expiring === true) multi.zrem(this.#expiryKey(k), id);
      const results = await multi.exec();
      return this.#parse(kind, results?.[0]?.[1]);
    });
  }

  change<T, R>(
    kind: RecordKind<T>,
    id: string,
    change: (current: T | undefined) => RecordChange<T, R>,
  ): Promise<R> {
    return this.#run(async () => {
      const key = this.#key(kind as RecordKind<unknown>, id);
      for (let attempt = 1; ; attempt++) {
        const raw = await this.#redis.get(key);
        const { next, result } = change(this.#parse(kind, raw));
        if (next === undefined) return result;
        const [n, ...args] = this.#scriptArgs(kind, id, raw ?? '', next);
        if ((await this.#redis.eval(CHANGE_SCRIPT, n as number, ...args)) === 1) return result;
        if (attempt >= CHANGE_ATTEMPTS)
          throw new StoreError(`${kind.what} ${id} kept changing under ${CHANGE_ATTEMPTS} attempts`);
      }
    });
  }

  remove<T>(kind: RecordKind<T>, id: string): Promise<void> {
    return this.#run(async () => {
      const k = kind as RecordKind<unknown>;
      if (kind.ordered !== true && kind.expiring !== true) {
        await this.#redis.del(this.#key(k, id));
        return;
      }
      const multi = this.#redis.multi().del(this.#key(k, id)).zrem(this.#orderKey(k), id);
      if (kind.expiring === true) multi.zrem(this.#expiryKey(k), id);
      await multi.exec();
    });
  }

  page<T>(kind: RecordKind<T>, options: PageOptions): Promise<RecordPage<T>> {
    return this.#run(async () => {
      const k = kind as RecordKind<unknown>;
      const { after, limit, liveAt = -Infinity } = options;
      const records: T[] = [];
      let from = after === undefined ? '-' : `(${after}`;
      const all = !Number.isFinite(limit);
      for (;;) {
        const ids = all
          ? await this.#redis.zrangebylex(this.#orderKey(k), from, '+')
          : await this.#redis.zrangebylex(this.#orderKey(k), from, '+', 'LIMIT', 0, limit + 1);
        if (ids.length === 0) return { records, more: false };
        const raws = await this.#redis.mget(ids.map((id) => this.#key(k, id)));
        const gone: string[] = [];
        for (const [i, id] of ids.entries()) {
          const raw = raws[i] ?? null;
          // Only Redis's clean-up TTL removes a record without its id (every other removal takes both).
          if (raw === null) gone.push(id);
          const record = this.#parse(kind, raw);
          if (record === undefined || kind.lifetime(record).expiresAt <= liveAt) continue;
          if (records.length === limit) return { records, more: true };
          records.push(record);
        }
        if (gone.length > 0) await this.#redis.zrem(this.#orderKey(k), ...gone);
        if (all || ids.length <= limit) return { records, more: false };
        from = `(${ids[ids.length - 1] as string}`;
      }
    });
  }

  takeExpired<T>(kind: RecordKind<T>, now: number): Promise<T[]> {
    return this.#run(async () => {
      const k = kind as RecordKind<unknown>;
      const raws = (await this.#redis.eval(
        TAKE_EXPIRED_SCRIPT,
        2,
        this.#expiryKey(k),
        this.#orderKey(k),
        Number.isFinite(now) ? String(now) : '+inf',
        `${this.#prefix}${kind.name}:`,
      )) as string[];
      const out: T[] = [];
      for (const raw of raws) {
        const record = this.#parse(kind, raw);
        if (record !== undefined) out.push(record);
      }
      return out;
    });
  }

  clear<T>(kind: RecordKind<T>): Promise<void> {
    return this.#run(async () => {
      const k = kind as RecordKind<unknown>;
      let cursor = '0';
      do {
        const [next, keys] = await this.#redis.scan(
          cursor,
          'MATCH',
          `${this.#prefix}${kind.name}:*`,
          'COUNT',
          500,
        );
        if (keys.length > 0) await this.#redis.unlink(...keys);
        cursor = next;
      } while (cursor !== '0');
      await this.#redis.del(this.#orderKey(k), this.#expiryKey(k));
    });
  }
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
/** The realm list's epoch: set by the first write after the store was empty. */
const REALMS_EPOCH = 'mock-idp-realms-epoch';

/**
 * Records a new realm (ARGV[1] name, ARGV[2] record) unless a realm of that name is recorded and not
 * deleted; bumps the version (KEYS[2]) and gives the list the epoch ARGV[3] when it has none (KEYS[3]).
 * 1 when recorded.
 */
const CREATE_REALM_SCRIPT = `
local current = redis.call('HGET', KEYS[1], ARGV[1])
if current and not string.find(current, '"deleted":true', 1, true) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[3], ARGV[3], 'NX')
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
    return new RealmState(
      {
        records: new RedisRecords(parts, clock),
        faults: new RedisFaults(parts),
        journal: new RedisJournal(parts),
        events: redisEvents(parts),
      },
      clock,
    );
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
    version: () =>
      this.#run(async () => {
        const [epoch, counter] = await this.#redis.mget(REALMS_EPOCH, REALMS_VERSION);
        return counter === null || counter === undefined ? null : `${epoch ?? '-'}:${counter}`;
      }),
    read: () => this.#run(() => this.#redis.hgetall(REALMS)),
    create: (name, text, epoch) =>
      this.#run(async () => {
        const done = await this.#redis.eval(
          CREATE_REALM_SCRIPT,
          3,
          REALMS,
          REALMS_VERSION,
          REALMS_EPOCH,
          name,
          JSON.stringify({ text }),
          epoch,
        );
        return done === 1;
      }),
    remove: (name, epoch) =>
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
          .set(REALMS_EPOCH, epoch, 'NX')
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
