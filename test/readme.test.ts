// Every README example runs: `sh` blocks against a live server, fixtures `yaml` blocks validate,
// and a block marked `<!-- file: PATH -->` stands verbatim in that (tested) file.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseFixtures } from '../src/fixtures/load.js';
import { startMockIdp, type MockIdp } from '../src/server.js';

const run = promisify(execFile);
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

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
    let prev = i - 1;
    while (prev > 0 && (lines[prev] ?? '').trim() === '') prev--;
    const marker = /^<!-- file: (\S+) -->$/.exec(lines[prev] ?? '');
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

const all = blocks(readme);
const shell = all.filter((b) => b.lang === 'sh');
const fixtures = all.filter((b) => b.lang === 'yaml' && /^clients:/m.test(b.body));
const pinned = all.filter((b) => b.file !== undefined);

describe('README', () => {
  let idp: MockIdp;
  beforeAll(async () => {
    idp = await startMockIdp({});
  });
  afterAll(async () => {
    await idp.close();
  });

  it('has runnable examples of each kind', () => {
    expect(shell.length).toBeGreaterThanOrEqual(3);
    expect(fixtures.length).toBeGreaterThanOrEqual(1);
  });

  it.each(shell.map((b) => [b.line, b] as const))('sh block at README.md:%i runs', async (_line, block) => {
    const script = block.body.replaceAll('localhost:8080', `127.0.0.1:${idp.port}`);
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', script], { timeout: 20_000 });
    expect(stdout.trim().length).toBeGreaterThan(0);
    expect(stdout).not.toMatch(/"error"/);
  });

  it.each(fixtures.map((b) => [b.line, b] as const))(
    'fixtures yaml at README.md:%i is valid',
    (_line, block) => {
      expect(() => parseFixtures(block.body, `README.md:${block.line}`)).not.toThrow();
    },
  );

  it.each(pinned.map((b) => [b.file, b] as const))('block pinned to %s matches the file', (file, block) => {
    const source = readFileSync(new URL(`../${file}`, import.meta.url), 'utf8');
    expect(source).toContain(block.body);
  });
});
