// A realm's request journal in Redis: every replica appends to it, so it is the whole provider's journal.
import { z } from 'zod';
import {
  JOURNAL_CAPACITY,
  matches,
  type JournalFilter,
  type JournalRecord,
  type JournalStore,
} from './journal.js';
import type { RedisRealm } from './redis-records.js';
import { RedisList } from './redis-list.js';

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
  readonly #list: RedisList<JournalRecord>;

  constructor(realm: RedisRealm) {
    this.#list = new RedisList(realm, 'journal', journalRecordSchema, 'journal record', JOURNAL_CAPACITY);
  }

  add(record: JournalRecord): void {
    this.#list.add(record);
  }

  async list(filter: JournalFilter = {}): Promise<JournalRecord[]> {
    // Only a limit: the newest records are the list's last ones, and no other need be read.
    const onlyLimit = filter.limit !== undefined && Object.keys(filter).length === 1;
    const records = await this.#list.range(onlyLimit ? -(filter.limit as number) : 0);
    const out = records.filter((record) => matches(record, filter));
    return filter.limit !== undefined ? out.slice(-filter.limit) : out;
  }

  size(): Promise<number> {
    return this.#list.length();
  }

  clear(): Promise<number> {
    return this.#list.clear();
  }
}
