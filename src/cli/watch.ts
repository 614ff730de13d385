// `serve --watch`: reload the fixtures file when it changes; a broken edit keeps the last good fixtures.
import { watch } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { FixturesError } from '../fixtures/errors.js';
import type { Provider } from '../provider.js';
import { replaceFixtures } from '../qa/fixtures.js';

/** Editors write in bursts (truncate, write, rename): wait this long after the last event. */
const DEBOUNCE_MS = 150;

export interface WatchIo {
  stdout: (line: string) => void;
  stderr: (line: string) => void;
}

/**
 * Watches the file's directory (which survives editors replacing the file by rename) and reloads
 * on change. Returns a function that stops watching.
 */
export function watchFixtures(file: string, p: Provider, io: WatchIo): () => void {
  const path = resolve(file);
  const dir = dirname(path);
  const name = basename(path);
  let lastText: string | undefined;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = readFile(path, 'utf8').then(
    (text) => {
      lastText = text;
    },
    () => undefined,
  );

  const reload = async (): Promise<void> => {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      io.stderr(`mock-idp: ${file}: cannot read (${code}); keeping the last good fixtures`);
      return;
    }
    if (text === lastText) return;
    lastText = text;
    try {
      const { realm, ignored } = await replaceFixtures(p, text, file, dir);
      const later = ignored.length > 0 ? `; ${ignored.join(', ')} apply at the next start` : '';
      io.stdout(
        `mock-idp: reloaded ${file} (${realm.clients.size} clients, ${realm.users.size} users${later})`,
      );
    } catch (err) {
      if (!(err instanceof FixturesError)) throw err;
      io.stderr(`mock-idp: ${file} not reloaded, keeping the last good fixtures:\n${err.message}`);
    }
  };

  const watcher = watch(dir, (_event, changed) => {
    if (changed !== null && changed !== name) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      running = running.then(reload).catch((err: unknown) => {
        io.stderr(`mock-idp: reloading ${file} failed: ${(err as Error).message}`);
      });
    }, DEBOUNCE_MS);
  });
  watcher.on('error', (err) => io.stderr(`mock-idp: stopped watching ${file}: ${err.message}`));
  return () => {
    clearTimeout(timer);
    watcher.close();
  };
}
