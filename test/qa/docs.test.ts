// docs/qa.md shows every part of the QA API, the CLI, a script and a test.
// (test/readme.test.ts runs its examples.)
import { describe, expect, it } from 'vitest';
import { codeBlocks, page } from '../helpers/markdown.js';

const blocks = codeBlocks(page('docs/qa.md'));
const shell = blocks.filter((b) => b.lang === 'sh');

describe('docs/qa.md', () => {
  it.each([
    '/mock/tokens',
    '/mock/clock',
    '/mock/faults',
    '/mock/keys',
    '/mock/sessions',
    '/mock/fixtures',
    '/mock/requests',
    'mock-idp token --server',
    'mock-idp token --key',
    '--watch',
  ])('has a runnable example of %s', (part) => {
    expect(shell.map((b) => b.body).join('\n')).toContain(part);
  });

  it('pins its vitest examples to test files', () => {
    expect(blocks.filter((b) => b.file !== undefined).map((b) => b.file)).toEqual([
      'test/qa/docs-example.test.ts',
      'test/examples/workbench.test.ts',
    ]);
  });
});
