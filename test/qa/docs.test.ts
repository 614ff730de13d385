// The README's "Scripting edge cases" shows every part of the QA API, the CLI, a script and a test.
// (test/readme.test.ts runs its examples.)
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { codeBlocks, section } from '../helpers/markdown.js';

const qa = section(readFileSync(new URL('../../README.md', import.meta.url), 'utf8'), 'Scripting edge cases');
const blocks = codeBlocks(qa);
const shell = blocks.filter((b) => b.lang === 'sh');

describe('README: Scripting edge cases', () => {
  it.each([
    '/mock/tokens',
    '/mock/clock',
    '/mock/faults',
    '/mock/keys',
    '/mock/sessions',
    '/mock/fixtures',
    'mock-idp token --server',
    'mock-idp token --key',
    '--watch',
  ])('has a runnable example of %s', (part) => {
    expect(shell.map((b) => b.body).join('\n')).toContain(part);
  });

  it('pins its vitest example to a test file', () => {
    expect(blocks.filter((b) => b.file !== undefined).map((b) => b.file)).toEqual([
      'test/qa/docs-example.test.ts',
    ]);
  });
});
