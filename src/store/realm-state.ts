// A realm's state, written once over a record store (memory or Redis): sessions and their tombstones, codes and
// spent codes, pushed requests, back-channel requests and user codes, revocations and assertion ids. Expiry
// is decided here, on the mock clock; the record store only keeps records for as long as they may matter.
import { z } from 'zod';
import type { Clock } from '../clock.js';
import { API_VERSIONS, METHODS } from '../fixtures/versions.js';
import type { FaultStore } from './faults.js';
import type { RealmEvents } from './events.js';
import type { JournalStore } from './journal.js';
import { zodParser as parser, type Lifetime, type RecordKind, type RecordStore } from './record-store.js';
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

const sessionSchema = z.object({
  id: z.string(),
  clientId: z.string(),
  clients: z.array(z.string()),
  issuer: z.string(),
  browser: z.boolean(),
  username: z.string().optional(),
  sub: z.string(),
  authTime: z.number(),
  expiresAt: z.number(),
});

const codeSchema = z.object({
  code: z.string(),
  clientId: z.string(),
  redirectUri: z.string(),
  scopes: z.array(z.string()),
  sessionId: z.string(),
  username: z.string(),
  nonce: z.string().optional(),
  codeChallenge: z.string().optional(),
  codeChallengeMethod: z.enum(['S256', 'plain']).optional(),
  dpopJkt: z.string().optional(),
  expiresAt: z.number(),
  apiVersion: z.literal(API_VERSIONS).optional(),
  method: z.enum(METHODS).optional(),
});

const pushedSchema = z.object({
  requestUri: z.string(),
  clientId: z.string(),
  params: z.record(z.string(), z.string()),
  expiresAt: z.number(),
});

const backchannelSchema = z.object({
  kind: z.enum(['device', 'ciba']),
  id: z.string(),
  userCode: z.string().optional(),
  clientId: z.string(),
  scopes: z.array(z.string()),
  username: z.string().optional(),
  bindingMessage: z.string().optional(),
  status: z.enum(['pending', 'approved', 'denied']),
  decidedAt: z.number().optional(),
  interval: z.number(),
  polledAt: z.number().optional(),
  polledRealMs: z.number().optional(),
  createdAt: z.number(),
  expiresAt: z.number(),
  autoApproveAt: z.number().optional(),
  apiVersion: z.literal(API_VERSIONS),
});

const spentSchema = z.object({ sessionId: z.string(), expiresAt: z.number() });
const userCodeSchema = z.object({ deviceCode: z.string(), expiresAt: z.number() });
const assertionSchema = z.union([z.number(), z.object({ exp: z.number(), realUntilMs: z.number() })]);

const epochSeconds = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);

/** Distinct issuers the memory store shares one string of (a realm is reached under a few host names). */
const INTERNED_ISSUERS = 64;
const issuers = new Map<string, string>();

function intern(issuer: string): string {
  const shared = issuers.get(issuer);
  if (shared !== undefined) return shared;
  if (issuers.size < INTERNED_ISSUERS) issuers.set(issuer, issuer);
  return issuer;
}

/**
 * A session as the memory store holds it: one small object of one shape, its strings shared (client ids,
 * usernames and subs are the fixtures' own strings, the issuer is interned), the clients of a one-client
 * session without an array. 100,000 sessions cost ~20 MB (npm run bench).
 */
class HeldSession {
  /**
   * The client it was opened for when that is its one client (the usual case); else that client, then
   * every client (first one first). Its id is the record's id, not held again.
   */
  readonly clients: string | readonly string[];
  readonly issuer: string;
  readonly browser: boolean;
  readonly username: string | undefined;
  readonly sub: string;
  readonly authTime: number;
  readonly expiresAt: number;

