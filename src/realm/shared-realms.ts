// The realms made and deleted at run time (the admin API), shared by the replicas of a shared store: a list in
// the store (realm name → its representation, or that it was deleted) with a version counter. Admin requests
// and requests for a realm not started with the process read the counter first and, when it moved, apply the
// list: a realm made at one replica is served by the next request at any, and a deleted one is gone there.
// A request for a realm started with the process reads the list when the realm's own shared state moved (a
// deletion moves it), before it is answered. An idle process also polls a few times a second. A store that
// comes back empty gets the list back from the replicas: each writes back the realms it serves that the list
// no longer names, before it answers the request that found them missing.
import type { KeycloakRealmRepresentation } from '../fixtures/keycloak/schema.js';
import { uniqueId } from '../ids.js';
import type { Logger } from '../log.js';
import type { SharedRealms } from '../store/backend.js';

const POLL_MS = 250;

/** What the replica serves, as the list changes it. */
interface RealmTable {
  /** Whether a realm of that name is served here. */
  has(name: string): boolean;
  /** Serves a realm made at another replica. */
  add(rep: KeycloakRealmRepresentation): Promise<void>;
  /** Stops serving a realm deleted at another replica. */
  drop(name: string): void;
}

interface RealmSync {
  /** Applies what the other replicas made and deleted since the last time. */
  sync(): Promise<void>;
  /** Makes a realm here and records it for the others; false when the name is taken. */
  create(rep: KeycloakRealmRepresentation): Promise<boolean>;
  /** Deletes a realm here and records that for the others. */
  remove(name: string): Promise<void>;
  close(): void;
}

function parseRecord(record: string): { text?: string; deleted?: boolean } | undefined {
  try {
    const value = JSON.parse(record) as unknown;
    if (typeof value !== 'object' || value === null) return undefined;
    const { text, deleted } = value as { text?: unknown; deleted?: unknown };
    if (deleted === true) return { deleted: true };
    return typeof text === 'string' ? { text } : undefined;
  } catch {
    return undefined;
  }
}

export function shareRealms(shared: SharedRealms, table: RealmTable, log: Logger): RealmSync {
  /** Realm name → the representation text served here for it ('' once deleted). */
  const applied = new Map<string, string>();
  let seen: string | null | undefined;
  let pulling: Promise<void> | undefined;
  let closed = false;
  const warned = new Set<string>();
  /** The realms being made here now: their record is this process's own (a poll meanwhile leaves them). */
  const making = new Set<string>();

  const syncOnce = async (wroteBack = false): Promise<void> => {
    const version = await shared.version();
    if (version !== null && version === seen) return;
    const records = version === null ? {} : await shared.read();
    // A realm served here that the list does not name: the store came back empty (a deleted realm stays
    // named, as deleted). It is written back before this request is answered, also when another replica
    // wrote back its own realms first.
    const missing = [...applied].filter(
      ([name, text]) => text !== '' && records[name] === undefined && !making.has(name) && table.has(name),
    );
    if (missing.length > 0 && !wroteBack) {
      for (const [name, text] of missing) await shared.create(name, text, uniqueId());
      log.warn(
        `mock-idp: the store came back empty; wrote back the realms made at run time: ${missing.map(([name]) => `"${name}"`).join(', ')}`,
      );
      // Read again (another replica may have written back a different one of the name meanwhile).
      seen = undefined;
      return syncOnce(true);
    }
    for (const [name, record] of Object.entries(records)) {
      const parsed = parseRecord(record);
      if (parsed === undefined) {
        if (!warned.has(name))
          log.warn(`mock-idp: the shared record of realm "${name}" does not parse: ignored`);
        warned.add(name);
        continue;
      }
      const text = parsed.text ?? '';
      if (applied.get(name) === text || making.has(name)) continue;
      // A realm deleted, or made again (also one started with the process: the list's is served instead).
      if (table.has(name)) table.drop(name);
      if (text !== '' && !table.has(name)) {
        try {
          await table.add(JSON.parse(text) as KeycloakRealmRepresentation);
        } catch (err) {
          log.warn(
            `mock-idp: realm "${name}" made at another replica cannot be served here: ${err instanceof Error ? err.message : String(err)}`,
          );
        }
      }
      applied.set(name, text);
    }
    seen = version;
  };

  const sync = (): Promise<void> => {
    pulling ??= syncOnce().finally(() => (pulling = undefined));
    return pulling;
  };

  const timer = setInterval(() => {
    if (!closed) sync().catch(() => undefined); // the store is away: the next tick tries again
  }, POLL_MS);
  timer.unref();

  return {
    sync: async () => {
      await pulling?.catch(() => undefined);
      await sync();
    },
    create: async (rep) => {
      await pulling?.catch(() => undefined);
      await sync();
      if (table.has(rep.realm)) return false;
      const text = JSON.stringify(rep);
      making.add(rep.realm);
      try {
        await table.add(rep);
        const recorded = await shared.create(rep.realm, text, uniqueId()).catch((err: unknown) => {
          table.drop(rep.realm);
          throw err;
        });
        if (!recorded) {
          // Another replica made it meanwhile: theirs is served (the next sync adds it).
          table.drop(rep.realm);
          return false;
        }
        applied.set(rep.realm, text);
        return true;
      } finally {
        making.delete(rep.realm);
      }
    },
    remove: async (name) => {
      await shared.remove(name, uniqueId());
      table.drop(name);
      applied.set(name, '');
    },
    close: () => {
      closed = true;
      clearInterval(timer);
    },
  };
}
