// What the device flow (RFC 8628) and CIBA poll mode share: a request stored until the user decides, polled at
// the token endpoint (authorization_pending, slow_down, access_denied, expired_token), a
// decision from the /device page or the QA API, and the token set of an approved request, once.
import { Clock } from '../clock.js';
import { isDisabled, type Client } from '../fixtures/realm.js';
import type { RealmContext } from '../realm/context.js';
import type { BackchannelRequest } from '../store/state-store.js';
import type { Grant } from '../tokens/claims.js';
import { invalidGrant, OAuthError } from './errors.js';
import { signedIn } from './grants/grant.js';

/** What slow_down adds to a request's interval (RFC 8628 §3.5). */
const SLOW_DOWN_STEP_S = 5;

/** The default least interval between two polls, seconds (Keycloak's and RFC 8628's). */
export const DEFAULT_INTERVAL_S = 5;

export type BackchannelKind = BackchannelRequest['kind'];

/** Words for each kind in error descriptions. */
const NAMES: Record<BackchannelKind, { what: string; param: string }> = {
  device: { what: 'Device code', param: 'device_code' },
  ciba: { what: 'Authentication request', param: 'auth_req_id' },
};

/** The status a request has now: a pending CIBA request past its auto-approval instant is approved. */
export function statusAt(r: BackchannelRequest, now: number): BackchannelRequest['status'] {
  if (r.status === 'pending' && r.autoApproveAt !== undefined && r.autoApproveAt <= now) return 'approved';
  return r.status;
}

type PollOutcome = { ok: true; request: BackchannelRequest } | { ok: false; error: OAuthError };

/** The instants of a poll: mock epoch seconds, and real epoch milliseconds (for the interval only). */
interface PollTime {
  now: number;
  realMs: number;
}

/**
 * Seconds since the last poll, or undefined when it came no sooner than the interval: a poll is too fast only
 * when it is so both on the mock clock and in real time (a frozen or moved-back clock does not make a client
 * that waits in real time too fast, and a test that moves the clock on need not wait).
 */
function tooSoon(r: BackchannelRequest, { now, realMs }: PollTime): number | undefined {
  if (r.polledAt === undefined) return undefined;
  const mockElapsed = now - r.polledAt;
  const realElapsed =
    r.polledRealMs !== undefined ? Math.floor((realMs - r.polledRealMs) / 1000) : mockElapsed;
  const elapsed = Math.max(mockElapsed, realElapsed);
  return elapsed < r.interval ? elapsed : undefined;
}

/** One poll's answer for the stored request `r` of `client`, at `time`, and what to write back. */
function pollOutcome(
  kind: BackchannelKind,
  r: BackchannelRequest | undefined,
  client: Client,
  time: PollTime,
): { next: BackchannelRequest | null | undefined; result: PollOutcome } {
  const { what, param } = NAMES[kind];
  const { now } = time;
  const refuse = (error: OAuthError, next: BackchannelRequest | null | undefined = undefined) => ({
    next,
    result: { ok: false as const, error },
  });
  if (r === undefined || r.kind !== kind)
    return refuse(invalidGrant(`${what} not valid: unknown ${param}, or already used (it is single-use)`));
  if (r.clientId !== client.id) return refuse(invalidGrant(`${what} was issued to another client`));
  if (r.expiresAt <= now)
    return refuse(
      new OAuthError(
        'expired_token',
        `${what} has expired: start a new ${kind === 'device' ? 'device authorization' : 'authentication request'}`,
      ),
    );
  const status = statusAt(r, now);
  if (status === 'denied')
    return refuse(new OAuthError('access_denied', 'The user denied the authorization request'), null);
  if (status === 'approved') {
    const decidedAt = r.decidedAt ?? r.autoApproveAt ?? now;
    return { next: null, result: { ok: true, request: { ...r, status, decidedAt } } };
  }
  // Pending. Polled again before the interval has passed: slow down, for good (RFC 8628 §3.5).
  const polled = { polledAt: now, polledRealMs: time.realMs };
  const elapsed = tooSoon(r, time);
  if (elapsed !== undefined) {
    const interval = r.interval + SLOW_DOWN_STEP_S;
    return refuse(
      new OAuthError(
        'slow_down',
        `Polled ${elapsed} s after the last poll, less than the interval of ${r.interval} s: poll every ${interval} s from now on`,
      ),
      { ...r, ...polled, interval },
    );
  }
  return refuse(
    new OAuthError('authorization_pending', 'The user has not yet approved or denied the request'),
    { ...r, ...polled },
  );
}

