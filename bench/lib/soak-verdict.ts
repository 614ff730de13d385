// The soak run's judgement, kept pure so that a test can feed it made-up samples: memory must level off
// once sessions expire and the journal is full, and the load must be answered as a working server answers.

/** One sample, taken every 10 s. */
export interface SoakSample {
  /** Seconds since the load began. */
  t: number;
  /** The server's resident memory (VmRSS), MiB. */
  rssMiB: number;
  /** GET /health round trips at the sample: median and largest, ms (event-loop delay plus the HTTP). */
  healthMs: { median: number; max: number };
  /** Live sessions, counted through GET /mock/sessions. */
  sessions: number;
  /** Requests answered since the previous sample, and how many of them not as expected. */
  requests: number;
  unexpected: number;
}

interface SoakVerdict {
  pass: boolean;
  /** The highest RSS sampled in the first and in the last half of the run, MiB, and the growth between. */
  firstHalfPeakMiB: number | null;
  lastHalfPeakMiB: number | null;
  growth: number | null;
  reasons: string[];
}

const peak = (samples: readonly SoakSample[]): number => Math.max(...samples.map((s) => s.rssMiB));

/**
 * Fails when the highest RSS of the last half of the run is more than `maxGrowth` (0.10: 10 %) above the
 * highest of the first half, when any request was answered unexpectedly (a 5xx, a refusal of a fresh
 * token), or when a half holds fewer than two samples (too short to judge). Peaks, not single samples:
 * RSS climbs while garbage waits for a major collection and falls after it, wherever that falls in the run;
 * what leaks raises every peak.
 */
export function soakVerdict(samples: readonly SoakSample[], durationS: number, maxGrowth = 0.1): SoakVerdict {
  const reasons: string[] = [];
  const firstHalf = samples.filter((s) => s.t < durationS / 2);
  const lastHalf = samples.filter((s) => s.t >= durationS / 2);
  let first: number | null = null;
  let last: number | null = null;
  let growth: number | null = null;
  if (firstHalf.length < 2 || lastHalf.length < 2)
    reasons.push(
      `too few samples to judge (${firstHalf.length} in the first half, ${lastHalf.length} in the last; at least 2 each)`,
    );
  else {
    first = peak(firstHalf);
    last = peak(lastHalf);
    growth = last / first - 1;
    if (growth > maxGrowth)
      reasons.push(
        `RSS grew by ${(growth * 100).toFixed(1)} % over the last half (peak ${first} → ${last} MiB; at most ${maxGrowth * 100} %)`,
      );
  }
  const unexpected = samples.reduce((n, s) => n + s.unexpected, 0);
  if (unexpected > 0) reasons.push(`${unexpected} requests answered unexpectedly`);
  if (samples.reduce((n, s) => n + s.requests, 0) === 0) reasons.push('no request was answered');
  return { pass: reasons.length === 0, firstHalfPeakMiB: first, lastHalfPeakMiB: last, growth, reasons };
}