  constructor(s: Session) {
    this.clients =
      s.clients.length === 1 && s.clients[0] === s.clientId ? s.clientId : [s.clientId, ...s.clients];
    this.issuer = intern(s.issuer);
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

const until = (expiresAt: number): Lifetime => ({ expiresAt });

/** Sessions: taken when they idle out (the listeners are told), listed by id. */
const SESSION: RecordKind<Session> = {
  name: 'session',
  what: 'session',
  parse: parser(sessionSchema),
  lifetime: (s) => until(s.expiresAt),
  ordered: true,
  expiring: true,
  hold: (s) => new HeldSession(s),
  release: (held, id) => (held as HeldSession).toSession(id),
  heldExpiresAt: (held) => (held as HeldSession).expiresAt,
};

/**
 * Ended sessions: session id → epoch seconds until which it is remembered as ended. A token naming a session
 * never held (minted offline with the realm key, or before a restart) is active until its exp; one naming a
 * session that ended here is not, for as long as such tokens can live.
 */
const ENDED: RecordKind<number> = {
  name: 'ended',
  what: 'ended session',
  parse: epochSeconds,
  lifetime: until,
  heldExpiresAt: (held) => held as number,
};

const CODE: RecordKind<CodeGrant> = {
  name: 'code',
  what: 'code',
  parse: parser(codeSchema),
  lifetime: (g) => until(g.expiresAt),
  heldExpiresAt: (held) => (held as CodeGrant).expiresAt,
};

interface SpentCode {
  sessionId: string;
  expiresAt: number;
}

/**
 * Codes exchanged successfully → their session, until they would have expired: a replay ends it. In memory, a
 * code that ends in `.{its session id}` (as authorize makes them) keeps only its expiry.
 */
const SPENT: RecordKind<SpentCode> = {
  name: 'spent',
  what: 'spent code',
  parse: parser(spentSchema),
  lifetime: (s) => until(s.expiresAt),
  hold: (s, code) => (!s.sessionId.includes('.') && code.endsWith(`.${s.sessionId}`) ? s.expiresAt : s),
  release: (held, code) =>
    typeof held === 'number'
      ? { sessionId: code.slice(code.lastIndexOf('.') + 1), expiresAt: held }
      : (held as SpentCode),
  heldExpiresAt: (held) => (typeof held === 'number' ? held : (held as SpentCode).expiresAt),
};

const PUSHED: RecordKind<PushedRequest> = {
  name: 'par',
  what: 'pushed request',
  parse: parser(pushedSchema),
  lifetime: (r) => until(r.expiresAt),
  heldExpiresAt: (held) => (held as PushedRequest).expiresAt,
};

/** Back-channel requests, kept BACKCHANNEL_KEEP_S past their expiry (a late poll hears expired_token). */
const BACKCHANNEL: RecordKind<BackchannelRequest> = {
  name: 'backchannel',
  what: 'back-channel request',
  parse: parser(backchannelSchema),
  lifetime: (r) => until(r.expiresAt + BACKCHANNEL_KEEP_S),
  ordered: true,
  hold: (r) => ({ ...r }),
  release: (held) => ({ ...(held as BackchannelRequest) }),
};

interface UserCode {
  deviceCode: string;
  /** Kept as long as its back-channel request. */
  expiresAt: number;
}

const USER_CODE: RecordKind<UserCode> = {
  name: 'user-code',
  what: 'user code',
  parse: parser(userCodeSchema),
  lifetime: (u) => until(u.expiresAt),
};

/** jti → exp: a revoked token stays listed until it would have expired anyway. */
const REVOKED: RecordKind<number> = {
  name: 'revoked',
  what: 'revocation',
  parse: epochSeconds,
  lifetime: until,
  heldExpiresAt: (held) => held as number,
};

/** The last instant the clock can show (9999-12-31T23:59:59Z): a record kept by the real clock alone. */
const NEVER_ON_THE_MOCK_CLOCK = 253_402_300_799;

/** An assertion id's exp, or for one of either clock (DPoP), its exp and the real ms to drop it at. */
type UsedAssertion = number | { exp: number; realUntilMs: number };

const ASSERTION: RecordKind<UsedAssertion> = {
  name: 'jti',
  what: 'assertion id',
  parse: (value) => {
    const parsed = assertionSchema.safeParse(value);
    return parsed.success ? parsed.data : undefined;
  },
  // An assertion verifies while either the mock or the real clock is before its exp (+ tolerance): its id is
  // kept until both have passed it, however the mock clock moves. A DPoP proof's: by the real clock alone,
  // until the instant its check set (the mock clock may stand still or jump past exp).
  lifetime: (used) =>
    typeof used === 'number'
      ? {
          expiresAt: used + ASSERTION_TOLERANCE_S + 1,
          realUntilMs: (used + ASSERTION_TOLERANCE_S + 1) * 1000,
          real: 'both',
        }
      : { expiresAt: NEVER_ON_THE_MOCK_CLOCK, realUntilMs: used.realUntilMs + 1, real: 'either' },
};

/** The parts a realm's state is kept in. */
interface RealmStateParts {
  records: RecordStore;
  faults: FaultStore;
  journal: JournalStore;
  events: RealmEvents;
}

/**
 * Where a realm keeps sessions, codes, revocations, assertion ids and ended-session tombstones: the rules,
 * over whichever record store (memory or Redis) the backend gives.
 */
export class RealmState implements StateStore {
  readonly faults: FaultStore;
  readonly journal: JournalStore;
  readonly events: RealmEvents;
  readonly #records: RecordStore;
  readonly #clock: Clock;
  readonly #listeners: SessionEndListener[] = [];
  tombstoneSeconds = 0;

  constructor(parts: RealmStateParts, clock: Clock) {
    this.#records = parts.records;
    this.faults = parts.faults;
    this.journal = parts.journal;
    this.events = parts.events;
    this.#clock = clock;
  }

  onSessionEnd(listener: SessionEndListener): void {
    this.#listeners.push(listener);
  }

  /** Leaves the session's tombstone, then tells the listeners. */
  async #tellEnded(session: Session, reason: SessionEndReason): Promise<void> {
    const now = this.#clock.nowSeconds();
    await this.#records.put(ENDED, session.id, Math.max(session.expiresAt, now) + this.tombstoneSeconds);
    for (const listener of this.#listeners) listener(session, reason);
  }

  addSession(session: Session): Promise<void> {
    return this.#records.put(SESSION, session.id, session);
  }

  saveSession(session: Session): Promise<void> {
    return this.#records.put(SESSION, session.id, session, { ifPresent: true });
  }

  async activeSession(id: string | undefined): Promise<Session | undefined> {
    if (id === undefined) return undefined;
    const s = await this.#records.get(SESSION, id);
    return s !== undefined && s.expiresAt > this.#clock.nowSeconds() ? s : undefined;
  }

  async sessions(): Promise<Session[]> {
    const now = this.#clock.nowSeconds();
    return (await this.#records.page(SESSION, { limit: Infinity, liveAt: now })).records;
  }

  async sessionPage(after: string | undefined, limit: number): Promise<SessionPage> {
    const now = this.#clock.nowSeconds();
    const page = await this.#records.page(SESSION, {
      ...(after !== undefined ? { after } : {}),
      limit,
      liveAt: now,
    });
    return { sessions: page.records, more: page.more };
  }

  async sessionStatus(id: string): Promise<'active' | 'ended' | 'unknown'> {
    const [session, endedUntil] = await Promise.all([
      this.#records.get(SESSION, id),
      this.#records.get(ENDED, id),
    ]);
    const now = this.#clock.nowSeconds();
    if (session !== undefined) return session.expiresAt > now ? 'active' : 'ended';
    return endedUntil !== undefined && endedUntil > now ? 'ended' : 'unknown';
  }

  async endSession(id: string, reason: SessionEndReason): Promise<boolean> {
    const session = await this.#records.take(SESSION, id);
    const now = this.#clock.nowSeconds();
    if (session === undefined) {
      // A session never held here (tokens minted offline): remember it ended all the same.
      await this.#records.put(ENDED, id, now + this.tombstoneSeconds);
      return false;
    }
    await this.#tellEnded(session, session.expiresAt > now ? reason : 'expired');
    return true;
  }

  async endAllSessions(reason: SessionEndReason): Promise<number> {
    const now = this.#clock.nowSeconds();
    const all = await this.#records.takeExpired(SESSION, Infinity);
    await this.#records.clear(CODE);
    let active = 0;
    for (const session of all) {
      const live = session.expiresAt > now;
      if (live) active++;
      await this.#tellEnded(session, live ? reason : 'expired');
    }
    return active;
  }

  async expireSessions(): Promise<number> {
    const expired = await this.#records.takeExpired(SESSION, this.#clock.nowSeconds());
    for (const session of expired) await this.#tellEnded(session, 'expired');
    return expired.length;
  }

  addCode(grant: CodeGrant): Promise<void> {
    return this.#records.put(CODE, grant.code, grant);
  }

  takeCode(code: string): Promise<CodeGrant | undefined> {
    return this.#records.take(CODE, code);
  }

  markCodeSpent(grant: CodeGrant): Promise<void> {
    return this.#records.put(SPENT, grant.code, { sessionId: grant.sessionId, expiresAt: grant.expiresAt });
  }

  async spentCodeSession(code: string): Promise<string | undefined> {
    const spent = await this.#records.get(SPENT, code);
    return spent !== undefined && spent.expiresAt > this.#clock.nowSeconds() ? spent.sessionId : undefined;
  }

  addPushedRequest(request: PushedRequest): Promise<void> {
    return this.#records.put(PUSHED, request.requestUri, request);
  }

  takePushedRequest(requestUri: string): Promise<PushedRequest | undefined> {
    return this.#records.take(PUSHED, requestUri);
  }

  async addBackchannelRequest(request: BackchannelRequest): Promise<void> {
    const expiresAt = request.expiresAt + BACKCHANNEL_KEEP_S;
    await Promise.all([
      this.#records.put(BACKCHANNEL, request.id, request),
      ...(request.userCode !== undefined
        ? [this.#records.put(USER_CODE, request.userCode, { deviceCode: request.id, expiresAt })]
        : []),
    ]);
  }

  backchannelRequest(id: string): Promise<BackchannelRequest | undefined> {
    return this.#records.get(BACKCHANNEL, id);
  }

  async deviceCodeOf(userCode: string): Promise<string | undefined> {
    return (await this.#records.get(USER_CODE, userCode))?.deviceCode;
  }

  async changeBackchannelRequest<T>(
    id: string,
    change: (current: BackchannelRequest | undefined) => BackchannelChange<T>,
  ): Promise<T> {
    let removed: BackchannelRequest | undefined;
    const result = await this.#records.change(BACKCHANNEL, id, (current) => {
      const made = change(current);
      removed = made.next === null ? current : undefined;
      return made;
    });
    // A request removed takes its user code along.
    const userCode = (removed as BackchannelRequest | undefined)?.userCode;
    if (userCode !== undefined) await this.#records.remove(USER_CODE, userCode);
    return result;
  }

  async backchannelRequests(): Promise<BackchannelRequest[]> {
    return (await this.#records.page(BACKCHANNEL, { limit: Infinity })).records;
  }

  revoke(jti: string, exp: number): Promise<void> {
    return this.#records.put(REVOKED, jti, exp);
  }

  async isRevoked(jti: string | undefined): Promise<boolean> {
    return jti !== undefined && (await this.#records.get(REVOKED, jti)) !== undefined;
  }

  useAssertion(clientId: string, jti: string, exp: number, options: AssertionOptions = {}): Promise<boolean> {
    const used: UsedAssertion =
      options.realUntilMs !== undefined ? { exp, realUntilMs: options.realUntilMs } : exp;
    return this.#records.add(ASSERTION, `${clientId}\u0000${jti}`, used);
  }

  async close(): Promise<void> {}
}
