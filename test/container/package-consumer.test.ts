// The package as a newcomer gets it: `npm pack`, installed into an empty CommonJS project (what `npm init`
// makes, and what Jest runs). require() of both entry points works; and MockIdpContainer starts from the npm
// install alone, with no mock-idp image anywhere (the package's server on the public Node.js base image).
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT } from '../helpers/cli.js';
import { containerTestsSkipReason, skipContainerTests } from './docker.js';

const exec = promisify(execFile);
let dir: string;
let consumer: string;

/**
 * The Testcontainers major a user of this Node gets: 12 needs Node 22.22 or later, so under Node 20 the
 * consumer installs our dev dependency (11) and under 22/24 version 12: the peer range is tried at both ends.
 */
function testcontainersFor(devVersion: string): string {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  return major > 22 || (major === 22 && minor >= 22) ? '12.2.0' : devVersion;
}

/** Runs a script in the consumer project; no MOCK_IDP_IMAGE, so nothing but the npm install is used. */
async function run(file: string, source: string, args: string[] = []): Promise<Record<string, unknown>> {
  await writeFile(join(consumer, file), source);
  const env: NodeJS.ProcessEnv = { ...process.env, TESTCONTAINERS_RYUK_DISABLED: 'true' };
  delete env['MOCK_IDP_IMAGE'];
  const { stdout } = await exec(process.execPath, [file, ...args], { cwd: consumer, env, timeout: 180_000 });
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
}

beforeAll(async () => {
  ensureBuilt();
  dir = await mkdtemp(join(tmpdir(), 'mock-idp-consumer-'));
  const { stdout } = await exec('npm', [
    'pack',
    ROOT,
    '--ignore-scripts',
    '--silent',
    '--pack-destination',
    dir,
  ]);
  const tarball = join(dir, stdout.trim().split('\n').at(-1) ?? '');
  consumer = join(dir, 'consumer');
  const ours = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
    devDependencies: Record<string, string>;
  };
  await exec('mkdir', [consumer]);
  // What `npm init -y` writes: no "type", so .js files are CommonJS.
  await writeFile(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0' }));
  await exec(
    'npm',
    [
      'install',
      tarball,
      `testcontainers@${testcontainersFor(ours.devDependencies['testcontainers'] ?? '')}`,
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
    ],
    { cwd: consumer, timeout: 240_000 },
  );
}, 300_000);

