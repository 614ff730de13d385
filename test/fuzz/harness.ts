// The fuzz harness: raw HTTP requests (any method, header and body), the invariants every answer must keep,
// and the fast-check settings (FUZZ_RUNS, FUZZ_SEED) shared by `npm test` and `npm run fuzz`.
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { rawRequest, type RawAnswer, type RawRequest } from '../helpers/http.js';

/**
 * Runs per property: `base` in `npm test` (about half a minute in all on a laptop); `FUZZ_RUNS=N` scales
 * every property to N% of its base (`npm run fuzz` defaults to 2000, twenty times as many).
 */
export function runsFor(base: number): number {
  const scale = Number(process.env['FUZZ_RUNS'] ?? '');
  return Number.isFinite(scale) && scale > 0 ? Math.max(1, Math.round((scale * base) / 100)) : base;
}

/** A fixed seed, so a failure reproduces; `FUZZ_SEED=n` explores other inputs. */
const SEED = Number(process.env['FUZZ_SEED'] ?? 20_261_123);

export const fcOptions = (base: number) => ({ numRuns: runsFor(base), seed: SEED, endOnFailure: true });

export type { RawAnswer, RawRequest };

/** Sends a request exactly as given; a dropped connection or a timeout rejects (an invariant failure). */
export function send(origin: string, req: RawRequest, timeoutMs?: number): Promise<RawAnswer> {
  // FUZZ_TRACE=1 prints each request before it is sent: the last one is the culprit of a hang.
  if (process.env['FUZZ_TRACE'])
    process.stderr.write(`>> ${req.method} ${req.path} ${JSON.stringify(req.headers)} ${String(req.body)}\n`);
  return rawRequest(origin, req, timeoutMs);
}

/** Statuses each OAuth `error` code may come with (the one error family of src/oauth/errors.ts). */
const STATUS_OF: Record<string, number[]> = {
  invalid_request: [400, 403, 405, 409, 413, 415],
  invalid_client: [401],
  unauthorized_client: [400, 401],
  invalid_grant: [400],
  invalid_scope: [400],
  unsupported_grant_type: [400],
  unsupported_response_type: [400],
  unsupported_token_type: [400],
  invalid_token: [401],
  access_denied: [403],
  login_required: [400],
  invalid_request_object: [400],
  invalid_request_uri: [400],
  invalid_client_metadata: [400],
  invalid_redirect_uri: [400],
  not_found: [404],
  'Realm does not exist': [404],
};

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** A stack frame (`    at fn (/file:line:col)`) or a path of this machine: never in an answer. */
const LEAK = new RegExp(
  `(^|\\n|\\\\n)\\s+at \\S|\\((/|file:|node:)[^)]*:\\d+:\\d+\\)|${ROOT.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}|node_modules/`,
);

/**
 * The invariants of any answer to a client's input: not a 5xx, no stack trace or path, and an OAuth JSON
 * error's status matches its code.
 */
export function expectSound(req: RawRequest, answer: RawAnswer): void {
  const what = `${req.method} ${req.path} → ${answer.status} ${answer.text.slice(0, 300)}`;
  expect(answer.status, what).toBeGreaterThanOrEqual(200);
  expect(answer.status, what).toBeLessThan(500);
  expect(LEAK.test(answer.text), what).toBe(false);
  const type = String(answer.headers['content-type'] ?? '');
  if (!type.startsWith('application/json') || answer.status < 400 || answer.text === '') return;
  const body = JSON.parse(answer.text) as { error?: unknown; error_description?: unknown };
  expect(typeof body.error, what).toBe('string');
  const allowed = STATUS_OF[String(body.error)];
  expect(allowed, `unknown error code: ${what}`).toBeDefined();
  expect(allowed, what).toContain(answer.status);
}
