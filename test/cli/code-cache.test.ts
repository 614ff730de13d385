// The CLI's start-up code cache (scripts/code-cache.js, bin/mock-idp.js): the build leaves one V8 cache of
// dist/cli.script.js per set of node flags the bin runs with, and the bin has V8 take it under those flags;
// without a usable cache (another Node, other flags, another build) it compiles the script as usual.
// MOCK_IDP_DEBUG=code-cache makes the bin say which cache it looked for and what V8 did with it.
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt, ROOT, startServe } from '../helpers/cli.js';
import { bigFixtures } from '../helpers/files.js';
import { SERVER_HEAP_FLAGS } from '../../src/heap-flags.js';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `node [flags] bin --version` with MOCK_IDP_DEBUG=code-cache and no NODE_OPTIONS (its flags would count). */
function runWith(flags: string[], bin = BIN, args = ['--version']): Promise<Run> {
  const env: NodeJS.ProcessEnv = { ...process.env, MOCK_IDP_DEBUG: 'code-cache' };
  delete env['NODE_OPTIONS'];
  return new Promise((resolve) => {
    execFile(process.execPath, [...flags, bin, ...args], { env, timeout: 30_000 }, (err, stdout, stderr) =>
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : null, stdout, stderr }),
    );
  });
}

/**
 * What a `mock-idp debug: <who> code cache FILE: STATE` line in `text` said: the cache file looked for and
 * accepted | rejected | none. `who` is '' for the bin's line, 'fixtures worker ' for the worker's.
 */
function verdict(text: string, who: '' | 'fixtures worker '): { file: string; state: string } {
  const m = new RegExp(`^mock-idp debug: ${who}code cache (\\S+): (accepted|rejected|none)$`, 'm').exec(text);
  expect(m, text).not.toBeNull();
  return { file: m?.[1] as string, state: m?.[2] as string };
}

/** The one reader of the bin's shebang flags (bin/code-cache.js), as the build and the bench use it. */
const { shebangFlags } = createRequire(import.meta.url)('../../bin/code-cache.js') as {
  shebangFlags(bin: string): string[];
};

/** Node flags a user may run the bin with, for which the build makes no cache. */
const USER_FLAGS = ['--max-semi-space-size=2', '--max-old-space-size=1024'];

const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const SOURCE = (): string => readFileSync(join(ROOT, 'dist', 'cli.script.js'), 'utf8');
let copy: string;

beforeAll(() => {
  ensureBuilt();
  copy = mkdtempSync(join(tmpdir(), 'mock-idp-code-cache-'));
});

afterAll(() => rmSync(copy, { recursive: true, force: true }));

/** A copy of the package's runtime files (bin, dist/cli.script.js, the worker, fixtures) with `caches` only. */
function packageCopy(name: string, caches: Record<string, Buffer>, source = SOURCE()): string {
  const dir = join(copy, name);
  mkdirSync(join(dir, 'dist'), { recursive: true });
  cpSync(join(ROOT, 'bin'), join(dir, 'bin'), { recursive: true });
  cpSync(join(ROOT, 'fixtures'), join(dir, 'fixtures'), { recursive: true });
  cpSync(join(ROOT, 'package.json'), join(dir, 'package.json'));
  cpSync(join(ROOT, 'dist', 'fixtures-worker.script.js'), join(dir, 'dist', 'fixtures-worker.script.js'));
  writeFileSync(join(dir, 'dist', 'cli.script.js'), source);
  for (const [file, data] of Object.entries(caches)) writeFileSync(join(dir, 'dist', file), data);
  return join(dir, 'bin', 'mock-idp.js');
}

/** The cache file the bin looks for under `flags`, and what V8 did with it (the bin's own word). */
async function cacheUnder(flags: string[], bin = BIN): Promise<{ file: string; state: string }> {
  const run = await runWith(flags, bin);
  expect(run).toMatchObject({ code: 0, stdout: `${VERSION}\n` });
  return verdict(run.stderr, '');
}

