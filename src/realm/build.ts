// Builds a realm's state from its fixtures model: its own clock, ids, keys and secret, its store, and (with a
// shared store) the QA state it shares with the other replicas.
import { Clock, parseInstant } from '../clock.js';
import type { Realm } from '../fixtures/realm.js';
import { Ids } from '../ids.js';
import { loadRealmKeys } from '../keys/realm-keys.js';
import { createLogger, type Logger } from '../log.js';
import type { StoreBackend } from '../store/backend.js';
import { Provider } from './provider.js';
import { shareQaState } from './shared-state.js';

/** The server options a realm is built from (startMockIdp's options of the same names). */
interface RealmOptions {
  clock?: string | number | Date;
  frozen?: boolean;
  seed?: string;
  keyFile?: string | string[];
  issuer?: string;
  /** Normalised already (serveMockIdp does it). */
  httpRelativePath?: string;
  /** Back-channel URLs from the request's origin when the issuer is fixed. */
  hostnameBackchannelDynamic?: boolean;
  logger?: Logger;
}

/** Builds the provider of one realm: its own clock, ids, keys and secret. */
export async function buildProvider(
  realm: Realm,
  options: RealmOptions,
  several: boolean,
  backend: StoreBackend | undefined,
): Promise<Provider> {
  const start = options.clock ?? realm.clock?.start;
  const clock = new Clock({
    ...(start !== undefined ? { startMs: parseInstant(start) } : {}),
    frozen: options.frozen ?? realm.clock?.frozen ?? false,
  });
  const seed = options.seed ?? realm.seed;
  // Two realms with one seed must still differ: each realm's ids derive from the seed and its name.
  const ids = new Ids(seed !== undefined && several ? `${seed}\u0000realm\u0000${realm.name}` : seed);
  const share =
    backend?.kind === 'redis'
      ? (name: string, make: () => Promise<string>, valid: (value: string) => boolean) =>
          backend.shared(realm.name, name, make, valid)
      : undefined;
  const pems = new Map<string, string>();
  const { keys, encryptionKey } = await loadRealmKeys(
    realm,
    several ? undefined : options.keyFile,
    share,
    pems,
    {
      ids,
      now: clock.now(),
    },
  );
  // The realm's HS256 secret (refresh tokens, browser cookies): from the seed, else shared by the replicas.
  const secret =
    share !== undefined && seed === undefined
      ? Buffer.from(
          await share(
            'realm-secret',
            async () => ids.secret('realm-hs256').toString('base64url'),
            (value) => /^[A-Za-z0-9_-]{43}$/.test(value),
          ),
          'base64url',
        )
      : undefined;
  const issuer = several ? undefined : options.issuer;
  const provider = new Provider({
    realm,
    clock,
    ids,
    keys,
    encryptionKey,
    ...(issuer !== undefined ? { fixedIssuer: issuer } : {}),
    ...(options.httpRelativePath !== undefined ? { relativePath: options.httpRelativePath } : {}),
    ...(options.hostnameBackchannelDynamic === true ? { backchannelDynamic: true } : {}),
    ...(backend !== undefined ? { store: backend.storeFor(realm.name, clock) } : {}),
    ...(secret !== undefined ? { secret } : {}),
  });
  for (const [kid, pem] of pems) provider.keyPems.set(kid, pem);
  if (backend?.sharedQa !== undefined) {
    provider.qaShare = shareQaState(
      provider,
      backend.sharedQa(realm.name),
      options.logger ?? createLogger('silent'),
    );
    await provider.qaShare.pull();
  }
  return provider;
}
