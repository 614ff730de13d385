// The npm package: ships what runs (built JS, types, fixtures, schema, README, LICENSE)
// and nothing else; its public types need no @types package of an internal dependency.
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { parse as parseYaml } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT } from './helpers/cli.js';
import { tempDir } from './helpers/files.js';

const exec = promisify(execFile);
let files: string[] = [];

beforeAll(async () => {
  await ensureBuilt();
  const { stdout } = await exec('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT });
  files = (JSON.parse(stdout) as { files: { path: string }[] }[])[0]?.files.map((f) => f.path) ?? [];
}, 60_000);

describe('npm pack', () => {
  it.each([
    'bin/mock-idp.js',
    'dist/cli.js',
    'dist/fixtures-worker.js',
    'dist/index.js',
    'dist/index.cjs',
    'dist/index.d.ts',
    'dist/testcontainers/index.cjs',
    'dist/index.d.cts',
    'dist/testcontainers/index.d.cts',
    'dist/testcontainers/index.js',
    'dist/testcontainers/index.d.ts',
    'fixtures/default.yaml',
    'fixtures.schema.json',
    'README.md',
    'docs/fixtures.md',
    'docs/versions.md',
    'LICENSE',
    'package.json',
  ])('ships %s', (path) => {
    expect(files).toContain(path);
  });

  it('ships no sources, tests, source maps or dev files', () => {
    const extra = files.filter(
      (f) =>
        !/^(bin\/|dist\/|fixtures\/|docs\/[\w-]+\.(md|png)$)/.test(f) &&
        !['fixtures.schema.json', 'README.md', 'LICENSE', 'package.json'].includes(f),
    );
    expect(extra).toEqual([]);
    expect(files.filter((f) => f.endsWith('.map') || (f.endsWith('.ts') && !f.endsWith('.d.ts')))).toEqual(
      [],
    );
  });
});

/** Every declaration file reachable from `entry` by relative imports. */
function reachableDeclarations(entry: string): Map<string, string> {
  const seen = new Map<string, string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    const text = readFileSync(file, 'utf8');
    seen.set(file, text);
    for (const m of text.matchAll(/from '(\.[^']+)\.js'/g)) visit(resolve(dirname(file), `${m[1]}.d.ts`));
  };
  visit(entry);
  return seen;
}

describe('public types', () => {
  it.each(['dist/index.d.ts', 'dist/testcontainers/index.d.ts'])('%s reaches no express types', (entry) => {
    const reached = reachableDeclarations(join(ROOT, entry));
    expect(reached.size).toBeGreaterThan(3);
    const leaks = [...reached].filter(([, text]) => /from 'express'/.test(text));
    expect(leaks.map(([file]) => file)).toEqual([]);
  });
});

describe('mock-idp/testcontainers in a project without testcontainers', () => {
  // A project whose node_modules holds mock-idp and every dependency but the optional peer.
  const project = tempDir();
  beforeAll(() => {
    const modules = join(project.dir, 'node_modules');
    const self = join(modules, 'mock-idp');
    mkdirSync(self, { recursive: true });
    for (const part of ['package.json', 'bin', 'dist', 'fixtures'])
      cpSync(join(ROOT, part), join(self, part), { recursive: true });
    for (const name of readdirSync(join(ROOT, 'node_modules'))) {
      if (name === 'testcontainers' || name.startsWith('.')) continue;
      symlinkSync(join(ROOT, 'node_modules', name), join(modules, name));
    }
    return project.remove;
  });

  it.each([
    [
      'import',
      "import('mock-idp/testcontainers').then(() => console.log('loaded'), (e) => console.log(e.code, e.message))",
    ],
    [
      'require',
      "try { require('mock-idp/testcontainers'); console.log('loaded') } catch (e) { console.log(e.code, e.message) }",
    ],
  ])('%s names the package to install', async (_, script) => {
    const { stdout } = await exec(process.execPath, ['-e', script], { cwd: project.dir });
    expect(stdout).toContain(
      "TESTCONTAINERS_MISSING mock-idp/testcontainers needs the package 'testcontainers'",
    );
    expect(stdout).toContain('npm i -D testcontainers');
  });
});

describe('the image publishing workflow (not run here)', () => {
  const workflow = parseYaml(readFileSync(join(ROOT, '.github/workflows/publish-image.yml'), 'utf8')) as {
    on: { push: { tags: string[] } };
    jobs: Record<string, { steps: { uses?: string; run?: string; with?: Record<string, unknown> }[] }>;
  };
  const steps = Object.values(workflow.jobs).flatMap((job) => job.steps);

  it('runs on version tags, tests first, then builds the Dockerfile and pushes it to ghcr.io', () => {
    expect(workflow.on.push.tags).toEqual(['v*.*.*']);
    const test = steps.findIndex((s) => s.run?.includes('npm test'));
    const push = steps.findIndex((s) => s.uses?.startsWith('docker/build-push-action@'));
    expect(test).toBeGreaterThanOrEqual(0);
    expect(push).toBeGreaterThan(test);
    expect(steps[push]?.with).toMatchObject({ context: '.', push: true });
    expect(JSON.stringify(steps)).toContain('ghcr.io/${{ github.repository_owner }}/mock-idp');
    expect(readFileSync(join(ROOT, 'Dockerfile'), 'utf8')).toMatch(/^FROM node:24-bookworm-slim/m);
  });
});
