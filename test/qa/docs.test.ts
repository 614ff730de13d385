// docs/qa.md runs: its `sh` blocks in order against one live server (as the README test runs them), every
// `# → text` it shows appears in the output, and the vitest block is test/qa/docs-example.test.ts verbatim.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockIdp, type MockIdp } from '../../src/index.js';

const run = promisify(execFile);
const doc = readFileSync(new URL('../../docs/qa.md', import.meta.url), 'utf8');

interface Block {
  lang: string;
  body: string;
  line: number;
  file?: string;
}

function blocks(markdown: string): Block[] {
  const out: Block[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)\s*$/.exec(lines[i] ?? '');
    if (!open) continue;
    // The marker is the nearest line above that is not blank (prettier puts a blank line in between).
    let above = i - 1;
    while (above > 0 && (lines[above] ?? '').trim() === '') above--;
    const marker = /^<!-- file: (\S+) -->$/.exec(lines[above] ?? '');
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i] !== '```'; i++) body.push(lines[i] ?? '');
    out.push({
      lang: open[1] ?? '',
      body: body.join('\n'),
      line: start + 1,
      ...(marker?.[1] ? { file: marker[1] } : {}),
    });
  }
  return out;
}

const all = blocks(doc);
const shell = all.filter((b) => b.lang === 'sh');
const pinned = all.filter((b) => b.file !== undefined);

describe('docs/qa.md', () => {
  let idp: MockIdp;
  beforeAll(async () => {
    idp = await startMockIdp();
  });
  afterAll(async () => {
    await idp.close();
  });

  it('has an example for each part of the QA API, the CLI, a script and a test', () => {
    const text = shell.map((b) => b.body).join('\n');
    for (const part of [
      '/mock/tokens',
      '/mock/clock',
      '/mock/faults',
      '/mock/keys',
      '/mock/sessions',
      '/mock/fixtures',
    ])
      expect(text).toContain(part);
    expect(text).toContain('mock-idp token --server');
    expect(text).toContain('mock-idp token --key');
    expect(text).toContain('--watch');
    expect(pinned.map((b) => b.file)).toEqual(['test/qa/docs-example.test.ts']);
  });

  it.each(shell.map((b) => [b.line, b] as const))(
    'sh block at docs/qa.md:%i runs and prints what it shows',
    async (_line, block) => {
      const script = block.body.replaceAll('localhost:8080', `127.0.0.1:${idp.port}`);
      const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', script], { timeout: 30_000 });
      expect(stdout.trim().length).toBeGreaterThan(0);
      expect(stdout).not.toMatch(/"error"/);
      const shown = [...block.body.matchAll(/^# → (.*)$/gm)].map((m) => m[1] ?? '');
      for (const line of shown) expect(stdout).toContain(line);
    },
  );

  it.each(pinned.map((b) => [b.file, b] as const))('the block pinned to %s is that file', (file, block) => {
    const source = readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
    expect(source).toContain(block.body);
    expect(source.split('\n').slice(1).join('\n').trim()).toBe(block.body.trim());
  });
});
