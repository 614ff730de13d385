// The memory store: a realm's state in this process (the default), and the backend that hands it out.
import { Clock } from '../clock.js';
import type { StoreBackend, StoreHealth } from './backend.js';
import { MemoryFaults, type FaultStore } from './faults.js';
import { RequestJournal } from './journal.js';
import {
  ASSERTION_TOLERANCE_S,
  type AssertionOptions,
  BACKCHANNEL_KEEP_S,
  type BackchannelChange,
  type BackchannelRequest,
  type CodeGrant,
  type PushedRequest,
  type Session,
  type SessionEndListener,
  type SessionEndReason,
  type SessionPage,
  type StateStore,
} from './state-store.js';

const SWEEP_EVERY = 512;
/** Distinct issuers the memory store shares one string of (a realm is reached under a few host names). */
const INTERNED_ISSUERS = 64;
/** Ids of new sessions wait apart, a small array a page sorts, until there are this many: then one merge. */
const MERGE_EVERY = 1024;

/**
 * A session as the memory store holds it: one small object of one shape, its strings shared (client ids,
 * usernames and subs are the fixtures' own strings, the issuer is interned), the clients of a one-client
 * session without an array, its id only as the map's key. 100,000 sessions cost ~20 MB (npm run bench).
 */
class HeldSession {
  /**
   * The client it was opened for when that is its one client (the usual case); else that client, then
   * every client (first one first).
   */
  readonly clients: string | readonly string[];
  readonly issuer: string;
  readonly browser: boolean;
  readonly username: string | undefined;
  readonly sub: string;
  readonly authTime: number;
  readonly expiresAt: number;

  constructor(s: Session, issuer: string) {
    this.clients =
      s.clients.length === 1 && s.clients[0] === s.clientId ? s.clientId : [s.clientId, ...s.clients];
    this.issuer = issuer;
    this.browser = s.browser;
    this.username = s.username;
    this.sub = s.sub;
    this.authTime = s.authTime;
    this.expiresAt = s.expiresAt;
  }

  /** A copy the caller may change and write back (saveSession). */
  toSession(id: string): Session {
    const one = typeof this.clients === 'string';
    return {
      id,
      clientId: one ? (this.clients as string) : (this.clients[0] as string),
      clients: one ? [this.clients as string] : this.clients.slice(1),
      issuer: this.issuer,
      browser: this.browser,
      ...(this.username !== undefined ? { username: this.username } : {}),
      sub: this.sub,
      authTime: this.authTime,
      expiresAt: this.expiresAt,
    };
  }
}

