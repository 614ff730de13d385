// Every README example runs: `sh` blocks in order against one live server on the bundled fixtures, each
// printing what its `# →` lines show; fixtures `yaml` blocks validate; pinned blocks are their test files.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseFixtures } from '../src/fixtures/load.js';
import { startMockIdp, type MockIdp } from '../src/server.js';
import {
  codeBlocks,
  runShellBlock,
  section,
  SHELL_BLOCK_TIMEOUT_MS,
  shownOutput,
} from './helpers/markdown.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const all = codeBlocks(readme);
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
    expect(shell.length).toBeGreaterThanOrEqual(10);
    expect(fixtures.length).toBeGreaterThanOrEqual(2);
    expect(pinned.map((b) => b.file)).toContain('test/qa/docs-example.test.ts');
  });

  it.each(shell.map((b) => [b.line, b] as const))(
    'sh block at README.md:%i writes files only under its own mktemp -d dir, and removes it',
    (_line, block) => {
      expect(block.body).not.toMatch(/\/tmp\//);
      // The server's ready line says 127.0.0.1: examples that said localhost would get another issuer.
      expect(block.body).not.toContain('localhost:8080');
      if (block.body.includes('mktemp')) expect(block.body).toMatch(/rm -r[f]? "\$dir"/);
    },
  );

  it.each(shell.map((b) => [b.line, b] as const))(
    'sh block at README.md:%i runs and prints what it shows',
    async (_line, block) => {
      const stdout = await runShellBlock(block, idp.port);
      expect(stdout.trim().length).toBeGreaterThan(0);
      expect(stdout).not.toMatch(/"error"/);
      for (const line of shownOutput(block)) expect(stdout).toContain(line);
    },
    SHELL_BLOCK_TIMEOUT_MS + 10_000,
  );

  it.each(fixtures.map((b) => [b.line, b] as const))(
    'fixtures yaml at README.md:%i is valid',
    (_line, block) => {
      expect(() => parseFixtures(block.body, `README.md:${block.line}`)).not.toThrow();
    },
  );

  it("states one image size, the Performance table's", () => {
    const measured = /^\| image size\s*\| ([\d.]+ MB) /m.exec(readme)?.[1];
    expect(measured).toBeDefined();
    const docker = section(readme, 'Docker').split('\n### Testcontainers')[0] ?? '';
    const stated = [...docker.matchAll(/([\d.]+) MB/g)].map((m) => `${m[1]} MB`);
    expect(stated.length).toBeGreaterThan(0);
    expect(new Set(stated)).toEqual(new Set([measured]));
  });

  it('the compose health-check timing matches the image and the measured start', () => {
    const compose = all.find((b) => b.lang === 'yaml' && b.body.includes('services:'));
    const body = compose?.body ?? '';
    const dockerfile = readFileSync(new URL('../Dockerfile', import.meta.url), 'utf8');
    const imageInterval = /HEALTHCHECK --interval=(\d+)s/.exec(dockerfile)?.[1];
    expect(body).toContain(`HEALTHCHECK probes every ${imageInterval} s`);
    expect(body).toContain(`compose sees it healthy ${imageInterval} s after start`);
    // The measured start (Performance: `run` → /health) fits within the compose probe interval stated.
    const startMs = Number(/`run` → `\/health` 200 \(median of 3\)\s*\| ([\d,]+) ms/.exec(readme)?.[1]);
    const interval = Number(/healthcheck: \{ interval: (\d+)s/.exec(body)?.[1]);
    expect(startMs).toBeGreaterThan(0);
    expect(startMs).toBeLessThanOrEqual(interval * 1000);
    expect(body).toContain(`about ${(Math.round(startMs / 100) / 10).toFixed(1)} s after start`);
  });

  it.each(pinned.map((b) => [b.file, b] as const))('block pinned to %s is that file', (file, block) => {
    const source = readFileSync(new URL(`../${file}`, import.meta.url), 'utf8');
    expect(source.split('\n').slice(1).join('\n').trim()).toBe(block.body.trim());
  });
});
