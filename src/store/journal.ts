// The request journal's records and where they are kept: the last requests to a realm, as records that hold
// no secret, token, code, assertion or verifier. In this process a fixed-size ring; a shared store keeps a list.
import { Ring } from './ring.js';

export interface JournalRecord {
  /** When the request arrived, by the mock clock (ISO-8601). */
  time: string;
  method: string;
  /** The path without the query string (a query may carry an id_token_hint). */
  path: string;
  /** The endpoint's name (`token`, `auth`, `userinfo`, …), null for other paths. */
  endpoint: string | null;
  status: number;
  /** A fixture client id, never text taken from the request. */
  client: string | null;
  /** A known grant type. */
  grant: string | null;
  /** A fixture username. */
  user: string | null;
  /** The OAuth error code of the answer. */
  error: string | null;
  durationMs: number;
}

export interface JournalFilter {
  endpoint?: string;
  client?: string;
  /** An exact status (`400`) or a class (`4xx`). */
  status?: { exact: number } | { klass: number };
  /** Epoch ms: records at or after it. */
  sinceMs?: number;
  /** Only the newest this many of the records that match (1 to JOURNAL_CAPACITY). */
  limit?: number;
}

/** How many records a journal keeps (the last 10,000 requests to the realm). */
export const JOURNAL_CAPACITY = 10_000;

/**
 * Where a realm's journal lives: this process's ring (the memory store's), or a shared store's list that
 * every replica appends to, so the journal read at any replica is the whole provider's.
 */
export interface JournalStore {
  /** Appends a record; never fails the request it records (a shared store that is away drops it). */
  add(record: JournalRecord): void;
  /** The records that match (the newest `limit` of them), oldest first (newest last). */
  list(filter?: JournalFilter): JournalRecord[] | Promise<JournalRecord[]>;
  /** How many records the journal holds (at most JOURNAL_CAPACITY), whatever they are. */
  size(): number | Promise<number>;
  /** Empties the journal; returns how many records it held. */
  clear(): number | Promise<number>;
}

/** Whether a record passes a filter. */
export function matches(r: JournalRecord, f: JournalFilter): boolean {
  if (f.endpoint !== undefined && r.endpoint !== f.endpoint) return false;
  if (f.client !== undefined && r.client !== f.client) return false;
  if (f.status !== undefined) {
    if ('exact' in f.status ? r.status !== f.status.exact : Math.floor(r.status / 100) !== f.status.klass)
      return false;
  }
  return f.sinceMs === undefined || Date.parse(r.time) >= f.sinceMs;
}

/** The journal in this process: a ring of the last `capacity` records. */
export class RequestJournal implements JournalStore {
  readonly #ring: Ring<JournalRecord>;

  constructor(capacity = JOURNAL_CAPACITY) {
    this.#ring = new Ring(capacity);
  }

  get capacity(): number {
    return this.#ring.capacity;
  }

  add(record: JournalRecord): void {
    this.#ring.add(record);
  }

  /** The records that match (the newest `limit` of them), oldest first (newest last). */
  list(filter: JournalFilter = {}): JournalRecord[] {
    // Newest first, so that a limit stops the walk early; then turned around.
    const out: JournalRecord[] = [];
    const limit = filter.limit ?? this.capacity;
    if (limit <= 0) return out;
    for (const record of this.#ring.newestFirst()) {
      if (!matches(record, filter)) continue;
      out.push(record);
      if (out.length >= limit) break;
    }
    return out.reverse();
  }

  size(): number {
    return this.#ring.size;
  }

  /** Empties the journal; returns how many records it held. */
  clear(): number {
    return this.#ring.clear();
  }
}
