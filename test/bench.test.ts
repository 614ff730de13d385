// The benchmark's own in-process pieces run against the current build, so that a change to the code they
// drive shows here and not first in `npm run bench`: bench/lib/sessions-child.js signs browsers in through
// the same functions the endpoints call (it broke once when openSession began to return the session); and
// bench/readme-table.js prints the rows of the README's Performance table.
import { execFileSync, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT } from './helpers/cli.js';
import { tempDir } from './helpers/files.js';
import { page } from './helpers/markdown.js';

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

/** The first cell of each row of a markdown table (its header included), from the row starting with `|  |`. */
function rowLabels(markdown: string, header: string): string[] {
  const lines = markdown.split('\n');
  const start = lines.findIndex((l) => l.startsWith('|') && l.includes(header));
  const table: string[] = [];
  for (let i = start; i >= 0 && lines[i]?.startsWith('|'); i++) table.push(lines[i] ?? '');
  return table.filter((l) => !/^\|\s*-/.test(l)).map((l) => (l.split('|')[1] ?? '').trim());
}

describe('bench/readme-table.js', () => {
  it("prints the rows of the README's Performance table, from a full run's results", () => {
    const server = (rate: number) => ({
      clientCredentials: { connections: 16, reqPerS: rate, latencyMs: { p99: 20 } },
      authCode: { roundTripsPerS: rate / 2, latencyMs: { p99: 40 } },
      peakRssMB: 90,
    });
    const results = {
      mockIdp: server(1000),
      bare: server(1100),
      oauth2MockServer: { version: '8.2.3', ...server(500) },
      coldStart: { runs: 7, spawnToFirstTokenMs: { median: 241 }, peerSpawnToFirstTokenMs: { median: 612 } },
    };
    const { dir, remove } = tempDir();
    try {
      writeFileSync(join(dir, 'latest.json'), JSON.stringify(results));
      const printed = execFileSync(
        process.execPath,
        [join(ROOT, 'bench', 'readme-table.js'), join(dir, 'latest.json')],
        {
          encoding: 'utf8',
        },
      );
      expect(printed).toContain(
        '| spawn → first client_credentials token, median of 7 | 241 ms | — | 612 ms |',
      );
      const header = 'oauth2-mock-server 8.2.3';
      expect(rowLabels(printed, header)).toEqual(rowLabels(page('README.md'), header));
    } finally {
      remove();
    }
  });
});
