// A realm's injected faults in Redis, so a fault set at one replica applies at any and a counted fault is used
// up exactly `count` times across all of them.
import { z } from 'zod';
import { ENDPOINT_NAMES, type EndpointName } from '../endpoint-names.js';
import type { FaultStore, NewFault, PendingFault } from './faults.js';
import { markerKey, parseRecord, versionKey, type RedisRealm } from './redis-records.js';

/**
 * Uses up one application of the first fault of an endpoint's list (KEYS[1]); returns {the fault after
 * this use or false, how many entries were dropped because they do not parse, the shared-state version
 * (KEYS[2]) and the seed marker (KEYS[3])}: the request path's one round trip also tells whether this
 * replica's copy of the shared state is stale.
 */
const TAKE_FAULT_SCRIPT = `
local function take()
  local bad = 0
  while true do
    local raw = redis.call('LINDEX', KEYS[1], 0)
    if not raw then return false, bad end
    local ok, f = pcall(cjson.decode, raw)
    if ok and type(f) == 'table' and f.remaining == 'always' then return raw, bad end
    if ok and type(f) == 'table' and type(f.remaining) == 'number' then
      f.remaining = f.remaining - 1
      if f.remaining <= 0 then redis.call('LPOP', KEYS[1]) else redis.call('LSET', KEYS[1], 0, cjson.encode(f)) end
      return cjson.encode(f), bad
    end
    redis.call('LPOP', KEYS[1])
    bad = bad + 1
  end
end
local raw, bad = take()
return {raw, bad, redis.call('GET', KEYS[2]), redis.call('GET', KEYS[3])}
`;

const faultSchema = z.object({
  id: z.number().int(),
  endpoint: z.enum(ENDPOINT_NAMES),
  status: z.number().int().optional(),
  error: z.string().optional(),
  description: z.string().optional(),
  delayMs: z.number().int().min(0).optional(),
  remaining: z.union([z.number().int(), z.literal('always')]),
});

/**
 * A realm's faults in Redis: a list per endpoint (`faults:{endpoint}`, oldest first) and an id counter, so
 * taking one is a short script on one list.
 */
export class RedisFaults implements FaultStore {
  readonly #realm: RedisRealm;

  constructor(realm: RedisRealm) {
    this.#realm = realm;
  }

  #list(endpoint: EndpointName): string {
    return `${this.#realm.prefix}faults:${endpoint}`;
  }

  #parse(raw: string): PendingFault | undefined {
    return parseRecord(this.#realm, raw, faultSchema, 'fault');
  }

  add(fault: NewFault): Promise<PendingFault> {
    return this.#realm.run(async () => {
      const id = await this.#realm.redis.incr(`${this.#realm.prefix}fault-id`);
      const added = { id, ...fault };
      await this.#realm.redis.rpush(this.#list(fault.endpoint), JSON.stringify(added));
      return added;
    });
  }

  list(): Promise<PendingFault[]> {
    return this.#realm.run(async () => {
      const pipeline = this.#realm.redis.pipeline();
      for (const endpoint of ENDPOINT_NAMES) pipeline.lrange(this.#list(endpoint), 0, -1);
      const lists = (await pipeline.exec()) ?? [];
      const all = lists.flatMap(([, raws]) => (Array.isArray(raws) ? (raws as string[]) : []));
      return all
        .map((raw) => this.#parse(raw))
        .filter((f): f is PendingFault => f !== undefined)
        .sort((a, b) => a.id - b.id);
    });
  }

  clear(): Promise<number> {
    return this.#realm.run(async () => {
      const multi = this.#realm.redis.multi();
      for (const endpoint of ENDPOINT_NAMES) multi.llen(this.#list(endpoint));
      multi.del(...ENDPOINT_NAMES.map((endpoint) => this.#list(endpoint)));
      const results = (await multi.exec()) ?? [];
      return results
        .slice(0, ENDPOINT_NAMES.length)
        .reduce((n, [, length]) => n + (typeof length === 'number' ? length : 0), 0);
    });
  }

  take(endpoint: EndpointName): Promise<PendingFault | undefined> {
    return this.#realm
      .run(async () => {
        const { prefix, redis } = this.#realm;
        const [raw, bad, version, marker] = (await redis.eval(
          TAKE_FAULT_SCRIPT,
          3,
          this.#list(endpoint),
          versionKey(prefix),
          markerKey(prefix),
        )) as [string | null, number, string | null, string | null];
        if (bad > 0) this.#realm.badData('fault');
        return { fault: typeof raw === 'string' ? this.#parse(raw) : undefined, seen: { version, marker } };
      })
      .then(async ({ fault, seen }) => {
        // Outside `run`: a failure while catching up is the shared state's to report, not this fault check's.
        await this.#realm.observe(seen);
        return fault;
      });
  }
}
