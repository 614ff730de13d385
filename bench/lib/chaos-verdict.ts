// The chaos run's judgement, kept pure so that a test can feed it made-up requests: each request is ok,
// unavailable (its replica down or Redis away), lost (its token's state went with an emptied Redis) or wrong.

/** What a request did in the flows of the load. */
export type Step =
  | 'token' // client_credentials
  | 'authorize'
  | 'exchange' // an authorization code exchanged
  | 'replay' // the same code exchanged again: must be refused
  | 'refresh'
  | 'reuse' // a refresh token used after its session was revoked: must be refused
  | 'revoke'
  | 'introspect';

/** Where and when something (a code, a token) was issued: the request that issued it. */
export interface Issued {
  replica: number;
  start: number;
  end: number;
}

/** One request of the load, as the classifier sees it. Times are milliseconds since the run began. */
export interface Attempt {
  step: Step;
  /** The replica the request went to. */
  replica: number;
  start: number;
  end: number;
  /** The HTTP status; null when no answer came (connection refused or reset, timeout). */
  status: number | null;
  /** The OAuth error code of a refusal, or why no answer came. */
  error?: string;
  /** Whether the answer took what it was given: a token 200, an authorize redirect with a code, active:true. */
  accepted: boolean;
  /** What a working provider answers: `refused` for replays and revoked tokens, else `ok`. */
  expect: 'ok' | 'refused';
  /** For a code or token issued earlier: the request that issued it. */
  issued?: Issued;
}

export type FaultKind = 'kill' | 'aof' | 'empty' | 'pause';

/** One injected fault: from when it began to when every replica answered a token request again. */
export interface FaultWindow {
  kind: FaultKind;
  /** The killed replica (`kill` only); Redis faults touch every replica. */
  replica?: number;
  start: number;
  /** When the injection was over: the replica respawned, Redis started again or resumed. */
  end: number;
  /** When every replica had answered a client_credentials request with 200 again; Infinity if never. */
  recovered: number;
}

export type Verdict = 'ok' | 'unavailable' | 'lost' | 'wrong';

interface Judged {
  verdict: Verdict;
  /** Why a request is wrong, unavailable or lost, in words. */
  why?: string;
}

const overlaps = (a: { start: number; end: number }, w: FaultWindow): boolean =>
  a.start <= w.recovered && a.end >= w.start;

/** Whether a fault makes `replica` unhealthy: it is the killed one, or Redis is away for everyone. */
const touches = (w: FaultWindow, replica: number): boolean => w.kind !== 'kill' || w.replica === replica;

/** The fault `replica` was in during `span`, if any. */
function faultAt(
  windows: readonly FaultWindow[],
  replica: number,
  span: { start: number; end: number },
): FaultWindow | undefined {
  return windows.find((w) => touches(w, replica) && overlaps(span, w));
}

/**
 * Judges one request against the faults of the run. Wrong: any 5xx but 503; a code or revoked refresh
 * token accepted again (at any time); a refusal, 503 or missing answer from a healthy replica for
 * something a healthy replica issued. Unavailable: a request to a replica in a fault (down, or Redis away
 * until every replica answered again), or a check of something issued during one. Lost: a refusal of a
 * token issued before Redis was restarted empty (before it recovered), checked after the restart began.
 */
export function judge(a: Attempt, windows: readonly FaultWindow[]): Judged {
  if (a.status !== null && a.status >= 500 && a.status !== 503)
    return { verdict: 'wrong', why: `${a.step} at replica ${a.replica}: HTTP ${a.status}` };
  if (a.expect === 'refused') {
    if (a.accepted)
      return {
        verdict: 'wrong',
        why:
          a.step === 'replay'
            ? `a code accepted twice (again at replica ${a.replica})`
            : `a revoked refresh token accepted at replica ${a.replica}`,
      };
    if (a.status !== null && a.status >= 400 && a.status < 500) return { verdict: 'ok' };
  } else if (a.accepted) return { verdict: 'ok' };

  const answered = a.status === null ? `no answer (${a.error ?? 'no reason'})` : `HTTP ${a.status}`;
  const here = faultAt(windows, a.replica, a);
  if (here !== undefined)
    return { verdict: 'unavailable', why: `${a.step} at replica ${a.replica} during ${here.kind}` };
  if (a.issued !== undefined) {
    const there = faultAt(windows, a.issued.replica, a.issued);
    if (there !== undefined) return { verdict: 'unavailable', why: `${a.step}: issued during ${there.kind}` };
    const emptied = windows.find(
      (w) =>
        w.kind === 'empty' && a.issued !== undefined && a.issued.end <= w.recovered && a.start >= w.start,
    );
    if (emptied !== undefined && a.status !== null && a.status !== 503)
      return { verdict: 'lost', why: `${a.step}: issued before Redis was emptied` };
  }
  const refused = a.status === null || a.status === 503 ? answered : `${answered} ${a.error ?? ''}`.trim();
  const origin = a.issued !== undefined ? ` issued by healthy replica ${a.issued.replica},` : '';
  return { verdict: 'wrong', why: `${a.step}${origin} refused by healthy replica ${a.replica}: ${refused}` };
}

/** The counts of one part of the run (a phase, or all of it). */
export interface Tally {
  requests: number;
  /** Answers by HTTP status; `none` for no answer. */
  byStatus: Record<string, number>;
  ok: number;
  unavailable: number;
  lost: number;
  wrong: number;
  /** The slowest answer (or wait for none), ms. */
  slowestMs: number;
  /** The first few reasons for wrong answers, each with how often it came. */
  wrongWhy: Record<string, number>;
}

/** Counts verdicts and statuses; a wrong answer's reason is kept without replica numbers, to group them. */
export function tally(attempts: readonly Attempt[], windows: readonly FaultWindow[]): Tally {
  const t: Tally = {
    requests: 0,
    byStatus: {},
    ok: 0,
    unavailable: 0,
    lost: 0,
    wrong: 0,
    slowestMs: 0,
    wrongWhy: {},
  };
  for (const a of attempts) {
    t.requests++;
    t.slowestMs = Math.max(t.slowestMs, a.end - a.start);
    const status = a.status === null ? 'none' : String(a.status);
    t.byStatus[status] = (t.byStatus[status] ?? 0) + 1;
    const { verdict, why } = judge(a, windows);
    t[verdict]++;
    if (verdict === 'wrong' && why !== undefined) {
      const key = why.replace(/replica \d+/g, 'replica N');
      t.wrongWhy[key] = (t.wrongWhy[key] ?? 0) + 1;
    }
  }
  return t;
}

/** The run passes when no answer was wrong and every fault recovered. */
export function chaosPasses(total: Tally, windows: readonly FaultWindow[]): boolean {
  return total.wrong === 0 && total.requests > 0 && windows.every((w) => Number.isFinite(w.recovered));
}
