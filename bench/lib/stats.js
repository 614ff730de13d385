// Small statistics helpers.

/** @param {number[]} xs */
export function median(xs) {
  return percentile(xs, 50);
}

/**
 * Nearest-rank percentile (p in 0..100) of an unsorted list; null when empty.
 * @param {number[]} xs
 * @param {number} p
 */
export function percentile(xs, p) {
  if (xs.length === 0) return null;
  const sorted = Float64Array.from(xs).sort();
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return /** @type {number} */ (sorted[rank - 1]);
}

/** Rounds to `d` decimals, keeping null. @param {number | null | undefined} x */
export const round = (x, d = 1) =>
  x == null || !Number.isFinite(x) ? null : Math.round(x * 10 ** d) / 10 ** d;
