// The judgements of `npm run chaos` and `npm run soak` on made-up requests and samples: a run that should
// fail does fail, and a fault's unavailability or an emptied Redis's lost state is not counted as wrong.
import { describe, expect, it } from 'vitest';
import {
  chaosPasses,
  judge,
  tally,
  type Attempt,
  type FaultWindow,
  type Issued,
  type Verdict,
} from '../bench/lib/chaos-verdict.js';
import { soakVerdict, type SoakSample } from '../bench/lib/soak-verdict.js';

/** Replica 1 killed at 10 s, back at 11 s, recovered at 12 s; Redis paused 20–23 s; emptied 30–31 s. */
const windows: FaultWindow[] = [
  { kind: 'kill', replica: 1, start: 10_000, end: 11_000, recovered: 12_000 },
  { kind: 'pause', start: 20_000, end: 23_000, recovered: 23_500 },
  { kind: 'empty', start: 30_000, end: 31_000, recovered: 32_000 },
];

const at = (start: number, fields: Partial<Attempt>): Attempt => ({
  step: 'introspect',
  replica: 0,
  start,
  end: start + 50,
  status: 200,
  accepted: true,
  expect: 'ok',
  ...fields,
});
const issued = (replica: number, start: number): Issued => ({ replica, start, end: start + 50 });

describe('chaos: judge()', () => {
  it.each<[string, Attempt, Verdict, string | undefined]>([
    ['an accepted token', at(5000, {}), 'ok', undefined],
    ['a 500 at a healthy replica', at(5000, { status: 500, accepted: false }), 'wrong', 'HTTP 500'],
    ['a 500 during a fault', at(21_000, { status: 500, accepted: false }), 'wrong', 'HTTP 500'],
    [
      'a 503 while Redis is stopped',
      at(21_000, { status: 503, accepted: false, error: 'temporarily_unavailable' }),
      'unavailable',
      'during pause',
    ],
    [
      'a 503 before Redis recovered at every replica',
      at(23_400, { status: 503, accepted: false }),
      'unavailable',
      'during pause',
    ],
    [
      'a 503 with Redis up and every replica running',
      at(5000, { status: 503, accepted: false, error: 'temporarily_unavailable' }),
      'wrong',
      'refused by healthy replica 0: HTTP 503',
    ],
    [
      'no answer from the killed replica',
      at(10_500, { replica: 1, status: null, accepted: false, error: 'ECONNREFUSED' }),
      'unavailable',
      'during kill',
    ],
    [
      'no answer from a replica that was not killed',
      at(10_500, { replica: 2, status: null, accepted: false, error: 'ECONNREFUSED' }),
      'wrong',
      'no answer (ECONNREFUSED)',
    ],
    [
      "the killed replica's token refused by another after it recovered",
      at(15_000, { status: 200, accepted: false, issued: issued(1, 9000) }),
      'wrong',
      'introspect issued by healthy replica 1, refused by healthy replica 0: HTTP 200',
    ],
    [
      'a token the killed replica issued while going down',
      at(15_000, { status: 400, error: 'invalid_grant', accepted: false, issued: issued(1, 10_000) }),
      'unavailable',
      'issued during kill',
    ],
    [
      'a token issued before Redis was emptied, refused after',
      at(35_000, {
        step: 'refresh',
        status: 400,
        error: 'invalid_grant',
        accepted: false,
        issued: issued(2, 25_000),
      }),
      'lost',
      'issued before Redis was emptied',
    ],
    [
      'a token issued after the emptied Redis recovered, refused by another replica',
      at(35_000, {
        step: 'refresh',
        status: 400,
        error: 'invalid_grant',
        accepted: false,
        issued: issued(2, 33_000),
      }),
      'wrong',
      'refresh issued by healthy replica 2, refused by healthy replica 0: HTTP 400 invalid_grant',
    ],
    [
      'a token issued before Redis was emptied, answered 503 later with Redis up',
      at(35_000, { status: 503, accepted: false, issued: issued(2, 25_000) }),
      'wrong',
      'HTTP 503',
    ],
    [
      'a token issued before a Redis pause, refused after it',
      at(26_000, { status: 200, accepted: false, issued: issued(2, 15_000) }),
      'wrong',
      'issued by healthy replica 2',
    ],
    [
      'a code replayed and refused',
      at(5000, { step: 'replay', status: 400, error: 'invalid_grant', accepted: false, expect: 'refused' }),
      'ok',
      undefined,
    ],
    [
      'a code accepted twice',
      at(5000, { step: 'replay', replica: 2, accepted: true, expect: 'refused' }),
      'wrong',
      'a code accepted twice (again at replica 2)',
    ],
    [
      'a code accepted twice while Redis is stopped',
      at(21_000, { step: 'replay', accepted: true, expect: 'refused' }),
      'wrong',
      'a code accepted twice',
    ],
    [
      'a revoked refresh token accepted',
      at(5000, { step: 'reuse', accepted: true, expect: 'refused' }),
      'wrong',
      'a revoked refresh token accepted at replica 0',
    ],
    [
      'a replay unanswered during a fault',
      at(21_000, { step: 'replay', status: 503, accepted: false, expect: 'refused' }),
      'unavailable',
      'during pause',
    ],
  ])('%s: %s', (_name, attempt, verdict, why) => {
    const judged = judge(attempt, windows);
    expect(judged.verdict).toBe(verdict);
    if (why !== undefined) expect(judged.why).toContain(why);
  });
});

