// What the parts of a realm's Redis store share: the client and key prefix, how a stored record is read back
// (data that does not parse counts as absent, said once), and how a failure of Redis surfaces.
import type { Redis as RedisClient } from 'ioredis';
import type { z } from 'zod';
import type { SharedVersion } from './backend.js';
import { zodParser, type Present } from './record-store.js';

/** Runs one operation on Redis; a failure of Redis becomes the error the server answers it with (a 503). */
export type RunOnStore = <T>(op: () => Promise<T>) => Promise<T>;

/** A realm's place in Redis, as its state store, faults and journal use it. */
export interface RedisRealm {
  readonly redis: RedisClient;
  /** Every key of the realm starts with it: `mock-idp:{realm}:`. */
  readonly prefix: string;
  /** Data that does not parse counts as absent; said once per kind, never a 500. */
  readonly badData: (what: string) => void;
  readonly run: RunOnStore;
  /** Takes the shared-state version a request read with its fault check; the request waits for it. */
  readonly observe: (seen: SharedVersion) => Promise<void>;
}

/** The realm's shared-state version counter (bumped by every shared write). */
export const versionKey = (prefix: string): string => `${prefix}qa-version`;

/** The seed marker: written at start; gone, the store came back empty. */
export const markerKey = (prefix: string): string => `${prefix}seeded`;

/**
 * A stored record read back by `parse`, or undefined when there is none or it does not parse (another
 * program's key, an older format: said once per kind).
 */
export function readRecord<T>(
  realm: RedisRealm,
  raw: unknown,
  parse: (value: unknown) => T | undefined,
  what: string,
): T | undefined {
  if (typeof raw !== 'string') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    realm.badData(what);
    return undefined;
  }
  const parsed = parse(value);
  if (parsed === undefined) realm.badData(what);
  return parsed;
}

/** A stored record read with a zod schema (see {@link readRecord}); optional fields come back absent. */
export function parseRecord<T extends object>(
  realm: RedisRealm,
  raw: string | null,
  schema: z.ZodType<T>,
  what: string,
): Present<T> | undefined {
  return readRecord(realm, raw, zodParser(schema), what);
}
