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

export interface SoakVerdict {
  pass: boolean;
  /** RSS at the first sample of the last half and at the last sample, MiB, and the growth between them. */
  halfRssMiB: number | null;
  endRssMiB: number | null;
  growth: number | null;
  reasons: string[];
}

/**
 * Fails when RSS grew by more than `maxGrowth` (0.10: 10 %) from the first sample of the last half of the
 * run to the last sample, when any request was answered unexpectedly (a 5xx, a refusal of a fresh token),
 * or when the last half holds fewer than two samples (too short to judge).
 */
export function soakVerdict(samples: readonly SoakSample[], durationS: number, maxGrowth = 0.1): SoakVerdict {
  const reasons: string[] = [];
  const lastHalf = samples.filter((s) => s.t >= durationS / 2);
  const first = lastHalf[0];
  const last = lastHalf[lastHalf.length - 1];
  let growth: number | null = null;
  if (first === undefined || last === undefined || lastHalf.length < 2)
    reasons.push(`too few samples in the last half of the run (${lastHalf.length}; at least 2)`);
  else {
    growth = last.rssMiB / first.rssMiB - 1;
    if (growth > maxGrowth)
      reasons.push(
        `RSS grew by ${(growth * 100).toFixed(1)} % over the last half (${first.rssMiB} → ${last.rssMiB} MiB; at most ${maxGrowth * 100} %)`,
      );
  }
  const unexpected = samples.reduce((n, s) => n + s.unexpected, 0);
  if (unexpected > 0) reasons.push(`${unexpected} requests answered unexpectedly`);
  if (samples.reduce((n, s) => n + s.requests, 0) === 0) reasons.push('no request was answered');
  return {
    pass: reasons.length === 0,
    halfRssMiB: first?.rssMiB ?? null,
    endRssMiB: last?.rssMiB ?? null,
    growth,
    reasons,
  };
}
