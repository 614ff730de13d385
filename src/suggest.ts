// "Did you mean …?": the closest known word to a typo, for unknown commands, fixture keys and flags.

/** Optimal string alignment distance (Levenshtein with adjacent transpositions). */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i]);
  for (let j = 0; j <= b.length; j++) (d[0] as number[])[j] = j;
  for (let i = 1; i <= a.length; i++) {
    const row = d[i] as number[];
    const prev = d[i - 1] as number[];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min((prev[j] as number) + 1, (row[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(row[j] as number, ((d[i - 2] as number[])[j - 2] as number) + 1);
    }
  }
  return (d[a.length] as number[])[b.length] as number;
}

/**
 * The known word closest to `word`, when it is close enough to be a typo: case aside, at most a third of
 * its letters edited (at least one edit allowed), and no tie with another word at the same distance.
 */
export function closest(word: string, known: Iterable<string>): string | undefined {
  const limit = Math.max(1, Math.floor(word.length / 3));
  let best: string | undefined;
  let bestDistance = Infinity;
  let tie = false;
  for (const candidate of new Set(known)) {
    if (candidate === word) return undefined;
    const distance = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (distance > limit) continue;
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
      tie = false;
    } else if (distance === bestDistance) tie = true;
  }
  return tie ? undefined : best;
}

/** ` (did you mean "x"?)`, or nothing. */
export function didYouMean(word: string, known: Iterable<string>, quote = '"'): string {
  const match = closest(word, known);
  return match === undefined ? '' : ` (did you mean ${quote}${match}${quote}?)`;
}
