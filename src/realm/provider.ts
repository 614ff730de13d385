// A realm's state in one place: fixtures model, clock, ids, keys, realm secret, store, request journal.
// Request handling sees it through the narrow RealmContext; verifying tokens lives in tokens/verify.ts,
// replacing fixtures in fixtures/replace.ts, sharing QA state with replicas in realm/shared-state.ts.
import type { Clock } from '../clock.js';
import { logWarnings } from '../fixtures/errors.js';
import type { Client, Realm } from '../fixtures/realm.js';
import type { Ids } from '../ids.js';
import { startEncryptionKey, type EncryptionKey } from '../keys/encryption-key.js';
import { createLogger, type Logger } from '../log.js';
import type { KeyStore } from '../keys/key-store.js';
import { addClient, deleteClient } from '../oauth/registration.js';
import { RequestJournal } from '../store/journal.js';
import { MemoryStore } from '../store/memory-store.js';
import type { Session, StateStore } from '../store/state-store.js';
import type { SharedKind } from '../store/backend.js';
import type { RealmContext, SessionInit } from './context.js';
import { realmBasePath } from './paths.js';
import { pairwiseSalt, SubjectIds } from '../tokens/pairwise.js';
import { realmSecret, type RealmSecret } from '../tokens/sign.js';

/** The realm base URL for a request origin (`http://host:port`): a fixed issuer, the fixtures' one, or derived. */
export function realmIssuer(
  fixedIssuer: string | undefined,
  realm: Realm,
  origin: string,
  relativePath = '',
): string {
  return (
    fixedIssuer?.replace(/\/+$/, '') ?? realm.issuer ?? `${origin}${realmBasePath(realm.name, relativePath)}`
  );
}

/** Shares a realm's QA changes with the other replicas of a shared store (realm/shared-state.ts). */
export interface QaShare {
  /** Publishes this process's current `kind` to the other replicas. */
  publish(kind: SharedKind): Promise<void>;
  /**
   * Publishes `kind` only if no other change was published since this process last caught up; false when
   * one was (catch up, then make the change again). New fixtures end the registered clients unless
   * `keepClients` (a change through the admin API).
   */
  publishIfCurrent(kind: SharedKind, options?: { keepClients?: boolean }): Promise<boolean>;
  /** Takes over what the other replicas published (also run by the poller). */
  pull(): Promise<void>;
  /** Like pull, but after any pull already under way: what was published before this call is taken over. */
  catchUp(): Promise<void>;
  /** Looks whether the store came back empty (then re-seeding starts, and /health says so); never throws. */
  probe(): Promise<void>;
  /** Publishes a registered client; false when the store holds one of that id already. */
  addClient(client: Client): Promise<boolean>;
  /** Withdraws a registered client; false when it was gone already. */
  removeClient(id: string): Promise<boolean>;
  close(): void;
}

export class Provider implements RealmContext {
  #realm: Realm;
  #generation = 0;
  readonly clock: Clock;
  readonly ids: Ids;
  readonly keys: KeyStore;
  readonly encryptionKey: Promise<EncryptionKey>;
  readonly secret: RealmSecret;
  /** The `sub` each client sees (pairwise subjects), and the subject behind one. */
  readonly subjectIds: SubjectIds;
  readonly store: StateStore;
  /**
   * The last requests this process served, read synchronously by the library's `requests()`: the memory
   * store's journal itself; beside a shared store's journal (GET /mock/requests), this process's part of it.
   */
  readonly journal: RequestJournal;
  /** Issuer fixed by --issuer; wins over the fixtures' `issuer`. */
  readonly fixedIssuer: string | undefined;
  /** The HTTP relative path everything is served under (normalised; `''` for none). */
  readonly relativePath: string;
  /** `--hostname-backchannel-dynamic`: with a fixed issuer, back-channel URLs follow the request's origin. */
  readonly backchannelDynamic: boolean;
  /** kid → PEM of the keys made at run time, for replicas to load (a shared store only). */
  readonly keyPems = new Map<string, string>();
  /** The text of the last PUT /mock/fixtures, for replicas to take over. */
  fixturesText: string | undefined;
  /** With a shared store: publishes QA changes (clock, keys, fixtures) to the other replicas. */
  qaShare: QaShare | undefined;
  /**
   * With a shared store: takes over the realms made and deleted at other replicas (set by the app). Run when
   * the realm's shared state moved, as a deletion there moves it: this realm may be gone.
   */
  syncRealms: (() => Promise<void>) | undefined;
  /** The server's logger (set when the realm is served): a replacement logs the warnings it brings. */
  log: Logger = createLogger('silent');

