// A realm's request journal in Redis: every replica appends to it, so it is the whole provider's journal.
import { z } from 'zod';
import {
  JOURNAL_CAPACITY,
  matches,
  type JournalFilter,
  type JournalRecord,
  type JournalStore,
} from './journal.js';
import { parseRecord, type RedisRealm } from './redis-records.js';

const journalRecordSchema = z.object({
  time: z.string(),
  method: z.string(),
  path: z.string(),
  endpoint: z.string().nullable(),
  status: z.number().int(),
  client: z.string().nullable(),
  grant: z.string().nullable(),
  user: z.string().nullable(),
  error: z.string().nullable(),
  durationMs: z.number(),
});

/**
 * A realm's request journal in Redis: one list every replica appends to (RPUSH, then LTRIM to the last
 * JOURNAL_CAPACITY), so GET /mock/requests at any replica answers the whole provider's last requests.
 */
export class RedisJournal implements JournalStore {
  readonly #realm: RedisRealm;
  readonly #key: string;

  constructor(realm: RedisRealm) {
    this.#realm = realm;
    this.#key = `${realm.prefix}journal`;
  }

  add(record: JournalRecord): void {
    // Not awaited: the request is answered already; a Redis that is away loses the record.
    this.#realm.redis
      .pipeline()
      .rpush(this.#key, JSON.stringify(record))
      .ltrim(this.#key, -JOURNAL_CAPACITY, -1)
      .exec()
      .catch(() => undefined);
  }

  list(filter: JournalFilter = {}): Promise<JournalRecord[]> {
    return this.#realm.run(async () => {
      const out: JournalRecord[] = [];
      // Only a limit: the newest records are the list's last ones, and no other need be read.
      const onlyLimit = filter.limit !== undefined && Object.keys(filter).length === 1;
      const from = onlyLimit ? -(filter.limit as number) : 0;
      for (const raw of await this.#realm.redis.lrange(this.#key, from, -1)) {
        const record = parseRecord(this.#realm, raw, journalRecordSchema, 'journal record');
        if (record !== undefined && matches(record, filter)) out.push(record);
      }
      return filter.limit !== undefined ? out.slice(-filter.limit) : out;
    });
  }

  size(): Promise<number> {
    return this.#realm.run(() => this.#realm.redis.llen(this.#key));
  }

  clear(): Promise<number> {
    return this.#realm.run(async () => {
      const results = await this.#realm.redis.multi().llen(this.#key).del(this.#key).exec();
      const length = results?.[0]?.[1];
      return typeof length === 'number' ? length : 0;
    });
  }
}
