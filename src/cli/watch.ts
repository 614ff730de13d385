// `serve --watch`: reload the fixtures file when it changes; a broken edit keeps the last good fixtures.
import { watch } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { FixturesError } from '../fixtures/errors.js';
import { counted } from './check.js';
import { digestOf } from '../fixtures/load.js';
import type { Provider } from '../realm/provider.js';
import { replaceFixtures } from '../fixtures/replace.js';

/** Editors write in bursts (truncate, write, rename): wait this long after the last event. */
const DEBOUNCE_MS = 150;

interface WatchIo {
  stdout: (line: string) => void;
  stderr: (line: string) => void;
}

interface FixturesWatcher {
  /**
   * Starts reloading into `p`. Changes seen since watching began are not lost: the file is compared at
   * once with the text `p` was loaded from.
   */
  attach(p: Provider): void;
  /** Stops watching. */
  close(): void;
}

/**
 * Watches the file's directory (which survives editors replacing the file by rename). Call it before the
 * fixtures are loaded, then `attach` the provider: an edit made at any moment after this call is loaded.
 */
export function watchFixtures(file: string, io: WatchIo): FixturesWatcher {
  const path = resolve(file);
  const dir = dirname(path);
  const name = basename(path);
  let provider: Provider | undefined;
  /** Digest of the file text last loaded (or refused): an event with the same text changes nothing. */
  let lastDigest: string | undefined;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  const reload = async (p: Provider): Promise<void> => {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      io.stderr(`mock-idp: ${file}: cannot read (${code}); keeping the last good fixtures`);
      return;
    }
    const digest = digestOf(text);
    if (digest === lastDigest) return;
    lastDigest = digest;
    try {
      const { realm, ignored } = await replaceFixtures(p, text, file, dir);
      p.fixturesText = text;
      // Replicas on a shared store take the reload over, as they take a PUT /mock/fixtures over.
      await p.qaShare?.publish('fixtures').catch(() => {
        io.stderr(`mock-idp: ${file} reloaded here, but the store is away: the other replicas keep theirs`);
      });
      const later = ignored.length > 0 ? `; ${ignored.join(', ')} apply at the next start` : '';
      io.stdout(
        `mock-idp: reloaded ${file} (${counted(realm.clients.size, 'client')}, ${counted(realm.users.size, 'user')}${later})`,
      );
    } catch (err) {
      if (!(err instanceof FixturesError)) throw err;
      io.stderr(`mock-idp: ${file} not reloaded, keeping the last good fixtures:\n${err.message}`);
    }
  };

  const schedule = (delayMs: number): void => {
    const p = provider;
    if (p === undefined) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      running = running
        .then(() => reload(p))
        .catch((err: unknown) => {
          io.stderr(`mock-idp: reloading ${file} failed: ${(err as Error).message}`);
        });
    }, delayMs);
  };

  const watcher = watch(dir, (_event, changed) => {
    if (changed !== null && changed !== name) return;
    schedule(DEBOUNCE_MS);
  });
  watcher.on('error', (err) => io.stderr(`mock-idp: stopped watching ${file}: ${err.message}`));
  return {
    attach(p) {
      provider = p;
      lastDigest = p.realm.digest;
      schedule(0);
    },
    close() {
      clearTimeout(timer);
      watcher.close();
    },
  };
}
