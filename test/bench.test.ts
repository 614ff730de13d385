// The benchmark's own in-process pieces run against the current build, so that a change to the code they
// drive shows here and not first in `npm run bench`: bench/lib/sessions-child.js signs browsers in through
// the same functions the endpoints call (it broke once when openSession began to return the session).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT } from './helpers/cli.js';

let stop: (() => void) | undefined;
afterEach(() => {
  stop?.();
  stop = undefined;
});
beforeAll(() => ensureBuilt());

/** Starts the sessions child with `count` sign-ins; resolves with the issuer it printed once they exist. */
function sessionsChild(count: number): Promise<string> {
  const child = spawn(process.execPath, [join(ROOT, 'bench', 'lib', 'sessions-child.js'), String(count)], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  stop = () => child.kill('SIGKILL');
  let out = '';
  let err = '';
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (\S+)\n[\s\S]*sessions (\d+)\n/.exec(out);
      if (m) resolve(m[1] as string);
    });
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) => reject(new Error(`sessions child exited (${String(code)}): ${out}${err}`)));
  });
}

describe('bench/lib/sessions-child.js', () => {
  it.each([1, 250])(
    'leaves %i live browser sessions, each listed once by the paginated listing',
    async (count) => {
      const base = await sessionsChild(count);
      const seen = new Set<string>();
      let cursor: string | null = null;
      do {
        const res = await fetch(
          `${base}/mock/sessions?limit=100${cursor !== null ? `&cursor=${cursor}` : ''}`,
        );
        expect(res.status).toBe(200);
        const page = (await res.json()) as {
          sessions: { id: string; browser: boolean }[];
          nextCursor: string | null;
        };
        for (const s of page.sessions) {
          expect(s.browser).toBe(true);
          seen.add(s.id);
        }
        cursor = page.nextCursor;
      } while (cursor !== null);
      expect(seen.size).toBe(count);
    },
  );
});
