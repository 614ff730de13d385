// Container-test prerequisites: find Docker (a real part, see real-parts.ts) and build the mock-idp image once.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { StartedMockIdpContainer } from '../../src/testcontainers/index.js';
import { skipWithout } from '../helpers/real-parts.js';
import { useStarted } from '../helpers/server.js';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const LOCAL_IMAGE = 'mock-idp:local';
// Debian's client speaks BuildKit without the buildx plugin; a newer `docker` on PATH may not.
const DOCKER = existsSync('/usr/bin/docker') ? '/usr/bin/docker' : 'docker';

// The Ryuk reaper image cannot be pulled where no registry is reachable; each test stops its container.
process.env.TESTCONTAINERS_RYUK_DISABLED ??= 'true';

/** Why Docker cannot be used, or undefined when the daemon answers. */
function dockerProblem(): string | undefined {
  const version = spawnSync(DOCKER, ['version', '--format', '{{.Server.Version}}'], {
    encoding: 'utf8',
    timeout: 20_000,
  });
  if (version.error) return `${DOCKER}: ${version.error.message}`;
  if (version.status === 0 && version.stdout.trim() !== '') return undefined;
  const message = version.stderr.split('\n').find((line) => line.trim() !== '');
  return `${DOCKER} version: ${message?.trim() ?? `exit ${version.status}`}`;
}

/** `DOCKER_BUILDKIT=1 docker build [--secret id=npm_ca,...] -t mock-idp:local .`; layer caching keeps reruns fast. */
async function buildImage(): Promise<string> {
  const ca = process.env.NODE_EXTRA_CA_CERTS;
  const secret = ca !== undefined && existsSync(ca) ? ['--secret', `id=npm_ca,src=${ca}`] : [];
  const args = ['build', ...secret, '-t', LOCAL_IMAGE, REPO_ROOT];
  const child = spawn(DOCKER, args, {
    env: { ...process.env, DOCKER_BUILDKIT: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  if (code !== 0) {
    const tail = output.trim().split('\n').slice(-40).join('\n');
    throw new Error(`DOCKER_BUILDKIT=1 ${DOCKER} ${args.join(' ')} failed (exit ${code}):\n${tail}`);
  }
  return LOCAL_IMAGE;
}

/**
 * Undefined when the container tests can run (the image is then named by MOCK_IDP_IMAGE); otherwise why
 * they skip. With CI set they never skip: missing Docker or a failed image build throws instead.
 */
async function prepareContainerTests(): Promise<string | undefined> {
  const problem = dockerProblem();
  if (problem !== undefined) {
    const reason = `Docker is unavailable (${problem})`;
    skipWithout('Docker', reason, 'install Docker and start its daemon');
    return `${reason}; set CI=1 to make this a failure`;
  }
  // An image named by MOCK_IDP_IMAGE is reused as is; otherwise build this checkout.
  if (!process.env.MOCK_IDP_IMAGE) process.env.MOCK_IDP_IMAGE = await buildImage();
  return undefined;
}

/** A mock-idp container (`start` starts it) for the tests of the calling file or describe block. */
export function useContainer(start: () => Promise<StartedMockIdpContainer>): StartedMockIdpContainer {
  return useStarted('useContainer()', start, (container) => container.stop());
}

export const containerTestsSkipReason: string | undefined = await prepareContainerTests();
export const skipContainerTests = containerTestsSkipReason !== undefined;
