// The store backend contract: where realms keep their state, `memory` (in the process, the default) or a Redis
// URL. A backend is opened once per process (store/open.ts) and hands each realm its own store.
import type { Clock } from '../clock.js';
import type { StateStore } from './state-store.js';

/** A store that cannot be used: a malformed URL, an unknown scheme, a Redis that refuses or is not there. */
export class StoreError extends Error {
  readonly code = 'ERR_STORE_UNAVAILABLE' as const;
  override name = 'StoreError';
}

export interface StoreHealth {
  ok: boolean;
  /** Why not, when not ok. */
  reason?: string;
}

export interface StoreBackend {
  readonly kind: 'memory' | 'redis';
  /** A realm's store; a Redis store's keys start with `mock-idp:{realm}:`. */
  storeFor(realm: string, clock: Clock): StateStore;
  health(): StoreHealth;
  /**
   * A value every process of the realm shares (the ephemeral signing key, the realm secret): the first
   * process's `make()` wins; a stored value that fails `valid` counts as absent and is replaced.
   */
  shared(
    realm: string,
    name: string,
    make: () => Promise<string>,
    valid: (value: string) => boolean,
  ): Promise<string>;
  /** A shared store's QA state of a realm (clock, keys, replaced fixtures); undefined for memory. */
  sharedQa?: (realm: string) => SharedQaState;
  /** Forgets what this process shared for a realm it no longer serves (deleted). */
  forget?(realm: string): void;
  /** A shared store's list of the realms made and deleted at run time (the admin API); undefined for memory. */
  sharedRealms?: SharedRealms;
  close(): Promise<void>;
}

export type SharedKind = 'clock' | 'keys' | 'fixtures';

/** One read of a realm's shared state: its version counter and the store's seed marker (null: not there). */
export interface SharedVersion {
  version: string | null;
  /** Written at start and when re-seeded; missing, the store came back empty. */
  marker: string | null;
}

/** A published change: the version it made. */
export interface SharedWrite {
  version: number;
}

/** What a replica writes back into a store that came back empty. */
export interface Reseed {
  /** The marker that says the store is seeded again. */
  marker: string;
  /** The version of the state written back: a replica that applied a later one writes over it. */
  version: string;
  /** The shared QA state (clock, keys, fixtures) by kind. */
  qa: Record<string, string>;
  /** The registered clients: client id → registration record. */
  clients: Record<string, string>;
}

/** Where the shared QA state of one realm is kept (the Redis backend implements it). */
export interface SharedQaState {
  version(): Promise<SharedVersion>;
  read(): Promise<Record<string, string>>;
  /** Publishes a change; new fixtures also end every registered client (as they do in one process). */
  write(kind: SharedKind, value: string): Promise<SharedWrite>;
  /**
   * Publishes a change only if the version is still `expected` (`'0'`: none yet), as {@link write} does;
   * undefined when another change came first. With `keepClients` new fixtures keep the registered clients
   * (a change through the admin API).
   */
  writeIf(
    kind: SharedKind,
    value: string,
    expected: string,
    keepClients?: boolean,
  ): Promise<SharedWrite | undefined>;
  /** The dynamically registered clients: client id → registration record (JSON). */
  clients(): Promise<Record<string, string>>;
  /** Adds a registered client unless one of that id is there; false when it was. */
  addClient(id: string, record: string): Promise<boolean>;
  /** Removes a registered client; false when it was not there. */
  removeClient(id: string): Promise<boolean>;
  /**
   * Hands every version the request path reads anyway (with the fault check, in the same round trip) to
   * `listener`; the request waits for it, so it sees what was written before it.
   */
  onObserved(listener: (seen: SharedVersion) => Promise<void>): void;
  /** Runs `listener` each time the connection to the store is back. */
  onReconnect(listener: () => void): void;
  /** Writes the seed marker at start unless one is there. */
  mark(marker: string): Promise<void>;
  /**
   * Writes back, in one step, what a store that came back empty lost: the values shared at start (keys, realm
   * secret), then `seed`; false when another replica re-seeded it with the same or a later version.
   */
  reseed(seed: Reseed): Promise<boolean>;
  /** While set, /health answers DOWN with this reason. */
  setDown(reason: string | undefined): void;
}

/**
 * The realms made or deleted at run time, shared by the replicas: realm name → its record, the realm's
 * Keycloak representation as JSON text (`{"text":…}`) or that it was deleted (`{"deleted":true}`).
 */
export interface SharedRealms {
  /**
   * The list's version: its epoch and change counter (null: never written, or the store came back empty).
   * A list written again after the store was emptied has a new epoch, so its version differs from every
   * version before it.
   */
  version(): Promise<string | null>;
  /** Every record by realm name. */
  read(): Promise<Record<string, string>>;
  /**
   * Records a new realm unless one of that name is there (not deleted); false when it is. `epoch` (a new id)
   * becomes the list's epoch when it has none.
   */
  create(name: string, text: string, epoch: string): Promise<boolean>;
  /**
   * Records that a realm was deleted, and drops everything it kept: its shared changes (QA state,
   * registered clients), sessions, codes, and its values shared at start (keys, realm secret).
   */
  remove(name: string, epoch: string): Promise<void>;
}

const USAGE = 'expected memory or redis://[:password@]host:port[/db] (or rediss://)';

/** Checks a `--store` value without connecting; returns the parsed URL, or undefined for `memory`. */
export function parseStoreUrl(value: string): URL | undefined {
  if (value === 'memory') return undefined;
  if (!URL.canParse(value)) throw new StoreError(`--store "${value}" is not a URL: ${USAGE}`);
  const url = new URL(value);
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:')
    throw new StoreError(`--store: unknown scheme "${url.protocol.slice(0, -1)}": ${USAGE}`);
  if (url.hostname === '') throw new StoreError(`--store "${redact(url)}" names no host: ${USAGE}`);
  if (!/^\/?(\d{1,2})?$/.test(url.pathname))
    throw new StoreError(`--store "${redact(url)}": the path is a database number (/0 to /15): ${USAGE}`);
  return url;
}

/** The URL without its password, for messages. */
export function redact(url: URL): string {
  if (url.password === '') return url.href;
  const copy = new URL(url.href);
  copy.password = '***';
  return copy.href;
}
