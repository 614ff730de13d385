// The memory store: a realm's records in this process (the default), and the backend that hands them out.
import { Clock } from '../clock.js';
import type { StoreBackend, StoreHealth } from './backend.js';
import { MemoryFaults } from './faults.js';
import { memoryEvents } from './events.js';
import { RequestJournal } from './journal.js';
import { RealmState } from './realm-state.js';
import type {
  Lifetime,
  PageOptions,
  RecordChange,
  RecordKind,
  RecordPage,
  RecordStore,
} from './record-store.js';
import type { StateStore } from './state-store.js';

/** Every this many writes, records whose lifetime has passed are dropped (expiring kinds excepted). */
const SWEEP_EVERY = 512;
/** Ids of new records wait apart, a small array a page sorts, until there are this many: then one merge. */
const MERGE_EVERY = 1024;

/** A record as held: the kind's held shape and its expiry on the mock clock. */
class Entry {
  constructor(
    readonly held: unknown,
    readonly expiresAt: number,
  ) {}
}

/** A record also bounded by the real clock. */
class RealEntry extends Entry {
  constructor(
    held: unknown,
    expiresAt: number,
    readonly realUntilMs: number,
    readonly either: boolean,
  ) {
    super(held, expiresAt);
  }
}

function entry(held: unknown, life: Lifetime): Entry {
  if (life.realUntilMs === undefined) return new Entry(held, life.expiresAt);
  return new RealEntry(held, life.expiresAt, life.realUntilMs, life.real === 'either');
}