afterAll(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

describe('a CommonJS consumer project with the packed tarball installed', () => {
  it("require('mock-idp') starts a server that issues tokens", async () => {
    const result = await run(
      'library.js',
      `const { startMockIdp, loadFixtures } = require('mock-idp');
(async () => {
  const idp = await startMockIdp({});
  const response = await fetch(idp.issuer + '/protocol/openid-connect/token', {
    method: 'POST',
    headers: { authorization: 'Basic ' + btoa('batch-job:batch-secret') },
    body: new URLSearchParams({ grant_type: 'client_credentials' }),
  });
  const { token } = await idp.mint({ type: 'access', client: 'web-app', user: 'alice' });
  await idp.close();
  console.log(JSON.stringify({
    status: response.status,
    minted: JSON.parse(Buffer.from(token.split('.')[1], 'base64url')).preferred_username,
    loadFixtures: typeof loadFixtures,
    resolved: require.resolve('mock-idp'),
  }));
})();
`,
    );
    expect(result).toMatchObject({ status: 200, minted: 'alice', loadFixtures: 'function' });
    expect(result['resolved']).toMatch(/node_modules\/mock-idp\/dist\/index\.cjs$/);
  });

  it("require('mock-idp/testcontainers') gives the container classes", async () => {
    const result = await run(
      'classes.js',
      `const tc = require('mock-idp/testcontainers');
console.log(JSON.stringify({
  container: typeof tc.MockIdpContainer,
  started: typeof tc.StartedMockIdpContainer,
  base: tc.MOCK_IDP_BASE_IMAGE,
  resolved: require.resolve('mock-idp/testcontainers'),
}));
`,
    );
    expect(result).toMatchObject({
      container: 'function',
      started: 'function',
      base: 'node:24-bookworm-slim',
    });
    expect(result['resolved']).toMatch(/dist\/testcontainers\/index\.cjs$/);
  });

  it.each([
    ['node16', 'node16'],
    ['commonjs', 'node10'],
  ])('TypeScript (module %s, moduleResolution %s) types both entry points', async (module, resolution) => {
    await writeFile(
      join(consumer, 'typed.ts'),
      `import { startMockIdp, type MockIdp } from 'mock-idp';
import { MockIdpContainer } from 'mock-idp/testcontainers';
export const started: Promise<MockIdp> = startMockIdp({ port: 0 });
export const container: MockIdpContainer = new MockIdpContainer().withSeed('typed');
`,
    );
    const tsconfig = {
      compilerOptions: {
        module,
        moduleResolution: resolution,
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: ['node'],
        typeRoots: [join(ROOT, 'node_modules', '@types')],
      },
      files: ['typed.ts'],
    };
    await writeFile(join(consumer, `tsconfig.${module}.json`), JSON.stringify(tsconfig));
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const result = await exec(process.execPath, [tsc, '-p', `tsconfig.${module}.json`], {
      cwd: consumer,
    }).then(
      () => '',
      (err: { stdout?: string }) => err.stdout ?? String(err),
    );
    expect(result).toBe('');
  });

  it('import still gets the ES modules', async () => {
    const result = await run(
      'esm.mjs',
      `import { startMockIdp } from 'mock-idp';
import { MockIdpContainer } from 'mock-idp/testcontainers';
console.log(JSON.stringify({ start: typeof startMockIdp, container: typeof MockIdpContainer }));
`,
    );
    expect(result).toEqual({ start: 'function', container: 'function' });
  });

  it.skipIf(skipContainerTests)(
    `new MockIdpContainer().start() works from the npm install alone ${containerTestsSkipReason ?? ''}`,
    async () => {
      const result = await run(
        'container.js',
        `const { MockIdpContainer } = require('mock-idp/testcontainers');
(async () => {
  const idp = await new MockIdpContainer().withSeed('consumer').start();
  try {
    const response = await fetch(idp.getTokenEndpoint(), {
      method: 'POST',
      headers: { authorization: 'Basic ' + btoa('batch-job:batch-secret') },
      body: new URLSearchParams({ grant_type: 'client_credentials' }),
    });
    const { claims } = await idp.mint({ type: 'access', client: 'web-app', user: 'alice' });
    const files = await idp.exec(['ls', '/app/bin']);
    console.log(JSON.stringify({
      files: files.output.trim(),
      status: response.status,
      issuer: idp.getIssuer(),
      iss: claims.iss,
      user: claims.preferred_username,
    }));
  } finally {
    await idp.stop();
  }
})().catch((err) => { console.error(err); process.exit(1); });
`,
      );
      // The package's own bin/.
      expect(result).toMatchObject({ status: 200, user: 'alice', files: 'mock-idp.js' });
      expect(result['iss']).toBe(result['issuer']);
      expect(result['issuer']).toMatch(/^http:\/\/[^/]+:\d+\/realms\/mock$/);
    },
    240_000,
  );

  it.skipIf(skipContainerTests)(
    `withImage() runs a prebuilt image instead ${containerTestsSkipReason ?? ''}`,
    async () => {
      const result = await run(
        'prebuilt.js',
        `const { MockIdpContainer } = require('mock-idp/testcontainers');
(async () => {
  const idp = await new MockIdpContainer().withImage(process.argv[2]).start();
  try {
    const health = await fetch(idp.getBaseUrl().replace(/\\/realms\\/.*$/, '/health'));
    const bin = await idp.exec(['ls', '/app/bin']);
    const dist = await idp.exec(['ls', '/app/dist']);
    console.log(JSON.stringify({ health: health.status, bin: bin.output.trim(), dist: dist.output.trim().split('\\n') }));
  } finally {
    await idp.stop();
  }
})().catch((err) => { console.error(err); process.exit(1); });
`,
        [process.env['MOCK_IDP_IMAGE'] ?? ''],
      );
      expect(result).toMatchObject({
        health: 200,
        bin: 'mock-idp.js',
        dist: ['cli.js', 'fixtures-worker.js'],
      });
    },
    240_000,
  );
});
