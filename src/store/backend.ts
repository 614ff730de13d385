// Where realms keep their state (PRODUCT.md §12): `memory` (in the process, the default) or a Redis URL. The
// backend is opened once per process and hands each realm its own store.
import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import { MemoryStore, type StateStore } from '../oauth/store.js';
import type { SharedQaState } from './qa-sync.js';

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
  close(): Promise<void>;
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

class MemoryBackend implements StoreBackend {
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

/** Opens the store a `--store` value names: connects (and checks) a Redis store before anything listens. */
export async function openStore(value: string | undefined, log: Logger): Promise<StoreBackend> {
  const url = parseStoreUrl(value ?? 'memory');
  if (url === undefined) return new MemoryBackend();
  // Loaded only for a Redis store: the memory default does not pay for the client at start.
  const { openRedisBackend } = await import('./redis-store.js');
  return openRedisBackend(url, log);
}
