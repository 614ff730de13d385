// The request journal (PRODUCT.md §14): the last requests to the realm in a fixed-size ring, as records
// that hold no secret, token, code, assertion or verifier. The request log prints the same records.
import { parseInstant } from '../clock.js';
import { invalidRequest } from '../oauth/errors.js';

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

const FILTERS = ['endpoint', 'client', 'status', 'since', 'limit'] as const;

/**
 * Reads `?endpoint=&client=&status=&since=&limit=`; a bad or unknown filter is `invalid_request` naming
 * it.
 */
export function parseJournalFilter(
  query: Record<string, unknown>,
  endpoints: readonly string[],
): JournalFilter {
  const filter: JournalFilter = {};
  for (const [name, raw] of Object.entries(query)) {
    if (!(FILTERS as readonly string[]).includes(name))
      throw invalidRequest(`Unknown filter "${name}" (filters: ${FILTERS.join(', ')})`);
    if (typeof raw !== 'string') throw invalidRequest(`Invalid filter ${name}: give it once`);
    if (name === 'endpoint') {
      if (!endpoints.includes(raw))
        throw invalidRequest(`Invalid filter endpoint "${raw}" (endpoints: ${endpoints.join(', ')})`);
      filter.endpoint = raw;
    } else if (name === 'client') {
      filter.client = raw;
    } else if (name === 'status') {
      const klass = /^([1-5])xx$/i.exec(raw);
      if (klass?.[1] !== undefined) filter.status = { klass: Number(klass[1]) };
      else if (/^[1-5]\d\d$/.test(raw)) filter.status = { exact: Number(raw) };
      else
        throw invalidRequest(`Invalid filter status "${raw}" (a status such as 400, or a class such as 4xx)`);
    } else if (name === 'limit') {
      if (!/^\d{1,5}$/.test(raw) || Number(raw) < 1 || Number(raw) > JOURNAL_CAPACITY)
        throw invalidRequest(
          `Invalid filter limit "${raw.slice(0, 40)}" (an integer from 1 to ${JOURNAL_CAPACITY})`,
        );
      filter.limit = Number(raw);
    } else {
      try {
        filter.sinceMs = parseInstant(raw);
      } catch {
        throw invalidRequest(`Invalid filter since "${raw}" (an ISO-8601 instant or epoch seconds)`);
      }
    }
  }
  return filter;
}

/** How many records a journal keeps (PRODUCT.md §14: the last 10,000 requests to the realm). */
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

/** A ring of the last `capacity` records: constant memory however long the server runs. */
export class RequestJournal implements JournalStore {
  readonly capacity: number;
  readonly #ring: (JournalRecord | undefined)[];
  #next = 0;
  #size = 0;

  constructor(capacity = JOURNAL_CAPACITY) {
    this.capacity = capacity;
    this.#ring = new Array<JournalRecord | undefined>(capacity);
  }

  add(record: JournalRecord): void {
    this.#ring[this.#next] = record;
    this.#next = (this.#next + 1) % this.capacity;
    if (this.#size < this.capacity) this.#size++;
  }

  /** The records that match (the newest `limit` of them), oldest first (newest last). */
  list(filter: JournalFilter = {}): JournalRecord[] {
    // Newest first, so that a limit stops the walk early; then turned around.
    const out: JournalRecord[] = [];
    const limit = filter.limit ?? this.capacity;
    for (let i = 1; i <= this.#size && out.length < limit; i++) {
      const record = this.#ring[(this.#next - i + this.capacity) % this.capacity];
      if (record !== undefined && matches(record, filter)) out.push(record);
    }
    return out.reverse();
  }

  size(): number {
    return this.#size;
  }

  /** Empties the journal; returns how many records it held. */
  clear(): number {
    const n = this.#size;
    this.#ring.fill(undefined);
    this.#next = 0;
    this.#size = 0;
    return n;
  }
}

/** The request log's line for a record: `METHOD PATH STATUS [client=] [grant=] [user=] [error=] N.Nms`. */
export function logLine(r: JournalRecord): string {
  const parts = [r.method, r.path, String(r.status)];
  if (r.client !== null) parts.push(`client=${r.client}`);
  if (r.grant !== null) parts.push(`grant=${r.grant}`);
  if (r.user !== null) parts.push(`user=${r.user}`);
  if (r.error !== null) parts.push(`error=${r.error}`);
  parts.push(`${r.durationMs.toFixed(1)}ms`);
  return parts.join(' ');
}
