// Opens the store backend a `--store` value names: the memory one, or a Redis one connected and checked.
import type { Logger } from '../log.js';
import { parseStoreUrl, type StoreBackend } from './backend.js';
import { MemoryBackend } from './memory-store.js';

/**
 * Opens the store a `--store` value names: connects (and checks) a Redis store before anything listens.
 * A request that meets a failure of the store fails with `unavailable()`.
 */
export async function openStore(
  value: string | undefined,
  log: Logger,
  unavailable: () => Error,
): Promise<StoreBackend> {
  const url = parseStoreUrl(value ?? 'memory');
  if (url === undefined) return new MemoryBackend();
  // Loaded only for a Redis store: the memory default does not pay for the client at start.
  const { openRedisBackend } = await import('./redis-store.js');
  return openRedisBackend(url, log, unavailable);
}