/**
 * A poll of `client` for request `id` at the token endpoint: the approved request, taken (single-use), or
 * throws the RFC 8628 / CIBA error.
 */
export async function pollBackchannel(
  p: RealmContext,
  kind: BackchannelKind,
  id: string,
  client: Client,
): Promise<BackchannelRequest> {
  const time = { now: p.clock.nowSeconds(), realMs: Clock.realMs() };
  const outcome = await p.store.changeBackchannelRequest(id, (r) => pollOutcome(kind, r, client, time));
  if (!outcome.ok) throw outcome.error;
  return outcome.request;
}

type Decision = 'approve' | 'deny';

export type DecideResult =
  | { ok: true; request: BackchannelRequest }
  | { ok: false; why: 'unknown' | 'expired' | 'decided'; request?: BackchannelRequest };

/** Records the user's decision on a pending request (`username` the user who approved a device request). */
export async function decideBackchannel(
  p: RealmContext,
  kind: BackchannelKind,
  id: string,
  decision: Decision,
  username?: string,
): Promise<DecideResult> {
  const now = p.clock.nowSeconds();
  return p.store.changeBackchannelRequest<DecideResult>(id, (r) => {
    if (r === undefined || r.kind !== kind) return { next: undefined, result: { ok: false, why: 'unknown' } };
    if (r.expiresAt <= now) return { next: undefined, result: { ok: false, why: 'expired', request: r } };
    if (statusAt(r, now) !== 'pending')
      return { next: undefined, result: { ok: false, why: 'decided', request: r } };
    const next: BackchannelRequest = {
      ...r,
      status: decision === 'approve' ? 'approved' : 'denied',
      decidedAt: now,
      ...(username !== undefined ? { username } : {}),
    };
    return { next, result: { ok: true, request: next } };
  });
}

/** The grant an approved request gives: its user, signed in when they decided, in a new session. */
export async function approvedGrant(
  p: RealmContext,
  request: BackchannelRequest,
  client: Client,
  issuer: string,
): Promise<Grant> {
  const { what } = NAMES[request.kind];
  const username = request.username;
  const subject = username !== undefined ? p.realm.users.get(username) : undefined;
  if (username === undefined || subject === undefined)
    throw invalidGrant(`${what} not valid: user "${username ?? ''}" no longer exists`);
  if (isDisabled(p.realm, username)) throw invalidGrant(`${what} not valid: user "${username}" is disabled`);
  const { scopes, apiVersion } = request;
  const authTime = request.decidedAt ?? p.clock.nowSeconds();
  return signedIn(p, { client, issuer }, { user: subject, scopes, apiVersion, authTime });
}

/** `XXXX-XXXX` from what a person typed (any case, with or without the dash or spaces); undefined if not 8 letters. */
export function normaliseUserCode(typed: string): string | undefined {
  const letters = typed.toUpperCase().replace(/[\s-]/g, '');
  return /^[A-Z]{8}$/.test(letters) ? `${letters.slice(0, 4)}-${letters.slice(4)}` : undefined;
}

/** A pending device request by the user code a person typed, or why there is none. */
export async function deviceRequestByUserCode(
  p: RealmContext,
  typed: string,
): Promise<{ ok: true; request: BackchannelRequest } | { ok: false; problem: string; status: number }> {
  const userCode = normaliseUserCode(typed);
  if (userCode === undefined)
    return {
      ok: false,
      status: 400,
      problem: `"${typed.slice(0, 40)}" is not a code: it has 8 letters, like WDJB-MJHT`,
    };
  const id = await p.store.deviceCodeOf(userCode);
  const request = id !== undefined ? await p.store.backchannelRequest(id) : undefined;
  if (request === undefined)
    return {
      ok: false,
      status: 404,
      problem: `No device is waiting for code ${userCode}: check the code your device shows`,
    };
  const now = p.clock.nowSeconds();
  if (request.expiresAt <= now)
    return { ok: false, status: 400, problem: `Code ${userCode} has expired: start again on your device` };
  if (statusAt(request, now) !== 'pending')
    return {
      ok: false,
      status: 409,
      problem: `Code ${userCode} was already ${request.status === 'denied' ? 'denied' : 'used'}`,
    };
  return { ok: true, request };
}
