// The Testcontainers example in the docs is readme-example.test.ts (and users.yaml) without the Docker guard.
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

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

// The README must hold the example verbatim.
const docs = ['../../README.md']
  .filter((path) => existsSync(new URL(path, import.meta.url)))
  .map(read)
  .filter((text) => text.includes("from 'mock-idp/testcontainers'"));

describe('the documented Testcontainers example', () => {
  it('is in the README', () => {
    expect(docs.length).toBeGreaterThan(0);
  });

  it.each(['./readme-example.test.ts', './users.yaml'])('shows %s verbatim', (path) => {
    const shown = asDocumented(path);
    expect(docs.some((text) => text.includes(shown))).toBe(true);
  });
});