describe('the CLI code cache', () => {
  it('V8 accepts the build’s cache under no node flags (npx mock-idp, npm start, the image), and the CLI runs from it', async () => {
    const { file, state } = await cacheUnder([]);
    expect(file.startsWith(join(ROOT, 'dist', 'cli.script.'))).toBe(true);
    expect(state).toBe('accepted');
  });

  it('the build leaves that one cache and no other', async () => {
    await expectOnlyTheCachesLookedFor('cli.script.', (flags) => cacheUnder(flags));
  });

  it('the shebang, npm start and the image’s entrypoint run node without flags', () => {
    expect(shebangFlags(BIN)).toEqual([]);
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: { start: string };
    };
    expect(pkg.scripts.start).toBe('node bin/mock-idp.js serve');
    const entrypoint = /^ENTRYPOINT (\[.*\])$/m.exec(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'))?.[1];
    expect(JSON.parse(entrypoint ?? '[]')).toEqual(['node', '/app/bin/mock-idp.js']);
  });

  it.each([
    ['none for these flags', 'none', false],
    ['one V8 refuses (made under other flags)', 'rejected', true],
  ])('with %s the bin compiles the script as usual and works', async (_, state, mismatched) => {
    const plain = (await cacheUnder([])).file;
    const withFlags = (await cacheUnder(USER_FLAGS)).file;
    // The copy has, at most, the cache made without flags under the name those flags look for.
    const bin = packageCopy(state, mismatched ? { [basename(withFlags)]: readFileSync(plain) } : {});
    expect(await cacheUnder(USER_FLAGS, bin)).toEqual({
      file: join(dirname(bin), '..', 'dist', basename(withFlags)),
      state,
    });
    // A command that loads and validates fixtures: much of the script, not only its first lines.
    const check = await runWith(USER_FLAGS, bin, ['check', join(ROOT, 'fixtures', 'default.yaml')]);
    expect(check.code, check.stderr).toBe(0);
  });

  it('a cache of another build of the script is not read', async () => {
    const plain = (await cacheUnder([])).file;
    const source = SOURCE();
    const other = source.replace(
      /^\/\*mock-idp (\w+)\*\//,
      (_, id: string) => `/*mock-idp ${'0'.repeat(id.length)}*/`,
    );
    expect(other).not.toBe(source);
    const bin = packageCopy('other-build', { [basename(plain)]: readFileSync(plain) }, other);
    const seen = await cacheUnder([], bin);
    expect(seen.state).toBe('none');
    expect(basename(seen.file)).not.toBe(basename(plain));
  });
});

/**
 * `node [flags] bin serve` with MOCK_IDP_DEBUG=code-cache, one big PUT /mock/fixtures: what the server said
 * about the fixtures worker's code cache (the file it looked for and accepted | rejected | none).
 */
async function workerCacheUnder(flags: string[], atStart = false): Promise<{ file: string; state: string }> {
  // With atStart the server starts on big fixtures and starts the worker as it listens; else the first big
  // PUT starts it. Either way after the server set its run-time heap flags, which the worker's boot must
  // put as they were at the start for V8 to take the cache the build made.
  const dir = mkdtempSync(join(copy, 'worker-'));
  const big = join(dir, 'big.yaml');
  writeFileSync(big, bigFixtures());
  // An empty NODE_OPTIONS: its flags would count.
  const s = await startServe(
    ['serve', '--host', '127.0.0.1', '--port', '0', ...(atStart ? ['--fixtures', big] : [])],
    { MOCK_IDP_DEBUG: 'code-cache,heap', NODE_OPTIONS: '' },
    15_000,
    flags,
  );
  try {
    if (!atStart) {
      const put = await fetch(`${s.base}/mock/fixtures`, { method: 'PUT', body: bigFixtures() });
      expect(put.status).toBe(200);
    }
    const heapLine = `mock-idp debug: heap: ${SERVER_HEAP_FLAGS}`;
    const workerLine = 'mock-idp debug: fixtures worker code cache';
    await s.waitFor('stderr', (text) => text.includes(heapLine) && text.includes(workerLine));
    const stderr = s.stderr();
    const heapAt = stderr.indexOf(heapLine);
    const workerAt = stderr.indexOf(workerLine);
    expect(heapAt, stderr).toBeGreaterThanOrEqual(0);
    expect(workerAt > heapAt, stderr).toBe(true);
    return verdict(stderr, 'fixtures worker ');
  } finally {
    await s.stop('SIGKILL');
  }
}

/** The build's caches whose names start with `prefix`: exactly those looked for under no flags and the shebang's (one set today). */
async function expectOnlyTheCachesLookedFor(
  prefix: string,
  under: (flags: string[]) => Promise<{ file: string }>,
): Promise<void> {
  const looked = [...new Set([(await under([])).file, (await under(shebangFlags(BIN))).file])];
  expect(looked).toHaveLength(shebangFlags(BIN).length === 0 ? 1 : 2);
  const caches = readdirSync(join(ROOT, 'dist')).filter((f) => f.startsWith(prefix) && f.endsWith('.cache'));
  expect(caches.map((f) => join(ROOT, 'dist', f)).sort()).toEqual(looked.sort());
}

describe('the fixtures worker’s code cache', () => {
  it.each([
    ['a big PUT’s worker', false],
    ['the worker a start on big fixtures starts', true],
  ])('%s, compiles its bundle from the build’s cache', async (_, atStart) => {
    const { file, state } = await workerCacheUnder([], atStart);
    expect(file.startsWith(join(ROOT, 'dist', 'fixtures-worker.script.'))).toBe(true);
    expect(state).toBe('accepted');
  });

  it('the build leaves that one worker cache and no other', async () => {
    await expectOnlyTheCachesLookedFor('fixtures-worker.script.', workerCacheUnder);
  });
});
