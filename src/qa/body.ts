// Request bodies of the QA API: zod validation with every problem named, answered as invalid_request.
import { z } from 'zod';
import { ClockRangeError, parseInstant } from '../clock.js';
import { RESERVED_MEMBER, reservedMemberPaths } from '../json-limits.js';
import { invalidRequest } from '../oauth/errors.js';

/** An instant given as ISO-8601 or epoch seconds, as epoch milliseconds. */
export const instantMs = z.union([z.number(), z.string().min(1)]).transform((value, ctx) => {
  try {
    return parseInstant(value);
  } catch (err) {
    ctx.issues.push({
      code: 'custom',
      input: value,
      message:
        err instanceof ClockRangeError && !err.message.startsWith('not ')
          ? err.message
          : 'expected an ISO-8601 instant or epoch seconds',
    });
    return z.NEVER;
  }
});

/** One line per problem: `field: message`, so a typo in a script is found at once. */
function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .flatMap((issue) => {
      const path = issue.path.filter((p) => typeof p !== 'symbol').join('.');
      if (issue.code === 'unrecognized_keys')
        return issue.keys.map((k) => `unknown field "${path !== '' ? `${path}.` : ''}${k}"`);
      return [`${path !== '' ? path : 'body'}: ${issue.message}`];
    })
    .join('; ');
}

/** Parses `body` with `schema`; a bad body throws a 400 invalid_request naming `what` and each problem. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown, what: string): z.output<S> {
  const reserved = reservedMemberPaths(body);
  if (reserved.length > 0)
    throw invalidRequest(
      `Invalid ${what}: ${reserved.map((path) => `${path.join('.')}: "${RESERVED_MEMBER}" cannot be a member name`).join('; ')}`,
    );
  const result = schema.safeParse(body ?? {});
  if (!result.success) throw invalidRequest(`Invalid ${what}: ${describeIssues(result.error.issues)}`);
  return result.data;
}
