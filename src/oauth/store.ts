// A realm's mutable request state: sessions, authorization codes, revoked tokens, used assertion ids, ended-session
// tombstones. StateStore is the contract (async, so a shared store such as Redis can implement it); MemoryStore
// keeps it in the process.
import { Clock } from '../clock.js';
import { MemoryFaults, type FaultStore } from '../store/faults.js';

export interface Session {
  id: string;
  /** The client the session was opened for. */
  clientId: string;
  /** Every client that received tokens in this session (single sign-on adds to it), first one first. */
  clients: string[];
  /** The realm base URL the session's tokens name (back-channel logout tokens use it). */
  issuer: string;
  /** Opened by a browser sign-in (authorize), so the browser may hold it in its session cookies. */
  browser: boolean;
  /** Fixture username, or undefined for a client's service account. */
  username?: string;
  sub: string;
  /** auth_time, epoch seconds. */
  authTime: number;
  /** Epoch seconds after which the session (and its refresh tokens) lapse unless used. */
  expiresAt: number;
}

/** Why a session ended: told to whoever listens (back-channel logout). */
export type SessionEndReason = 'logout' | 'qa' | 'expired' | 'replaced' | 'revoked';

export type SessionEndListener = (session: Session, reason: SessionEndReason) => void;

export interface CodeGrant {
  code: string;
  clientId: string;
  redirectUri: string;
  scopes: string[];
  sessionId: string;
  username: string;
  nonce?: string;
  /** OIDC Session Management `session_state` of the authorize response, carried into the tokens. */
  sessionState?: string;
  codeChallenge?: string;
  codeChallengeMethod?: 'S256' | 'plain';
  expiresAt: number;
}

/**
 * Where a realm keeps sessions, codes, revocations, assertion ids and ended-session tombstones. Every method
 * may reach a shared store: callers await it. Expiry is decided on the mock clock; a shared store's own TTLs
 * only clean up.
 */
export interface StateStore {
  /** The faults injected through POST /mock/faults, waiting for requests. */
  readonly faults: FaultStore;
  /** Seconds past its expiry a session's tokens may still be unexpired (set from the realm's lifespans). */
  tombstoneSeconds: number;
  /** Called for every session that ends here: ended explicitly or found idle past its expiry. */
  onSessionEnd(listener: SessionEndListener): void;
  addSession(session: Session): Promise<void>;
  /** Writes back a changed session (expiry, clients, auth_time); nothing when it has ended meanwhile. */
  saveSession(session: Session): Promise<void>;
  /** The session if it exists and has not lapsed. */
  activeSession(id: string | undefined): Promise<Session | undefined>;
  /** Every active session. */
  sessions(): Promise<Session[]>;
  /** `active`; `ended` when it ended or idled out (its tokens are no longer active); `unknown` when never held. */
  sessionStatus(id: string): Promise<'active' | 'ended' | 'unknown'>;
  /** Ends a session (its tokens stop being active); false when there was none. */
  endSession(id: string, reason: SessionEndReason): Promise<boolean>;
  /** Ends every session and drops every code; returns how many sessions were active. */
  endAllSessions(reason: SessionEndReason): Promise<number>;
  /** Removes sessions idle past their expiry and tells the listeners; returns how many. */
  expireSessions(): Promise<number>;
  addCode(grant: CodeGrant): Promise<void>;
  /** Removes and returns a code, atomically: codes are single-use. Expiry is the caller's check. */
  takeCode(code: string): Promise<CodeGrant | undefined>;
  /** Records that `grant` was exchanged for tokens: using its code again ends its session. */
  markCodeSpent(grant: CodeGrant): Promise<void>;
  /** The session whose tokens a successfully exchanged code gave, if `code` is one (and has not expired). */
  spentCodeSession(code: string): Promise<string | undefined>;
  revoke(jti: string, exp: number): Promise<void>;
  isRevoked(jti: string | undefined): Promise<boolean>;
  /** Records a client assertion id, atomically; false when it was seen before (replay). */
  useAssertion(clientId: string, jti: string, exp: number): Promise<boolean>;
  /** Releases connections; the memory store has none. */
  close(): Promise<void>;
}

const SWEEP_EVERY = 512;
/** The clock tolerance client assertions are verified with, in seconds. */
export const ASSERTION_TOLERANCE_S = 5;

/** The state in this process's memory (the default store). */
export class MemoryStore implements StateStore {
  readonly faults: FaultStore = new MemoryFaults();
  readonly #clock: Clock;
  readonly #sessions = new Map<string, Session>();
  readonly #codes = new Map<string, CodeGrant>();
  /** Codes exchanged successfully → their session, until they would have expired: a replay ends it. */
  readonly #spentCodes = new Map<string, { sessionId: string; expiresAt: number }>();
  /** jti → exp; a revoked token stays listed until it would have expired anyway. */
  readonly #revoked = new Map<string, number>();
  readonly #assertions = new Map<string, number>();
  /**
   * Session id → epoch seconds until which it is remembered as ended. A token naming a session this
   * store never held (minted offline with the realm key, or before a restart) is active until its
   * exp; one naming a session that ended here is not, for as long as such tokens can live.
   */
  readonly #endedUntil = new Map<string, number>();
  /** Seconds past its expiry a session's tokens may still be unexpired (set from the realm's lifespans). */
  tombstoneSeconds = 0;
  #writes = 0;
  readonly #listeners: SessionEndListener[] = [];

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Called for every session that ends: ended explicitly or found idle past its expiry. */
  onSessionEnd(listener: SessionEndListener): void {
    this.#listeners.push(listener);
  }

