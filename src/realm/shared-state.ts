// QA state a realm shares with its replicas through a shared store: the clock, rotated and removed keys,
// fixtures replaced through PUT /mock/fixtures, and dynamically registered clients. A change is published to
// the store (a hash and a version counter). Every request's fault check reads the version in the same round
// trip, and a request that finds it newer than the copy here waits for the pull: a write acknowledged at one
// replica is seen by the next request at any. An idle process also polls a few times a second. A store that
// comes back empty (its seed marker gone) is re-seeded from what the replicas hold.
import { FixturesError } from '../fixtures/errors.js';
import { replaceFixtures } from '../fixtures/replace.js';
import { toSigningKey, type SigningKey } from '../keys/key-store.js';
import { parsePrivateKey } from '../keys/load-key.js';
import type { Logger } from '../log.js';
import { addClient, clientOfRecord, deleteClient, registrationRecord } from '../oauth/registration.js';
import { uniqueId } from '../ids.js';
import type { SharedKind, SharedQaState, SharedVersion } from '../store/backend.js';
import type { Provider, QaShare } from './provider.js';

const POLL_MS = 250;

interface KeysState {
  /** kid → PKCS#8 PEM of the keys made at run time (the ephemeral and rotated ones). */
  pems: Record<string, string>;
  /** The published kids, the signing one first. */
  order: string[];
}

