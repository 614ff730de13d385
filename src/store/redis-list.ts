// A bounded list in Redis that every replica appends to: the request journal's and the realm's events.
import type { z } from 'zod';
import type { Present } from './record-store.js';
import { parseRecord, type RedisRealm } from './redis-records.js';

/** The last `capacity` records of a kind, at `{prefix}{name}` (RPUSH, then LTRIM), oldest first. */
export class RedisList<T extends object> {
  readonly #realm: RedisRealm;
  readonly #key: string;
  readonly #schema: z.ZodType<T>;
  readonly #what: string;
  readonly #capacity: number;

  constructor(realm: RedisRealm, name: string, schema: z.ZodType<T>, what: string, capacity: number) {
    this.#realm = realm;
    this.#key = `${realm.prefix}${name}`;
    this.#schema = schema;
    this.#what = what;
    this.#capacity = capacity;
  }

  add(record: Present<T>): void {
    // Not awaited: the request is answered already; a Redis that is away loses the record.
    this.#realm.redis
      .pipeline()
      .rpush(this.#key, JSON.stringify(record))
      .ltrim(this.#key, -this.#capacity, -1)
      .exec()
      .catch(() => undefined);
  }

  /** The records from `from` (0: all; -n: the newest n), oldest first; a record that does not parse is left out. */
  range(from = 0): Promise<Present<T>[]> {
    return this.#realm.run(async () => {
      const out: Present<T>[] = [];
      for (const raw of await this.#realm.redis.lrange(this.#key, from, -1)) {
        const record = parseRecord(this.#realm, raw, this.#schema, this.#what);
        if (record !== undefined) out.push(record);
      }
      return out;
    });
  }

  length(): Promise<number> {
    return this.#realm.run(() => this.#realm.redis.llen(this.#key));
  }

  /** Empties the list; returns how many records it held. */
  clear(): Promise<number> {
    return this.#realm.run(async () => {
      const results = await this.#realm.redis.multi().llen(this.#key).del(this.#key).exec();
      const length = results?.[0]?.[1];
      return typeof length === 'number' ? length : 0;
    });
  }
}
