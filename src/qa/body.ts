// Request bodies of the QA API: zod validation with every problem named, answered as invalid_request.
import { z } from 'zod';
import { ClockRangeError, parseInstant } from '../clock.js';
import { RESERVED_MEMBER, reservedMemberPaths } from '../json-limits.js';
import { invalidRequest } from '../oauth/errors.js';
import { describeIssues, type IssueWording } from '../zod-issues.js';

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

/** QA bodies name a field by its dotted path, as a script writes it. */
const BODY_WORDING: IssueWording = {
  member: 'field',
  name: (path) => (path.length > 0 ? path.join('.') : 'body'),
  rootNamed: false,
};

/** One line per problem, so a typo in a script is found at once. */
function describeBody(schema: z.ZodType, issues: readonly z.core.$ZodIssue[], body: unknown): string {
  return describeIssues(schema, issues, body, BODY_WORDING)
    .map((p) => p.message)
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
  if (!result.success)
    throw invalidRequest(`Invalid ${what}: ${describeBody(schema, result.error.issues, body ?? {})}`);
  return result.data;
}
