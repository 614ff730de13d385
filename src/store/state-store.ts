// The state-store contract: where a realm keeps sessions, authorization codes, revoked tokens, used assertion
// ids and ended-session tombstones. Async, so a shared store (Redis) can hold it as the memory one does. One
// implementation (realm-state.ts) over a small record store (record-store.ts: memory or Redis).
import type { FaultStore } from './faults.js';
import type { RealmEvents } from './events.js';
import type { JournalStore } from './journal.js';
import type { ApiVersion, Method } from '../fixtures/versions.js';

/** The clock tolerance client assertions are verified with, in seconds (assertion ids are kept that long more). */
export const ASSERTION_TOLERANCE_S = 5;

/** How long {@link StateStore.useAssertion} keeps an id. */
export interface AssertionOptions {
  /**
   * Keep the id by the real clock alone, until this instant (epoch ms), whatever the mock clock shows: for a
   * DPoP proof, valid while the mock or the real clock is within its `iat` window (the mock clock may stand
   * still or jump). Without it, an id is kept until both the mock and the real clock have passed `exp` plus the
   * assertion tolerance.
   */
  realUntilMs?: number;
}

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
  codeChallenge?: string;
  codeChallengeMethod?: 'S256' | 'plain';
  /** `dpop_jkt` of the authorize request: the exchange needs a DPoP proof of that key. */
  dpopJkt?: string;
  expiresAt: number;
  /** The interface version of the sign-in; absent (a code stored before versions): 1. */
  apiVersion?: ApiVersion;
  /** The method acr_values picked, if any. */
  method?: Method;
}

/** A pushed authorization request (RFC 9126), waiting for the authorize request that names its request_uri. */
export interface PushedRequest {
  requestUri: string;
  clientId: string;
  /** The authorize parameters as checked at the push (a request object's already applied). */
  params: Record<string, string>;
  expiresAt: number;
}

/** A back-channel sign-in waiting for a user's decision: a device authorization (RFC 8628) or a CIBA request. */
export interface BackchannelRequest {
  kind: 'device' | 'ciba';
  /** The device_code, or the CIBA auth_req_id. */
  id: string;
  /** The device flow's user_code (`ABCD-EFGH`). */
  userCode?: string;
  clientId: string;
  scopes: string[];
  /** CIBA: the user the login_hint named; device: the user who approved. */
  username?: string;
  /** CIBA's binding_message, shown to the user (the inspector shows it). */
  bindingMessage?: string;
  status: 'pending' | 'approved' | 'denied';
  /** When the user decided, epoch seconds. */
  decidedAt?: number;
  /** The least number of seconds between two polls; slow_down adds 5. */
  interval: number;
  /** The last poll at the token endpoint, epoch seconds. */
  polledAt?: number;
  /** The last poll in real time, epoch milliseconds (a poll is too fast only when so in both times). */
  polledRealMs?: number;
  createdAt: number;
  expiresAt: number;
  /** CIBA: approved by itself at this instant (cibaAutoApproveSeconds), epoch seconds. */
  autoApproveAt?: number;
  /** The interface version of the tokens it gives. */
  apiVersion: ApiVersion;
}

/** What a change of a back-channel request writes: the new record, null to remove it, undefined for nothing. */
export interface BackchannelChange<T> {
  next: BackchannelRequest | null | undefined;
  result: T;
}

/** How long a back-channel request is kept past its expiry, so a late poll hears expired_token. */
export const BACKCHANNEL_KEEP_S = 3600;

export interface SessionPage {
  sessions: Session[];
  /** Another active session follows the last one of this page. */
  more: boolean;
}

/**
 * Where a realm keeps sessions, codes, revocations, assertion ids and ended-session tombstones. Every method
 * may reach a shared store: callers await it. Expiry is decided on the mock clock; a shared store's own TTLs
 * only clean up.
 */
export interface StateStore {
  /** The faults injected through POST /mock/faults, waiting for requests. */
  readonly faults: FaultStore;
  /** The request journal (GET /mock/requests). */
  readonly journal: JournalStore;
  /** The realm's Keycloak events (user events and admin events). */
  readonly events: RealmEvents;
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
  /**
   * A page of the active sessions in the order of their ids (code-unit order, as Redis compares bytes):
   * at most `limit` with an id after `after` (exclusive; any string, the session need not exist any more),
   * and whether more follow. Walking the pages lists every session active throughout exactly once.
   */
  sessionPage(after: string | undefined, limit: number): Promise<SessionPage>;
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
  addPushedRequest(request: PushedRequest): Promise<void>;
  /** Removes and returns a pushed request, atomically: a request_uri is single-use. Expiry is the caller's check. */
  takePushedRequest(requestUri: string): Promise<PushedRequest | undefined>;
  addBackchannelRequest(request: BackchannelRequest): Promise<void>;
  /** A device authorization or CIBA request by its device_code or auth_req_id (expired ones too, for a while). */
  backchannelRequest(id: string): Promise<BackchannelRequest | undefined>;
  /** The device_code of a user_code (as stored, `ABCD-EFGH`). */
  deviceCodeOf(userCode: string): Promise<string | undefined>;
  /**
   * Changes a back-channel request atomically: `change` sees the stored record (undefined: none) and says
   * what to write; with a shared store it runs again when another process wrote meanwhile. Returns its result.
   */
  changeBackchannelRequest<T>(
    id: string,
    change: (current: BackchannelRequest | undefined) => BackchannelChange<T>,
  ): Promise<T>;
  /** Every back-channel request held (pending, decided or expired but not yet removed). */
  backchannelRequests(): Promise<BackchannelRequest[]>;
  revoke(jti: string, exp: number): Promise<void>;
  isRevoked(jti: string | undefined): Promise<boolean>;
  /** Records a client assertion or DPoP proof id, atomically; false when it was seen before (replay). */
  useAssertion(clientId: string, jti: string, exp: number, options?: AssertionOptions): Promise<boolean>;
  /** Releases connections; the memory store has none. */
  close(): Promise<void>;
}