describe('chaos: tally() and chaosPasses()', () => {
  const clean = [at(1000, {}), at(21_000, { status: 503, accepted: false }), at(35_000, { status: 302 })];

  it('counts answers by status and verdict', () => {
    const t = tally([...clean, at(36_000, { status: null, accepted: false, error: 'ECONNRESET' })], windows);
    expect(t).toMatchObject({
      requests: 4,
      byStatus: { '200': 1, '302': 1, '503': 1, none: 1 },
      ok: 2,
      unavailable: 1,
      lost: 0,
      wrong: 1,
      wrongWhy: {
        'introspect refused by healthy replica N: no answer (ECONNRESET)': 1,
      },
    });
  });

  it.each<[string, Attempt[], FaultWindow[], boolean]>([
    ['no wrong answer, every fault recovered', clean, windows, true],
    ['one wrong answer', [...clean, at(40_000, { status: 500, accepted: false })], windows, false],
    [
      'a fault that never recovered',
      clean,
      [...windows, { kind: 'aof', start: 40_000, end: 41_000, recovered: Infinity }],
      false,
    ],
    ['no request at all', [], windows, false],
  ])('%s: passes %s', (_name, attempts, w, pass) => {
    expect(chaosPasses(tally(attempts, w), w)).toBe(pass);
  });
});

describe('soak: soakVerdict()', () => {
  /** Samples every 10 s of a 120 s run with these RSS values. */
  const run = (rss: number[], unexpected = 0): SoakSample[] =>
    rss.map((rssMiB, i) => ({
      t: (i + 1) * 10,
      rssMiB,
      healthMs: { median: 1, max: 2 },
      sessions: 500,
      requests: 600,
      unexpected: i === rss.length - 1 ? unexpected : 0,
    }));

  it.each<[string, SoakSample[], boolean, string | undefined]>([
    ['flat', run([90, 95, 100, 100, 101, 100, 100, 101, 100, 99, 100, 100]), true, undefined],
    [
      'growing in the first half only',
      run([60, 70, 80, 90, 100, 100, 100, 100, 101, 102, 103, 104]),
      true,
      undefined,
    ],
    [
      'climbing until a major GC in the last half',
      run([90, 100, 110, 115, 117, 117, 119, 120, 121, 87, 92, 93]),
      true,
      undefined,
    ],
    [
      'climbing after a major GC in the middle',
      run([90, 100, 110, 115, 117, 87, 90, 93, 96, 99, 102, 105]),
      true,
      undefined,
    ],
    [
      'growing by 12 % over the last half',
      run([90, 95, 100, 100, 100, 100, 102, 104, 106, 108, 110, 112]),
      false,
      'RSS grew by 12.0 % over the last half (peak 100 → 112 MiB; at most 10 %)',
    ],
    [
      'a sawtooth whose peaks rise',
      run([100, 110, 100, 110, 100, 110, 105, 116, 105, 116, 110, 122]),
      false,
      'RSS grew by 10.9 % over the last half (peak 110 → 122 MiB; at most 10 %)',
    ],
    [
      'a request answered unexpectedly',
      run([100, 100, 100, 100, 100, 100, 100], 1),
      false,
      '1 requests answered unexpectedly',
    ],
    [
      'too short to judge',
      run([100, 100, 100, 100, 100]),
      false,
      'too few samples to judge (5 in the first half, 0 in the last; at least 2 each)',
    ],
  ])('%s: passes %s', (_name, samples, pass, reason) => {
    const v = soakVerdict(samples, 120);
    expect(v.pass).toBe(pass);
    if (reason !== undefined) expect(v.reasons).toContain(reason);
    else expect(v.reasons).toEqual([]);
  });

  it('compares the highest sample of each half', () => {
    expect(soakVerdict(run([50, 60, 70, 80, 100, 90, 95, 100, 104, 90, 95, 100]), 120)).toMatchObject({
      firstHalfPeakMiB: 100,
      lastHalfPeakMiB: 104,
      pass: true,
    });
  });
});
