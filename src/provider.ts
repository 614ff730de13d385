// The running provider's state in one place: realm model, clock, ids, keys, realm secret, store.
import { decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import type { Clock } from './clock.js';
import type { Realm } from './fixtures/realm.js';
import type { Ids } from './ids.js';
import type { KeyStore } from './keys/key-store.js';
import { Store, type Session } from './oauth/store.js';
import { RequestJournal } from './qa/journal.js';
import { hmacKey, realmSecret, type RealmSecret } from './tokens/sign.js';

export type OwnTokenKind = 'access' | 'id' | 'refresh' | 'proof';

export interface VerifiedToken {
  kind: OwnTokenKind;
  claims: JWTPayload & Record<string, unknown>;
  /** The session the token belongs to (`sid`, else `session_state`), when it names one. */
  sessionId?: string;
}

/** The session id a token names: `sid`, else `session_state` (Keycloak puts both). */
export function sessionIdOf(claims: Record<string, unknown>): string | undefined {
  const sid = claims['sid'] ?? claims['session_state'];
  return typeof sid === 'string' ? sid : undefined;
}

const KIND_BY_TYP = new Map<unknown, OwnTokenKind>([
  ['Bearer', 'access'],
  ['ID', 'id'],
  ['Refresh', 'refresh'],
  ['Offline', 'refresh'],
  ['Proof', 'proof'],
]);

export class Provider {
  #realm: Realm;
  #generation = 0;
  readonly clock: Clock;
  readonly ids: Ids;
  readonly keys: KeyStore;
  readonly secret: RealmSecret;
  readonly store: Store;
  /** The last requests to the realm (GET /mock/requests). */
  readonly journal = new RequestJournal();
  /** Issuer fixed by --issuer; wins over the fixtures' `issuer`. */
  readonly fixedIssuer: string | undefined;

  constructor(init: { realm: Realm; clock: Clock; ids: Ids; keys: KeyStore; fixedIssuer?: string }) {
    this.#realm = init.realm;
    this.clock = init.clock;
    this.ids = init.ids;
    this.keys = init.keys;
    this.fixedIssuer = init.fixedIssuer?.replace(/\/+$/, '');
    this.secret = realmSecret(init.ids.secret('realm-hs256'));
    this.store = new Store(init.clock);
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

  /** Swaps in new fixtures (PUT /mock/fixtures, --watch); sessions and keys stay, browser sign-ins end. */
  replaceRealm(realm: Realm): void {
    this.#realm = realm;
    this.#generation++;
    this.#rememberEndedSessions();
  }

  /** The realm base URL for a request origin (`http://host:port`), unless an issuer is fixed. */
  issuerFor(origin: string): string {
    return this.fixedIssuer ?? this.#realm.issuer ?? `${origin}/realms/${this.#realm.name}`;
  }

  /**
   * Starts a session (its id from the one id source) and returns its id. It idles out after the realm's
   * refreshTokenLifespan, or at `until` when that is later.
   */
  openSession(init: {
    clientId: string;
    issuer: string;
    username?: string;
    sub: string;
    authTime: number;
    until?: number;
    /** A browser sign-in (authorize): the session may be held in the browser's cookies. */
    browser?: boolean;
  }): string {
    const id = this.ids.uuid('session');
    const { until, browser, ...session } = init;
    const idle = this.clock.nowSeconds() + this.#realm.tokens.refreshTokenLifespan;
    this.store.addSession({
      id,
      ...session,
      clients: [init.clientId],
      browser: browser ?? false,
      expiresAt: Math.max(idle, until ?? 0),
    });
    return id;
  }

  /** Keeps a session alive for another idle period (a token set issued, a single sign-on). */
  touchSession(session: Session, clientId?: string): void {
    const idle = this.clock.nowSeconds() + this.#realm.tokens.refreshTokenLifespan;
    session.expiresAt = Math.max(session.expiresAt, idle);
    if (clientId !== undefined && !session.clients.includes(clientId)) session.clients.push(clientId);
  }

  /**
   * Verifies a token this provider issued: signature (realm key or realm secret), time by the mock clock,
   * issuer of this realm, not revoked, and its session not ended here. Undefined for anything else.
   */
  async verifyOwnToken(token: string): Promise<VerifiedToken | undefined> {
    let alg: string | undefined;
    let kid: string | undefined;
    try {
      ({ alg, kid } = decodeProtectedHeader(token));
    } catch {
      return undefined;
    }
    const options = { algorithms: [alg ?? 'none'], currentDate: this.clock.now() };
    let claims: JWTPayload;
    try {
      if (alg === 'RS256') {
        const key = this.keys.find(kid);
        if (key === undefined) return undefined;
        ({ payload: claims } = await jwtVerify(token, key.publicKey, options));
      } else if (alg === 'HS256' && kid === this.secret.kid) {
        ({ payload: claims } = await jwtVerify(token, await hmacKey(this.secret), options));
      } else {
        return undefined;
      }
    } catch {
      return undefined;
    }
    const kind = KIND_BY_TYP.get(claims['typ']);
    if (kind === undefined || !this.#isOurIssuer(claims.iss)) return undefined;
    if ((kind === 'refresh') !== (alg === 'HS256')) return undefined;
    if (this.store.isRevoked(claims.jti)) return undefined;
    const sessionId = sessionIdOf(claims);
    // A session this server never held (a token minted offline with the realm key) does not make
    // the token inactive; one that ended here does.
    if (sessionId !== undefined && this.store.sessionStatus(sessionId) === 'ended') return undefined;
    return {
      kind,
      claims: claims as VerifiedToken['claims'],
      ...(sessionId !== undefined ? { sessionId } : {}),
    };
  }

  /** Same realm: the fixed issuer exactly, or any origin with this realm's path (Docker port mapping). */
  #isOurIssuer(iss: string | undefined): boolean {
    if (iss === undefined) return false;
    const fixed = this.fixedIssuer ?? this.#realm.issuer;
    if (fixed !== undefined) return iss === fixed;
    try {
      return new URL(iss).pathname === `/realms/${this.#realm.name}`;
    } catch {
      return false;
    }
  }
}