/** The index after the last entry of sorted `ids` that is <= `after` (code-unit order). */
function firstAfter(ids: readonly string[], after: string): number {
  let lo = 0;
  let hi = ids.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((ids[mid] as string) <= after) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The state in this process's memory (the default store). */
export class MemoryStore implements StateStore {
  readonly faults: FaultStore = new MemoryFaults();
  readonly journal = new RequestJournal();
  readonly #clock: Clock;
  readonly #sessions = new Map<string, HeldSession>();
  /** Session ids in code-unit order for pages: sorted, and the ids added since the last merge (MERGE_EVERY). */
  #order: string[] = [];
  #added: string[] = [];
  /** Sessions removed since #order was built (their ids are skipped until the next rebuild). */
  #removed = 0;
  /** No session lapses before this (epoch seconds; a lower bound): expiry passes skip the scan until then. */
  #nextExpiry = Infinity;
  readonly #issuers = new Map<string, string>();
  readonly #codes = new Map<string, CodeGrant>();
  readonly #pushed = new Map<string, PushedRequest>();
  readonly #backchannel = new Map<string, BackchannelRequest>();
  /** user_code → device_code. */
  readonly #userCodes = new Map<string, string>();
  /**
   * Codes exchanged successfully → their session, until they would have expired: a replay ends it. A code
   * that ends in `.{its session id}` (as authorize makes them) keeps only its expiry.
   */
  readonly #spentCodes = new Map<string, number | { sessionId: string; expiresAt: number }>();
  /** jti → exp; a revoked token stays listed until it would have expired anyway. */
  readonly #revoked = new Map<string, number>();
  /** Assertion id → its exp, or for one kept by the mock clock only, its exp and the real ms to drop it at. */
  readonly #assertions = new Map<string, number | { exp: number; realUntilMs: number }>();
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

  #tellEnded(id: string, held: HeldSession, reason: SessionEndReason): void {
    const now = this.#clock.nowSeconds();
    this.#endedUntil.set(id, Math.max(held.expiresAt, now) + this.tombstoneSeconds);
    if (this.#listeners.length === 0) return;
    const session = held.toSession(id);
    for (const listener of this.#listeners) listener(session, reason);
  }

  #hold(session: Session): HeldSession {
    let issuer = this.#issuers.get(session.issuer);
    if (issuer === undefined) {
      issuer = session.issuer;
      if (this.#issuers.size < INTERNED_ISSUERS) this.#issuers.set(issuer, issuer);
    }
    return new HeldSession(session, issuer);
  }

  #delete(id: string): void {
    if (this.#sessions.delete(id)) this.#removed++;
  }

  async addSession(session: Session): Promise<void> {
    if (!this.#sessions.has(session.id)) this.#added.push(session.id);
    this.#sessions.set(session.id, this.#hold(session));
    this.#nextExpiry = Math.min(this.#nextExpiry, session.expiresAt);
    if (this.#added.length >= MERGE_EVERY) this.#merge();
    this.#maybeSweep();
  }

  async saveSession(session: Session): Promise<void> {
    if (!this.#sessions.has(session.id)) return;
    this.#sessions.set(session.id, this.#hold(session));
    this.#nextExpiry = Math.min(this.#nextExpiry, session.expiresAt);
  }

  /** The session if it exists and has not lapsed. */
  async activeSession(id: string | undefined): Promise<Session | undefined> {
    if (id === undefined) return undefined;
    const s = this.#sessions.get(id);
    return s !== undefined && s.expiresAt > this.#clock.nowSeconds() ? s.toSession(id) : undefined;
  }

  async sessions(): Promise<Session[]> {
    const now = this.#clock.nowSeconds();
    const out: Session[] = [];
    for (const [id, s] of this.#sessions) if (s.expiresAt > now) out.push(s.toSession(id));
    return out;
  }

  async sessionPage(after: string | undefined, limit: number): Promise<SessionPage> {
    // Many ended since the last merge: drop their ids first (one pass), so a page does not skip past them.
    if (this.#removed * 4 > this.#order.length) this.#merge();
    const order = this.#order;
    const added = this.#added.sort();
    const now = this.#clock.nowSeconds();
    const sessions: Session[] = [];
    let i = after === undefined ? 0 : firstAfter(order, after);
    let j = after === undefined ? 0 : firstAfter(added, after);
    let last: string | undefined;
    while (i < order.length || j < added.length) {
      const a = order[i];
      const b = added[j];
      const id = (b === undefined || (a !== undefined && a <= b) ? order[i++] : added[j++]) as string;
      if (id === last) continue;
      last = id;
      const s = this.#sessions.get(id);
      if (s === undefined || s.expiresAt <= now) continue;
      if (sessions.length === limit) return { sessions, more: true };
      sessions.push(s.toSession(id));
    }
    return { sessions, more: false };
  }

  /**
   * Merges the ids added since into the sorted ones, dropping the ids of sessions that ended. In place, from
   * the back: a new array per merge (every MERGE_EVERY sessions) was garbage the size of every id held.
   */
  #merge(): void {
    const order = this.#order;
    const added = this.#added.sort();
    // The ids of ended sessions out first, then the merge from the back into the room made at the end.
    let kept = 0;
    for (let i = 0; i < order.length; i++) {
      const id = order[i] as string;
      if (this.#sessions.has(id) && (kept === 0 || order[kept - 1] !== id)) order[kept++] = id;
    }
    let fresh = 0;
    for (let j = 0; j < added.length; j++) {
      const id = added[j] as string;
      if (this.#sessions.has(id) && (fresh === 0 || added[fresh - 1] !== id)) added[fresh++] = id;
    }
    order.length = kept + fresh;
    let i = kept - 1;
    let j = fresh - 1;
    let repeated = false;
    for (let k = kept + fresh - 1; j >= 0; k--) {
      const a = order[i];
      const b = added[j] as string;
      if (a === b) repeated = true;
      order[k] = i >= 0 && (a as string) > b ? (order[i--] as string) : (added[j--] as string);
    }
    // A session that ended and whose id came back before this merge is in both: once is enough.
    if (repeated) {
      let n = 0;
      for (const id of order) if (n === 0 || order[n - 1] !== id) order[n++] = id;
      order.length = n;
    }
    this.#added = [];
    this.#removed = 0;
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
    this.#delete(id);
    if (session.expiresAt > this.#clock.nowSeconds()) this.#tellEnded(id, session, reason);
    else this.#tellEnded(id, session, 'expired');
    return true;
  }

  /** Ends every session and drops every code; returns how many sessions were active. */
  async endAllSessions(reason: SessionEndReason): Promise<number> {
    const now = this.#clock.nowSeconds();
    const all = [...this.#sessions];
    this.#sessions.clear();
    this.#order = [];
    this.#added = [];
    this.#removed = 0;
    this.#codes.clear();
    for (const [id, s] of all) this.#tellEnded(id, s, s.expiresAt > now ? reason : 'expired');
    return all.filter(([, s]) => s.expiresAt > now).length;
  }

  /** Removes sessions idle past their expiry and tells the listeners; returns how many. */
  async expireSessions(): Promise<number> {
    return this.#expire();
  }

  #expire(): number {
    const now = this.#clock.nowSeconds();
    if (now < this.#nextExpiry) return 0;
    let n = 0;
    let next = Infinity;
    // A session a listener opens meanwhile lowers the bound itself.
    this.#nextExpiry = Infinity;
    for (const [id, s] of this.#sessions) {
      if (s.expiresAt > now) {
        next = Math.min(next, s.expiresAt);
        continue;
      }
      this.#delete(id);
      this.#tellEnded(id, s, 'expired');
      n++;
    }
    this.#nextExpiry = Math.min(this.#nextExpiry, next);
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
    const { code, sessionId, expiresAt } = grant;
    const named = !sessionId.includes('.') && code.endsWith(`.${sessionId}`);
    this.#spentCodes.set(code, named ? expiresAt : { sessionId, expiresAt });
  }

  /** The session whose tokens a successfully exchanged code gave, if `code` is one (and has not expired). */
  async spentCodeSession(code: string): Promise<string | undefined> {
    const spent = this.#spentCodes.get(code);
    if (spent === undefined) return undefined;
    if (typeof spent === 'number')
      return spent > this.#clock.nowSeconds() ? code.slice(code.lastIndexOf('.') + 1) : undefined;
    return spent.expiresAt > this.#clock.nowSeconds() ? spent.sessionId : undefined;
  }

  async addPushedRequest(request: PushedRequest): Promise<void> {
    this.#pushed.set(request.requestUri, request);
    this.#maybeSweep();
  }

  /** Removes and returns a pushed request: a request_uri is single-use. Expiry is the caller's check. */
  async takePushedRequest(requestUri: string): Promise<PushedRequest | undefined> {
    const request = this.#pushed.get(requestUri);
    this.#pushed.delete(requestUri);
    return request;
  }

  async addBackchannelRequest(request: BackchannelRequest): Promise<void> {
    this.#backchannel.set(request.id, { ...request });
    if (request.userCode !== undefined) this.#userCodes.set(request.userCode, request.id);
    this.#maybeSweep();
  }

  async backchannelRequest(id: string): Promise<BackchannelRequest | undefined> {
    const request = this.#backchannel.get(id);
    return request !== undefined ? { ...request } : undefined;
  }

  async deviceCodeOf(userCode: string): Promise<string | undefined> {
    return this.#userCodes.get(userCode);
  }

  async changeBackchannelRequest<T>(
    id: string,
    change: (current: BackchannelRequest | undefined) => BackchannelChange<T>,
  ): Promise<T> {
    const current = this.#backchannel.get(id);
    const { next, result } = change(current !== undefined ? { ...current } : undefined);
    if (next === null) this.#dropBackchannel(id);
    else if (next !== undefined) this.#backchannel.set(id, { ...next });
    return result;
  }

  async backchannelRequests(): Promise<BackchannelRequest[]> {
    return [...this.#backchannel.values()].map((r) => ({ ...r }));
  }

  #dropBackchannel(id: string): void {
    const request = this.#backchannel.get(id);
    this.#backchannel.delete(id);
    if (request?.userCode !== undefined) this.#userCodes.delete(request.userCode);
  }

  async revoke(jti: string, exp: number): Promise<void> {
    this.#revoked.set(jti, exp);
    this.#maybeSweep();
  }

  async isRevoked(jti: string | undefined): Promise<boolean> {
    return jti !== undefined && this.#revoked.has(jti);
  }

  /** Records a client assertion or DPoP proof id; false when it was seen before (replay). */
  async useAssertion(
    clientId: string,
    jti: string,
    exp: number,
    options: AssertionOptions = {},
  ): Promise<boolean> {
    const key = `${clientId}\u0000${jti}`;
    if (this.#assertions.has(key)) return false;
    const left = Math.max(exp - this.#clock.nowSeconds(), 0);
    this.#assertions.set(
      key,
      options.mockClockOnly === true ? { exp, realUntilMs: Clock.realMs() + left * 1000 } : exp,
    );
    this.#maybeSweep();
    return true;
  }

  async close(): Promise<void> {}

  #maybeSweep(): void {
    if (++this.#writes % SWEEP_EVERY !== 0) return;
    const now = this.#clock.nowSeconds();
    this.#expire();
    for (const [code, g] of this.#codes) if (g.expiresAt <= now) this.#codes.delete(code);
    for (const [uri, r] of this.#pushed) if (r.expiresAt <= now) this.#pushed.delete(uri);
    for (const [id, r] of this.#backchannel)
      if (r.expiresAt + BACKCHANNEL_KEEP_S <= now) this.#dropBackchannel(id);
    for (const [code, s] of this.#spentCodes)
      if ((typeof s === 'number' ? s : s.expiresAt) <= now) this.#spentCodes.delete(code);
    for (const [jti, exp] of this.#revoked) if (exp <= now) this.#revoked.delete(jti);
    for (const [id, until] of this.#endedUntil) if (until <= now) this.#endedUntil.delete(id);
    // An assertion verifies while either the mock or the real clock is before its exp (+ tolerance): its jti
    // is kept until both have passed it, however the mock clock moves.
    const realMs = Clock.realMs();
    const passed = Math.min(now, Math.floor(realMs / 1000)) - ASSERTION_TOLERANCE_S;
    for (const [key, kept] of this.#assertions) {
      const gone = typeof kept === 'number' ? kept < passed : kept.exp < now || kept.realUntilMs < realMs;
      if (gone) this.#assertions.delete(key);
    }
  }
}

/** The memory backend: each realm its own MemoryStore; nothing is shared, nothing to connect. */
export class MemoryBackend implements StoreBackend {
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
