// The Testcontainers example in the docs is readme-example.test.ts (and users.yaml) without the Docker guard.
// It runs without Docker, so CI's container test is known to show what the docs show.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { docPages } from '../helpers/markdown.js';

const read = (path: string): string => readFileSync(new URL(path, import.meta.url), 'utf8');

/** The file as the docs show it: no header comment, no `// guard` lines, a plain `describe(`. */
function asDocumented(path: string): string {
  return read(path)
    .split('\n')
    .slice(1)
    .filter((line) => !line.endsWith('// guard'))
    .join('\n')
    .replace('describe.skipIf(skipContainerTests)(', 'describe(')
    .trim();
}

// A page of the README or docs/ must hold the example verbatim.
const docs = docPages()
  .map((p) => p.text)
  .filter((text) => text.includes("from 'mock-idp/testcontainers'"));

describe('the documented Testcontainers example', () => {
  it('is in the docs', () => {
    expect(docs.length).toBeGreaterThan(0);
  });

  it.each(['./readme-example.test.ts', './users.yaml'])('shows %s verbatim', (path) => {
    const shown = asDocumented(path);
    expect(docs.some((text) => text.includes(shown))).toBe(true);
  });
});
