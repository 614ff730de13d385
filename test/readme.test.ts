// Every example of the documentation runs: each page's `sh` blocks (README.md, then docs/*.md) in order
// against a live server of its own on the bundled fixtures, each printing what its `# →` lines show;
// fixtures `yaml` blocks validate; pinned blocks are their test files, excerpts are cut from theirs; links hold.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseFixtures } from '../src/fixtures/load.js';
import { startMockIdp, type MockIdp } from '../src/server.js';
import {
  anchors,
  codeBlocks,
  docPages,
  page,
  relativeLinks,
  runShellBlock,
  SHELL_BLOCK_TIMEOUT_MS,
  shownOutput,
  type Block,
} from './helpers/markdown.js';
import { SKIP_REDIS } from './helpers/redis.js';

/** How many `sh` blocks the README held before its topics moved to docs/: none may be lost. */
const SH_BLOCKS_BEFORE_THE_SPLIT = 19;

const ROOT = new URL('../', import.meta.url);
const pages = docPages().map((p) => ({ ...p, blocks: codeBlocks(p.text) }));
const all = pages.flatMap((p) => p.blocks.map((block) => ({ path: p.path, block })));
const shell = all.filter(({ block }) => block.lang === 'sh');
const fixtures = all.filter(({ block }) => block.lang === 'yaml' && /^clients:/m.test(block.body));
const pinned = all.filter(({ block }) => block.file !== undefined);
const excerpts = all.filter(({ block }) => block.excerpt !== undefined);
const at = ({ path, block }: { path: string; block: Block }) => [`${path}:${block.line}`, block] as const;

/** The lines of a text without their indentation, blank lines left out. */
const trimmedLines = (text: string) =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');

