// Shared assertions: an OAuth error answer is {error, error_description} with the expected status.
import { expect } from 'vitest';

export function expectOAuthError(
  answer: { status: number; json: unknown },
  status: number,
  error: string,
): void {
  expect(answer.status, JSON.stringify(answer.json)).toBe(status);
  const body = answer.json as { error?: unknown; error_description?: unknown };
  expect(body.error).toBe(error);
  expect(typeof body.error_description).toBe('string');
  expect((body.error_description as string).length).toBeGreaterThan(0);
}

/** No stack trace or source path in an answer body. */
export function expectNoStack(text: string): void {
  expect(text).not.toMatch(/\n\s+at |\bat .*\.(ts|js):\d+|node_modules|[/\\]src[/\\]/);
}
