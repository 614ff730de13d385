// The record store: what a realm's state is kept in, a few verbs over records named by (kind, id), each with an
// expiry on the mock clock. Two implementations: memory (memory-store.ts) and Redis (redis-store.ts). The rules
// of sessions, codes, revocations and the rest are written once on top of it (realm-state.ts).
import type { z } from 'zod';

/**
 * How long a record is kept. `expiresAt` is on the mock clock (epoch seconds): the record lapses when the mock
 * clock reaches it (a store may drop it from then on; Redis keeps it a day longer, its TTL only cleans up).
 * With `realUntilMs` (epoch ms on the real clock), `both`: kept until the real clock too has reached it;
 * `either`: dropped as soon as either clock has reached its bound (a store that cannot follow the mock clock
 * keeps it by the real one).
 */
export interface Lifetime {
  expiresAt: number;
  realUntilMs?: number;
  real?: 'both' | 'either';
}

/** A kind of record: its name (a Redis key part), how it reads back, and how long one is kept. */
export interface RecordKind<T> {
  readonly name: string;
  /** Named in the warning about stored data that does not parse (`a session in Redis does not parse`). */
  readonly what: string;
  /** A stored value read back (JSON-parsed), or undefined when it is not a record of this kind. */
  parse(value: unknown): T | undefined;
  lifetime(value: T): Lifetime;
  /** Records are listed in id order ({@link RecordStore.page}). */
  readonly ordered?: boolean;
  /**
   * Records are taken by {@link RecordStore.takeExpired} (whoever takes them acts on it), never dropped by
   * the store itself. Implies `ordered`.
   */
  readonly expiring?: boolean;
  /** The memory store keeps `hold(value)` instead of the value (a smaller shape), and gives back `release`. */
  hold?(value: T, id: string): unknown;
  release?(held: unknown, id: string): T;
  /**
   * The `expiresAt` of a held record (one whose lifetime has no real-clock bound), read from it: the memory
   * store then keeps the held record alone, without a wrapper holding its expiry.
   */
  heldExpiresAt?(held: unknown): number;
}

export interface RecordPage<T> {
  records: T[];
  /** Another record (live at `liveAt`) follows the last one of this page. */
  more: boolean;
}

export interface PageOptions {
  /** Ids after this one only (exclusive; any string, no record need have it). */
  after?: string;
  /** At most this many (Infinity: all). */
  limit: number;
  /** Leaves out the records whose lifetime's `expiresAt` is at or before this (mock epoch seconds). */
  liveAt?: number;
}

/** What {@link RecordStore.change} writes: the new value, null to remove it, undefined for nothing. */
export interface RecordChange<T, R> {
  next: T | null | undefined;
  result: R;
}

/**
 * Records by (kind, id), each with its lifetime. Every verb may reach a shared store: callers await it; a
 * shared store's failure rejects with the server's `unavailable` error. Single-use things are atomic:
 * `take`, `add`, `change` and `takeExpired` give a record to one caller of all the processes sharing it.
 */
export interface RecordStore {
  /** The record, or undefined (none, or stored data that does not parse). Lapsed records too, until dropped. */
  get<T>(kind: RecordKind<T>, id: string): Promise<T | undefined>;
  /** Stores a record; with `ifPresent`, only over one that is there (never brings a removed one back). */
  put<T>(kind: RecordKind<T>, id: string, value: T, options?: { ifPresent?: boolean }): Promise<void>;
  /** Stores a record unless one of that id is there (lapsed or not); false when it was. */
  add<T>(kind: RecordKind<T>, id: string, value: T): Promise<boolean>;
  /** Removes and returns a record, atomically. */
  take<T>(kind: RecordKind<T>, id: string): Promise<T | undefined>;
  /**
   * Reads, changes and writes a record atomically: `change` sees the stored value (undefined: none) and says
   * what to write; a shared store runs it again when another process wrote meanwhile. Returns its result.
   */
  change<T, R>(
    kind: RecordKind<T>,
    id: string,
    change: (current: T | undefined) => RecordChange<T, R>,
  ): Promise<R>;
  remove<T>(kind: RecordKind<T>, id: string): Promise<void>;
  /** Records of an ordered kind in id order (code-unit order, as Redis compares bytes). */
  page<T>(kind: RecordKind<T>, options: PageOptions): Promise<RecordPage<T>>;
  /** Removes and returns, atomically, the records of an expiring kind whose `expiresAt` is at or before `now`. */
  takeExpired<T>(kind: RecordKind<T>, now: number): Promise<T[]>;
  /** Removes every record of a kind. */
  clear<T>(kind: RecordKind<T>): Promise<void>;
}

/** A parsed record whose optional fields are absent rather than undefined (exactOptionalPropertyTypes). */
export type Present<T> = { [K in keyof T]: Exclude<T[K], undefined> };

/**
 * Reads a value with a zod schema; undefined when it does not fit. Optional fields come back absent, not
 * undefined (zod gives `field: undefined` for an absent optional field).
 */
export function zodParser<T extends object>(
  schema: z.ZodType<T>,
): (value: unknown) => Present<T> | undefined {
  return (value) => {
    const parsed = schema.safeParse(value);
    if (!parsed.success) return undefined;
    return Object.fromEntries(Object.entries(parsed.data).filter(([, v]) => v !== undefined)) as Present<T>;
  };
}