describe('the documentation', () => {
  it('has runnable examples of each kind, and as many sh blocks as before', () => {
    console.log(`documentation: ${shell.length} sh blocks run, on ${pages.length} pages`);
    expect(shell.length).toBeGreaterThanOrEqual(SH_BLOCKS_BEFORE_THE_SPLIT);
    expect(fixtures.length).toBeGreaterThanOrEqual(2);
    expect(pinned.map(({ block }) => block.file)).toEqual(
      expect.arrayContaining([
        'test/examples/library.test.ts',
        'test/examples/workbench.test.ts',
        'test/qa/docs-example.test.ts',
      ]),
    );
  });

  it('keeps the README a ten-minute read', () => {
    expect(page('README.md').split('\n').length).toBeLessThanOrEqual(400);
  });

  it.each(pages.map((p) => [p.path, p] as const))('%s names no product spec section or issue', (_path, p) => {
    expect(p.text).not.toMatch(/PRODUCT\.md|§|\bissue #?\d+|(^|\s)#\d+\b/im);
  });

  it.each(pages.map((p) => [p.path, p] as const))('%s links to files and headings that exist', (path, p) => {
    for (const link of relativeLinks(p.text)) {
      const [file = '', hash] = link.split('#');
      const target = file === '' ? path : normalize(join(dirname(path), file));
      expect(existsSync(new URL(target, ROOT)), `${path} → ${link}`).toBe(true);
      if (hash !== undefined && target.endsWith('.md'))
        expect(anchors(page(target)), `${path} → ${link}`).toContain(hash);
    }
  });

  it.each(shell.map(at))(
    'sh block at %s writes files only under its own mktemp -d dir, and removes it',
    (_where, block) => {
      expect(block.body).not.toMatch(/\/tmp\//);
      // The server's ready line says 127.0.0.1: examples that said localhost would get another issuer.
      expect(block.body).not.toContain('localhost:8080');
      if (block.body.includes('mktemp')) expect(block.body).toMatch(/rm -r[f]? "\$dir"/);
    },
  );

  it.each(fixtures.map(at))('fixtures yaml at %s is valid', (where, block) => {
    expect(() => parseFixtures(block.body, where)).not.toThrow();
  });

  it.each(pinned.map(({ block }) => [block.file, block] as const))(
    'block pinned to %s is that file',
    (file, block) => {
      const source = readFileSync(new URL(`../${file}`, import.meta.url), 'utf8');
      expect(source.split('\n').slice(1).join('\n').trim()).toBe(block.body.trim());
    },
  );

  it.each(excerpts.map(at))('excerpt at %s is cut from its file', (_where, block) => {
    const source = trimmedLines(readFileSync(new URL(`../${block.excerpt}`, import.meta.url), 'utf8'));
    const shown = trimmedLines(block.body);
    const start = source.indexOf(shown[0] ?? '');
    expect(start).toBeGreaterThanOrEqual(0);
    expect(source.slice(start, start + shown.length)).toEqual(shown);
  });

  it("states one image size, the performance results'", () => {
    const measured = /^\| image size\s*\| ([\d.]+ MB) /m.exec(page('docs/performance.md'))?.[1];
    expect(measured).toBeDefined();
    const stated = [...page('docs/docker.md').matchAll(/([\d.]+) MB/g)].map((m) => `${m[1]} MB`);
    expect(stated.length).toBeGreaterThan(0);
    expect(new Set(stated)).toEqual(new Set([measured]));
  });

  it('the compose health-check timing matches the image and the measured start', () => {
    const compose = all.find(({ block }) => block.lang === 'yaml' && block.body.includes('services:'));
    const body = compose?.block.body ?? '';
    const dockerfile = readFileSync(new URL('../Dockerfile', import.meta.url), 'utf8');
    const imageInterval = /HEALTHCHECK --interval=(\d+)s/.exec(dockerfile)?.[1];
    expect(body).toContain(`HEALTHCHECK probes every ${imageInterval} s`);
    expect(body).toContain(`compose sees it healthy ${imageInterval} s after start`);
    // The measured start (docs/performance.md: `run` → /health) fits within the compose probe interval.
    const results = page('docs/performance.md');
    const startMs = Number(/`run` → `\/health` 200 \(median of 3\)\s*\| ([\d,]+) ms/.exec(results)?.[1]);
    const interval = Number(/healthcheck: \{ interval: (\d+)s/.exec(body)?.[1]);
    expect(startMs).toBeGreaterThan(0);
    expect(startMs).toBeLessThanOrEqual(interval * 1000);
    expect(body).toContain(`about ${(Math.round(startMs / 100) / 10).toFixed(1)} s after start`);
  });
});

// Each page runs against a fresh server: its examples change the clock, faults and fixtures as they go.
describe.each(pages.filter((p) => p.blocks.some((b) => b.lang === 'sh')).map((p) => [p.path, p] as const))(
  'sh blocks of %s',
  (path, p) => {
    let idp: MockIdp;
    beforeAll(async () => {
      idp = await startMockIdp({});
    });
    afterAll(async () => {
      await idp.close();
    });

    it.for(p.blocks.filter((b) => b.lang === 'sh').map((b) => [`${path}:${b.line}`, b] as const))(
      'sh block at %s runs and prints what it shows',
      { timeout: SHELL_BLOCK_TIMEOUT_MS + 10_000 },
      async ([where, block], { skip }) => {
        if (SKIP_REDIS && block.body.includes('redis-server')) {
          console.warn(`${where} skipped: redis-server is not installed (apt-get install -y redis-server)`);
          skip();
        }
        const stdout = await runShellBlock(block, idp.port);
        expect(stdout.trim().length).toBeGreaterThan(0);
        expect(stdout).not.toMatch(/"error"/);
        // Each shown line, in the order shown, each one once: a line shown twice must be printed twice.
        let from = 0;
        for (const line of shownOutput(block)) {
          const at = stdout.indexOf(line, from);
          expect(at, `"${line}" printed after what is shown before it`).toBeGreaterThanOrEqual(0);
          from = at + line.length;
        }
      },
    );
  },
);
