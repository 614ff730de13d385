// What request handling needs of a realm: its fixtures model, clock, ids, keys, secret and store. The
// endpoints and oauth/ take this narrow view; the Provider class (realm state) implements it.
import type { Clock } from '../clock.js';
import type { Client, Realm } from '../fixtures/realm.js';
import type { Ids } from '../ids.js';
import type { EncryptionKey } from '../keys/encryption-key.js';
import type { KeyStore } from '../keys/key-store.js';
import type { Session, StateStore } from '../store/state-store.js';
import type { SubjectIds } from '../tokens/pairwise.js';
import type { RealmSecret } from '../tokens/sign.js';

export interface SessionInit {
  clientId: string;
  issuer: string;
  username?: string;
  sub: string;
  authTime: number;
  /** The session lives at least until then (epoch seconds), when later than one idle period. */
  until?: number;
  /** A browser sign-in (authorize): the session may be held in the browser's cookies. */
  browser?: boolean;
}

export interface RealmContext {
  /** The fixtures model; replaced as a whole by PUT /mock/fixtures and --watch. */
  readonly realm: Realm;
  /** Counts fixture replacements (browser session cookies name the generation they were set in). */
  readonly generation: number;
  readonly clock: Clock;
  readonly ids: Ids;
  readonly keys: KeyStore;
  /** The RSA key request objects are encrypted to (made at start, awaited where needed). */
  readonly encryptionKey: Promise<EncryptionKey>;
  readonly secret: RealmSecret;
  readonly store: StateStore;
  /** The `sub` each client sees (pairwise subjects), and the subject behind one. */
  readonly subjectIds: SubjectIds;
  /** Issuer fixed by --issuer; wins over the fixtures' `issuer`. */
  readonly fixedIssuer: string | undefined;
  /** The HTTP relative path everything is served under (normalised; `''` for none). */
  readonly relativePath: string;
  /** With a fixed issuer, back-channel URLs follow the request's origin (`--hostname-backchannel-dynamic`). */
  readonly backchannelDynamic: boolean;
  /** The realm base URL the back-channel endpoints are named under, for a request origin. */
  backchannelBaseFor(origin: string): string;
  /** Starts a session and returns it, as the store now holds it. */
  openSession(init: SessionInit): Promise<Session>;
  /** Keeps a session alive for another idle period; `clientId` joins its clients. Writes it back. */
  touchSession(session: Session, clientId?: string): Promise<void>;
  /** Adds a dynamically registered client (to the shared store first); false when its id is taken there. */
  addRegisteredClient(client: Client): Promise<boolean>;
  /** Removes a dynamically registered client (from the shared store first); false when it was gone. */
  removeRegisteredClient(client: Client): Promise<boolean>;
}