  constructor(init: {
    realm: Realm;
    clock: Clock;
    ids: Ids;
    keys: KeyStore;
    /** Default: a fresh key, started now. */
    encryptionKey?: Promise<EncryptionKey>;
    fixedIssuer?: string;
    /** The normalised HTTP relative path; default: none. */
    relativePath?: string;
    /** Back-channel URLs from the request's origin when the issuer is fixed; default: false. */
    backchannelDynamic?: boolean;
    store?: StateStore;
    /** The realm's HS256 secret, when shared by replicas; default: from the ids. */
    secret?: Uint8Array;
  }) {
    this.#realm = init.realm;
    this.clock = init.clock;
    this.ids = init.ids;
    this.keys = init.keys;
    this.encryptionKey = init.encryptionKey ?? startEncryptionKey();
    this.fixedIssuer = init.fixedIssuer?.replace(/\/+$/, '');
    this.relativePath = init.relativePath ?? '';
    this.backchannelDynamic = init.backchannelDynamic ?? false;
    this.secret = realmSecret(init.secret ?? init.ids.secret('realm-hs256'));
    this.subjectIds = new SubjectIds(
      pairwiseSalt(init.ids.seeded ? init.ids.secret('pairwise-salt') : undefined, init.realm.name),
    );
    this.store = init.store ?? new MemoryStore(init.clock);
    this.journal = this.store.journal instanceof RequestJournal ? this.store.journal : new RequestJournal();
    this.#rememberEndedSessions();
  }

  /** An ended session's tokens can outlive it by at most the longer token lifespan. */
  #rememberEndedSessions(): void {
    const { accessTokenLifespan, refreshTokenLifespan } = this.#realm.tokens;
    this.store.tombstoneSeconds = Math.max(accessTokenLifespan, refreshTokenLifespan);
  }

  get realm(): Realm {
    return this.#realm;
  }

  /**
   * Counts fixture replacements. A browser's session cookie names the generation it was set in, so
   * replacing the fixtures ends every browser session (the next authorize shows the login page) while
   * the sessions' tokens stay active.
   */
  get generation(): number {
    return this.#generation;
  }

  /** Takes over the generation a replacement had at the replica that made it (shared fixtures). */
  adoptGeneration(generation: number): void {
    this.#generation = generation;
  }

  /**
   * Swaps in new fixtures (PUT /mock/fixtures, --watch); sessions and keys stay, browser sign-ins end (not
   * for a change through the admin API, `keepBrowserSessions`, as in Keycloak), and so do the registered
   * clients (not for a change through the admin API, `keepRegisteredClients`). What Keycloak would read past
   * in the new fixtures and not in the old ones is logged, as the server logs it at start.
   */
  replaceRealm(
    realm: Realm,
    options: { keepBrowserSessions?: boolean; keepRegisteredClients?: boolean } = {},
  ): void {
    // A change through the admin API keeps the clients made by dynamic registration (ordinary clients in
    // Keycloak); a fixture client of the same id wins.
    if (options.keepRegisteredClients === true)
      for (const client of this.#realm.clients.values())
        if (client.registration !== undefined && !realm.clients.has(client.id)) addClient(realm, client);
    logWarnings(this.log, realm, this.#realm);
    this.#realm = realm;
    if (options.keepBrowserSessions !== true) this.#generation++;
    this.#rememberEndedSessions();
  }

  /** The realm base URL for a request origin (`http://host:port`): {@link realmIssuer}. */
  issuerFor(origin: string): string {
    return realmIssuer(this.fixedIssuer, this.#realm, origin, this.relativePath);
  }

  /**
   * The realm base URL the back-channel endpoints (token, introspection, certs, userinfo, revocation, PAR,
   * registration) are named under for a request origin: the issuer, or with {@link backchannelDynamic} and
   * a fixed issuer the request's own origin, as Keycloak's `--hostname-backchannel-dynamic` names them.
   */
  backchannelBaseFor(origin: string): string {
    if (!this.backchannelDynamic) return this.issuerFor(origin);
    return `${origin}${realmBasePath(this.#realm.name, this.relativePath)}`;
  }

  /**
   * Starts a session (its id from the one id source) and returns it. It idles out after the realm's
   * refreshTokenLifespan, or at `until` when that is later.
   */
  async openSession(init: SessionInit): Promise<Session> {
    const id = this.ids.uuid('session');
    const { until, browser, ...fields } = init;
    const idle = this.clock.nowSeconds() + this.#realm.tokens.refreshTokenLifespan;
    const session: Session = {
      id,
      ...fields,
      clients: [init.clientId],
      browser: browser ?? false,
      expiresAt: Math.max(idle, until ?? 0),
    };
    // The store keeps its own copy: the caller may change this one and write it back (saveSession).
    await this.store.addSession(session);
    return session;
  }

  /** With a shared store, takes over what other replicas changed before this call (the QA API's requests). */
  async catchUp(): Promise<void> {
    await this.qaShare?.catchUp();
  }

  async addRegisteredClient(client: Client): Promise<boolean> {
    if (this.qaShare !== undefined && !(await this.qaShare.addClient(client))) return false;
    addClient(this.#realm, client);
    return true;
  }

  async removeRegisteredClient(client: Client): Promise<boolean> {
    const removed = this.qaShare === undefined || (await this.qaShare.removeClient(client.id));
    deleteClient(this.#realm, client);
    return removed;
  }

  /** Keeps a session alive for another idle period (a token set issued, a single sign-on). */
  async touchSession(session: Session, clientId?: string): Promise<void> {
    const idle = this.clock.nowSeconds() + this.#realm.tokens.refreshTokenLifespan;
    session.expiresAt = Math.max(session.expiresAt, idle);
    if (clientId !== undefined && !session.clients.includes(clientId)) session.clients.push(clientId);
    await this.store.saveSession(session);
  }
}