/** The index after the last entry of sorted `ids` that is <= `after` (code-unit order). */
function firstAfter(ids: readonly string[], after: string): number {
  let lo = 0;
  let hi = ids.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((ids[mid] as string) <= after) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** One kind's records. */
class Table {
  readonly kind: RecordKind<unknown>;
  /** Id → an Entry, or the held record alone when the kind reads its expiry from it (heldExpiresAt). */
  readonly records = new Map<string, unknown>();
  /** Ids in code-unit order for pages (ordered kinds): sorted, and the ids added since the last merge. */
  order: string[] = [];
  added: string[] = [];
  /** Records removed since `order` was built (their ids are skipped until the next rebuild). */
  removed = 0;
  /** No record lapses before this (epoch seconds; a lower bound): takeExpired skips the scan until then. */
  nextExpiry = Infinity;

  constructor(kind: RecordKind<unknown>) {
    this.kind = kind;
  }

  value(id: string, stored: unknown): unknown {
    const held = stored instanceof Entry ? stored.held : stored;
    return this.kind.release !== undefined ? this.kind.release(held, id) : held;
  }

  expiresAt(stored: unknown): number {
    if (stored instanceof Entry) return stored.expiresAt;
    return (this.kind.heldExpiresAt as (held: unknown) => number)(stored);
  }

  set(id: string, value: unknown): void {
    const kind = this.kind;
    const fresh = kind.ordered === true && !this.records.has(id);
    const life = kind.lifetime(value);
    const held = kind.hold !== undefined ? kind.hold(value, id) : value;
    const bare = life.realUntilMs === undefined && kind.heldExpiresAt !== undefined;
    this.records.set(id, bare ? held : entry(held, life));
    this.nextExpiry = Math.min(this.nextExpiry, life.expiresAt);
    if (fresh) {
      this.added.push(id);
      if (this.added.length >= MERGE_EVERY) this.merge();
    }
  }

  delete(id: string): void {
    if (this.records.delete(id)) this.removed++;
  }

  /**
   * Merges the ids added since into the sorted ones, dropping the ids of records removed. In place, from the
   * back: a new array per merge (every MERGE_EVERY records) was garbage the size of every id held.
   */
  merge(): void {
    const order = this.order;
    const added = this.added.sort();
    // The ids of removed records out first, then the merge from the back into the room made at the end.
    let kept = 0;
    for (let i = 0; i < order.length; i++) {
      const id = order[i] as string;
      if (this.records.has(id) && (kept === 0 || order[kept - 1] !== id)) order[kept++] = id;
    }
    let fresh = 0;
    for (let j = 0; j < added.length; j++) {
      const id = added[j] as string;
      if (this.records.has(id) && (fresh === 0 || added[fresh - 1] !== id)) added[fresh++] = id;
    }
    order.length = kept + fresh;
    let i = kept - 1;
    let j = fresh - 1;
    let repeated = false;
    for (let k = kept + fresh - 1; j >= 0; k--) {
      const a = order[i];
      const b = added[j] as string;
      if (a === b) repeated = true;
      order[k] = i >= 0 && (a as string) > b ? (order[i--] as string) : (added[j--] as string);
    }
    // A record removed and whose id came back before this merge is in both: once is enough.
    if (repeated) {
      let n = 0;
      for (const id of order) if (n === 0 || order[n - 1] !== id) order[n++] = id;
      order.length = n;
    }
    this.added = [];
    this.removed = 0;
  }

  clear(): void {
    this.records.clear();
    this.order = [];
    this.added = [];
    this.removed = 0;
    this.nextExpiry = Infinity;
  }
}

/** The records in this process's memory. Every verb is synchronous inside, so each is atomic. */
class MemoryRecords implements RecordStore {
  readonly #clock: Clock;
  readonly #tables = new Map<string, Table>();
  #writes = 0;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  #table<T>(kind: RecordKind<T>): Table {
    let table = this.#tables.get(kind.name);
    if (table === undefined) {
      table = new Table(kind as RecordKind<unknown>);
      this.#tables.set(kind.name, table);
    }
    return table;
  }

  async get<T>(kind: RecordKind<T>, id: string): Promise<T | undefined> {
    const table = this.#table(kind);
    const e = table.records.get(id);
    return e !== undefined ? (table.value(id, e) as T) : undefined;
  }

  async put<T>(
    kind: RecordKind<T>,
    id: string,
    value: T,
    options: { ifPresent?: boolean } = {},
  ): Promise<void> {
    const table = this.#table(kind);
    if (options.ifPresent === true) {
      if (table.records.has(id)) table.set(id, value);
      return;
    }
    table.set(id, value);
    this.#maybeSweep();
  }

  async add<T>(kind: RecordKind<T>, id: string, value: T): Promise<boolean> {
    const table = this.#table(kind);
    if (table.records.has(id)) return false;
    table.set(id, value);
    this.#maybeSweep();
    return true;
  }

  async take<T>(kind: RecordKind<T>, id: string): Promise<T | undefined> {
    const table = this.#table(kind);
    const e = table.records.get(id);
    if (e === undefined) return undefined;
    table.delete(id);
    return table.value(id, e) as T;
  }

  async change<T, R>(
    kind: RecordKind<T>,
    id: string,
    change: (current: T | undefined) => RecordChange<T, R>,
  ): Promise<R> {
    const table = this.#table(kind);
    const e = table.records.get(id);
    const { next, result } = change(e !== undefined ? (table.value(id, e) as T) : undefined);
    if (next === null) table.delete(id);
    else if (next !== undefined) table.set(id, next);
    return result;
  }

  async remove<T>(kind: RecordKind<T>, id: string): Promise<void> {
    this.#table(kind).delete(id);
  }

  async page<T>(kind: RecordKind<T>, options: PageOptions): Promise<RecordPage<T>> {
    const table = this.#table(kind);
    const { after, limit, liveAt = -Infinity } = options;
    // Many removed since the last merge: drop their ids first (one pass), so a page does not skip past them.
    if (table.removed * 4 > table.order.length) table.merge();
    const order = table.order;
    const added = table.added.sort();
    const records: T[] = [];
    let i = after === undefined ? 0 : firstAfter(order, after);
    let j = after === undefined ? 0 : firstAfter(added, after);
    let last: string | undefined;
    while (i < order.length || j < added.length) {
      const a = order[i];
      const b = added[j];
      const id = (b === undefined || (a !== undefined && a <= b) ? order[i++] : added[j++]) as string;
      if (id === last) continue;
      last = id;
      const e = table.records.get(id);
      if (e === undefined || table.expiresAt(e) <= liveAt) continue;
      if (records.length === limit) return { records, more: true };
      records.push(table.value(id, e) as T);
    }
    return { records, more: false };
  }

  async takeExpired<T>(kind: RecordKind<T>, now: number): Promise<T[]> {
    const table = this.#table(kind);
    if (now < table.nextExpiry) return [];
    const out: T[] = [];
    let next = Infinity;
    for (const [id, e] of table.records) {
      const expiresAt = table.expiresAt(e);
      if (expiresAt > now) {
        next = Math.min(next, expiresAt);
        continue;
      }
      table.delete(id);
      out.push(table.value(id, e) as T);
    }
    table.nextExpiry = next;
    return out;
  }

  async clear<T>(kind: RecordKind<T>): Promise<void> {
    this.#table(kind).clear();
  }

  /** Drops the records whose lifetime has passed; the expiring kinds are left to takeExpired. */
  #maybeSweep(): void {
    if (++this.#writes % SWEEP_EVERY !== 0) return;
    const now = this.#clock.nowSeconds();
    const realMs = Clock.realMs();
    for (const table of this.#tables.values()) {
      if (table.kind.expiring === true) continue;
      for (const [id, e] of table.records) {
        const mock = table.expiresAt(e) <= now;
        const gone =
          e instanceof RealEntry
            ? e.either
              ? mock || e.realUntilMs <= realMs
              : mock && e.realUntilMs <= realMs
            : mock;
        if (gone) table.delete(id);
      }
    }
  }
}

/** A realm's state in this process's memory (the default store). */
export class MemoryStore extends RealmState {
  constructor(clock: Clock) {
    super(
      {
        records: new MemoryRecords(clock),
        faults: new MemoryFaults(),
        journal: new RequestJournal(),
        events: memoryEvents(),
      },
      clock,
    );
  }
}

/** The memory backend: each realm its own MemoryStore; nothing is shared, nothing to connect. */
export class MemoryBackend implements StoreBackend {
  readonly kind = 'memory';
  storeFor(_realm: string, clock: Clock): StateStore {
    return new MemoryStore(clock);
  }
  health(): StoreHealth {
    return { ok: true };
  }
  shared(_realm: string, _name: string, make: () => Promise<string>): Promise<string> {
    return make();
  }
  async close(): Promise<void> {}
}
