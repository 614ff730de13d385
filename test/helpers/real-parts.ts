// Real parts some tests need beside Node (Chromium, Docker, redis-server): outside CI a missing part skips
// those tests with a line naming what to install; in CI (CI set) it fails the run, so nothing skips there.
const IN_CI = !['', '0', 'false'].includes((process.env['CI'] ?? '').toLowerCase());

/**
 * Whether the tests needing `part` skip here: `problem` says why the part cannot be used (undefined when it
 * can), `install` how to get it. In CI a problem throws instead.
 */
export function skipWithout(part: string, problem: string | undefined, install: string): boolean {
  if (problem === undefined) return false;
  if (IN_CI)
    throw new Error(`CI is set, so the tests that need ${part} must run, but ${problem}: ${install}`);
  console.warn(`tests that need ${part} skipped: ${problem} (${install}; with CI set this fails)`);
  return true;
}
