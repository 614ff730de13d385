// A library call's options checked for names it does not know: a typo (`fixturez`) is refused, not ignored.
import { z } from 'zod';
import { describeIssues } from './zod-issues.js';

/**
 * Throws a TypeError naming every option of `given` not in `known`, with "did you mean". Types are the
 * compiler's business; a name it cannot check (plain JavaScript, an object built at run time) is checked here.
 */
export function refuseUnknownOptions(call: string, known: readonly string[], given: object): void {
  const schema = z.strictObject(Object.fromEntries(known.map((name) => [name, z.unknown().optional()])));
  const result = schema.safeParse(given);
  if (result.success) return;
  const problems = describeIssues(schema, result.error.issues, given, {
    member: 'option',
    name: (path) => path.join('.'),
    rootNamed: false,
  });
  throw new TypeError(`${call}: ${problems.map((p) => p.message).join('; ')}`);
}