export function shareQaState(p: Provider, state: SharedQaState, log: Logger): QaShare {
  const applied = new Map<SharedKind, string>();
  /** The write of each kind in flight: publishing the same value again joins it. */
  const writing = new Map<SharedKind, { value: string; done: Promise<void> }>();
  let seen: string | null | undefined;
  /** The store's seed marker as last read; another one means it was re-seeded: everything is read again. */
  let marker: string | null | undefined;
  let pulling: Promise<void> | undefined;
  let reseeding: Promise<void> | undefined;
  let closed = false;

  const current = (kind: SharedKind): string | undefined => {
    if (kind === 'clock') return JSON.stringify(p.clock.snapshot());
    if (kind === 'keys') {
      const keys: KeysState = { pems: Object.fromEntries(p.keyPems), order: p.keys.all.map((k) => k.kid) };
      return JSON.stringify(keys);
    }
    // The generation travels with the text: browser session cookies name it, so every replica counts alike.
    return p.fixturesText === undefined
      ? undefined
      : JSON.stringify({ generation: p.generation, text: p.fixturesText });
  };

  const applyKeys = async (value: string): Promise<void> => {
    const keys = JSON.parse(value) as KeysState;
    const next: SigningKey[] = [];
    for (const kid of keys.order) {
      let key = p.keys.find(kid);
      const pem = keys.pems[kid];
      if (key === undefined && pem !== undefined) {
        key = await toSigningKey(parsePrivateKey(pem, 'a shared signing key'));
        p.keyPems.set(kid, pem);
      }
      if (key !== undefined) next.push(key);
    }
    // A realm never goes without a signing key: a list that leaves none does not apply.
    if (next.length === 0) throw new Error('no signing key');
    p.keys.replaceAll(next);
  };

  const apply = async (kind: SharedKind, value: string): Promise<void> => {
    if (kind === 'clock') p.clock.restore(JSON.parse(value) as { frozenAtMs?: number; offsetMs: number });
    else if (kind === 'keys') await applyKeys(value);
    else {
      const shared = JSON.parse(value) as { generation?: unknown; text?: unknown };
      if (typeof shared.text !== 'string' || !Number.isSafeInteger(shared.generation))
        throw new SyntaxError('not a shared fixtures record');
      // The registered clients stay until applyClients makes them the store's (a PUT /mock/fixtures ended
      // them there; a change through the admin API kept them).
      const registeredBefore = [...p.realm.clients.values()].filter((c) => c.registration !== undefined);
      await replaceFixtures(p, shared.text, 'shared fixtures', p.realm.baseDir);
      for (const client of registeredBefore) if (!p.realm.clients.has(client.id)) addClient(p.realm, client);
      p.fixturesText = shared.text;
      p.adoptGeneration(shared.generation as number);
    }
  };

  const warned = new Set<string>();
  /** Another program's value, an older format: ignored, said once. */
  const ignored = (what: string): void => {
    if (warned.has(what)) return;
    warned.add(what);
    log.warn(`mock-idp: the shared ${what} of realm "${p.realm.name}" in the store does not apply: ignored`);
  };

  /** Makes the realm's registered clients those of the store (after any fixtures change was applied). */
  const applyClients = (records: Record<string, string>): void => {
    const realm = p.realm;
    for (const client of [...realm.clients.values()])
      if (client.registration !== undefined && records[client.id] === undefined) deleteClient(realm, client);
    for (const [id, record] of Object.entries(records)) {
      if (realm.clients.has(id)) continue;
      const client = clientOfRecord(realm.name, record);
      if (client === undefined || client.id !== id) ignored('registered client');
      else addClient(realm, client);
    }
  };

  /** The registered clients as the store keeps them. */
  const registered = (): Record<string, string> => {
    const records: Record<string, string> = {};
    for (const client of p.realm.clients.values())
      if (client.registration !== undefined) records[client.id] = JSON.stringify(registrationRecord(client));
    return records;
  };

  const emptied = (): string =>
    `the store came back empty; re-seeding realm "${p.realm.name}" from the replicas`;

  /**
   * The store came back empty: writes back this process's state unless another replica did first (then the
   * pull that follows adopts theirs). Sessions, codes, revocations and faults were only in the store: gone.
   */
  const reseedOnce = async (): Promise<void> => {
    state.setDown(emptied());
    log.warn(`mock-idp: ${emptied()}`);
    const qa: Record<string, string> = {};
    for (const kind of ['clock', 'keys', 'fixtures'] as const) {
      const value = current(kind);
      if (value !== undefined) qa[kind] = value;
    }
    const id = uniqueId();
    const version = seen ?? '0';
    // Left DOWN when the store fails now: the next poll or request tries again.
    if (await state.reseed({ marker: id, version, qa, clients: registered() })) {
      for (const [kind, value] of Object.entries(qa)) applied.set(kind as SharedKind, value);
      marker = id;
      seen = version;
      log.warn(`mock-idp: realm "${p.realm.name}" re-seeded the store from this replica`);
    }
    state.setDown(undefined);
  };

  const reseed = (): Promise<void> => {
    reseeding ??= reseedOnce().finally(() => (reseeding = undefined));
    return reseeding;
  };

  const pullOnce = async (attempt = 1): Promise<void> => {
    let now = await state.version();
    if (now.marker === null && marker === undefined) {
      // No marker at this process's first read: a store never seeded (the first replica).
      await state.mark(uniqueId());
      now = await state.version();
    } else if (now.marker !== marker && (now.marker === null || marker !== undefined)) {
      // Emptied; or emptied and re-seeded by another replica since this one last looked. Either way this
      // replica writes back what it holds, and the store decides: all of it when the store is empty or was
      // re-seeded by a replica behind it; else only the shared values missing there (a key made on first use
      // at this replica), so every replica goes on publishing the same keys.
      await reseed();
      now = await state.version();
    }
    // Seeded (by this replica or another): no longer DOWN for it, whoever said so (a probe, a failed try).
    if (now.marker !== null) state.setDown(undefined);
    if (now.marker !== marker) {
      marker = now.marker;
      seen = undefined;
    }
    const version = now.version;
    if (version === seen) return;
    // Deleting the realm at another replica moves its version: the realm list first (this realm may be
    // gone, or made again). Not at the first pull: the realm is being made then.
    if (seen !== undefined && p.syncRealms !== undefined) {
      await p.syncRealms();
      if (closed) return;
    }
    const [all, clients] = await Promise.all([state.read(), state.clients()]);
    // The version is read apart from the values: when it (or the marker) moved meanwhile, what was read may
    // be of another moment (a store emptied between the two reads reads as the version before with no
    // values), and taken as that version it would be held as current. Read again instead.
    const after = await state.version();
    if (after.version !== now.version || after.marker !== now.marker) {
      if (attempt < 5) return pullOnce(attempt + 1);
      return; // still moving: the next request or poll reads again (this version is not taken as seen)
    }
    for (const kind of ['fixtures', 'keys', 'clock'] as const) {
      const value = all[kind];
      if (value === undefined || value === applied.get(kind)) continue;
      try {
        await apply(kind, value);
      } catch (err) {
        if (!(err instanceof SyntaxError || err instanceof FixturesError || err instanceof Error)) throw err;
        ignored(kind);
      }
      applied.set(kind, value);
    }
    applyClients(clients);
    seen = version;
  };

  const pull = (): Promise<void> => {
    pulling ??= pullOnce().finally(() => (pulling = undefined));
    return pulling;
  };

  const publish = (kind: SharedKind): Promise<void> => {
    const value = current(kind);
    if (value === undefined || closed) return Promise.resolve();
    const pending = writing.get(kind);
    if (pending?.value === value) return pending.done;
    applied.set(kind, value);
    const done = state
      .write(kind, value)
      .then(({ version }) => {
        // The next version after the one applied: this process has it all (no pull needed to catch up).
        if (seen !== undefined && Number(seen ?? 0) + 1 === version) seen = String(version);
      })
      .finally(() => {
        if (writing.get(kind)?.done === done) writing.delete(kind);
      });
    writing.set(kind, { value, done });
    return done;
  };

  const publishIfCurrent = async (
    kind: SharedKind,
    options: { keepClients?: boolean } = {},
  ): Promise<boolean> => {
    const value = current(kind);
    if (value === undefined || closed) return true;
    await writing.get(kind)?.done.catch(() => undefined);
    const before = seen;
    const expected = before ?? '0';
    // Set first, so a pull meanwhile does not apply this value again; a refused write leaves the store's
    // value different from it, so the next pull applies that one.
    applied.set(kind, value);
    const made = await state.writeIf(kind, value, expected, options.keepClients === true);
    if (made === undefined) return false;
    // The next version after the one applied, and no pull meanwhile: this process has it all.
    if (seen === before && Number(expected) + 1 === made.version) seen = String(made.version);
    return true;
  };

  // A clock moved in-process (idp.clock) is published as one moved through /mock/clock is (that route's own
  // publish then joins this write).
  p.clock.onChange(() => {
    publish('clock').catch(() =>
      log.warn(
        `mock-idp: the clock change of realm "${p.realm.name}" could not be shared: the store is away`,
      ),
    );
  });

  /** Pulls after any pull under way: what was published before the call is taken over. */
  const catchUp = async (): Promise<void> => {
    await pulling?.catch(() => undefined);
    await pull();
  };

  // The request path: the version its fault check read with the same round trip. Unchanged (nearly always),
  // nothing more; newer, or the marker gone or changed, the request waits until this process has caught up.
  state.onObserved(async (now: SharedVersion) => {
    if (closed || (now.version === seen && now.marker === marker && marker !== null)) return;
    await catchUp();
  });
  // A reconnected store may be an empty one (a restart without persistence).
  // Until that is checked, /health says so: a replica started meanwhile would otherwise take the store for
  // a new one and seed it with keys of its own.
  state.onReconnect(() => {
    if (closed) return;
    state.setDown(`the store is back; checking whether it came back empty (realm "${p.realm.name}")`);
    catchUp().catch(() => undefined);
  });

  // For an idle process (no requests reading the version), and to notice an emptied store without them.
  const timer = setInterval(() => {
    pull().catch(() => undefined); // the store is away: the next tick tries again
  }, POLL_MS);
  timer.unref();

  return {
    publish,
    publishIfCurrent,
    pull,
    catchUp,
    probe: async () => {
      try {
        const now = await state.version();
        if (now.marker !== null || marker === undefined) return;
        // DOWN from now on (not from when the pull gets there) until re-seeded.
        state.setDown(emptied());
        pull().catch(() => undefined);
      } catch {
        // The store is away: its health says so.
      }
    },
    addClient: (client) => state.addClient(client.id, JSON.stringify(registrationRecord(client))),
    removeClient: (id) => state.removeClient(id),
    close: () => {
      closed = true;
      clearInterval(timer);
    },
  };
}