  #tellEnded(session: Session, reason: SessionEndReason): void {
    const now = this.#clock.nowSeconds();
    this.#endedUntil.set(session.id, Math.max(session.expiresAt, now) + this.tombstoneSeconds);
    for (const listener of this.#listeners) listener(session, reason);
  }

  async addSession(session: Session): Promise<void> {
    this.#sessions.set(session.id, session);
    this.#maybeSweep();
  }

  async saveSession(session: Session): Promise<void> {
    if (this.#sessions.has(session.id))
      this.#sessions.set(session.id, { ...session, clients: [...session.clients] });
  }

  /** The session if it exists and has not lapsed. */
  async activeSession(id: string | undefined): Promise<Session | undefined> {
    if (id === undefined) return undefined;
    const s = this.#sessions.get(id);
    return s !== undefined && s.expiresAt > this.#clock.nowSeconds()
      ? { ...s, clients: [...s.clients] }
      : undefined;
  }

  async sessions(): Promise<Session[]> {
    const now = this.#clock.nowSeconds();
    return [...this.#sessions.values()]
      .filter((s) => s.expiresAt > now)
      .map((s) => ({ ...s, clients: [...s.clients] }));
  }

  /**
   * `active`; `ended` when it ended or idled out here (its tokens are no longer active); `unknown` when
   * this store never held it.
   */
  async sessionStatus(id: string): Promise<'active' | 'ended' | 'unknown'> {
    const now = this.#clock.nowSeconds();
    const session = this.#sessions.get(id);
    if (session !== undefined) return session.expiresAt > now ? 'active' : 'ended';
    const until = this.#endedUntil.get(id);
    return until !== undefined && until > now ? 'ended' : 'unknown';
  }

  /** Ends a session (its tokens stop being active); false when there was none. */
  async endSession(id: string, reason: SessionEndReason): Promise<boolean> {
    const session = this.#sessions.get(id);
    if (session === undefined) {
      // A session never held here (tokens minted offline): remember it ended all the same.
      this.#endedUntil.set(id, this.#clock.nowSeconds() + this.tombstoneSeconds);
      return false;
    }
    this.#sessions.delete(id);
    if (session.expiresAt > this.#clock.nowSeconds()) this.#tellEnded(session, reason);
    else this.#tellEnded(session, 'expired');
    return true;
  }

  /** Ends every session and drops every code; returns how many sessions were active. */
  async endAllSessions(reason: SessionEndReason): Promise<number> {
    const now = this.#clock.nowSeconds();
    const all = [...this.#sessions.values()];
    this.#sessions.clear();
    this.#codes.clear();
    for (const s of all) this.#tellEnded(s, s.expiresAt > now ? reason : 'expired');
    return all.filter((s) => s.expiresAt > now).length;
  }

  /** Removes sessions idle past their expiry and tells the listeners; returns how many. */
  async expireSessions(): Promise<number> {
    return this.#expire();
  }

  #expire(): number {
    const now = this.#clock.nowSeconds();
    let n = 0;
    for (const [id, s] of this.#sessions) {
      if (s.expiresAt > now) continue;
      this.#sessions.delete(id);
      this.#tellEnded(s, 'expired');
      n++;
    }
    return n;
  }

  async addCode(grant: CodeGrant): Promise<void> {
    this.#codes.set(grant.code, grant);
    this.#maybeSweep();
  }

  /** Removes and returns a code: codes are single-use. Expiry is the caller's check. */
  async takeCode(code: string): Promise<CodeGrant | undefined> {
    const grant = this.#codes.get(code);
    this.#codes.delete(code);
    return grant;
  }

  /** Records that `grant` was exchanged for tokens: using its code again ends its session. */
  async markCodeSpent(grant: CodeGrant): Promise<void> {
    this.#spentCodes.set(grant.code, { sessionId: grant.sessionId, expiresAt: grant.expiresAt });
  }

  /** The session whose tokens a successfully exchanged code gave, if `code` is one (and has not expired). */
  async spentCodeSession(code: string): Promise<string | undefined> {
    const spent = this.#spentCodes.get(code);
    return spent !== undefined && spent.expiresAt > this.#clock.nowSeconds() ? spent.sessionId : undefined;
  }

  async revoke(jti: string, exp: number): Promise<void> {
    this.#revoked.set(jti, exp);
    this.#maybeSweep();
  }

  async isRevoked(jti: string | undefined): Promise<boolean> {
    return jti !== undefined && this.#revoked.has(jti);
  }

  /** Records a client assertion id; false when it was seen before (replay). */
  async useAssertion(clientId: string, jti: string, exp: number): Promise<boolean> {
    const key = `${clientId}\u0000${jti}`;
    if (this.#assertions.has(key)) return false;
    this.#assertions.set(key, exp);
    this.#maybeSweep();
    return true;
  }

  async close(): Promise<void> {}

  #maybeSweep(): void {
    if (++this.#writes % SWEEP_EVERY !== 0) return;
    const now = this.#clock.nowSeconds();
    this.#expire();
    for (const [code, g] of this.#codes) if (g.expiresAt <= now) this.#codes.delete(code);
    for (const [code, s] of this.#spentCodes) if (s.expiresAt <= now) this.#spentCodes.delete(code);
    for (const [jti, exp] of this.#revoked) if (exp <= now) this.#revoked.delete(jti);
    for (const [id, until] of this.#endedUntil) if (until <= now) this.#endedUntil.delete(id);
    // An assertion verifies while either the mock or the real clock is before its exp (+ tolerance): its jti
    // is kept until both have passed it, however the mock clock moves.
    const passed = Math.min(now, Math.floor(Clock.realMs() / 1000)) - ASSERTION_TOLERANCE_S;
    for (const [key, exp] of this.#assertions) if (exp < passed) this.#assertions.delete(key);
  }
}
