// A file's text, read as node:fs/promises' readFile(path, 'utf8') reads it (the same errors), without loading
// node:fs/promises: that module and what it brings (readline among them) are ~4 ms of a cold start under the
// bin's V8 flags, which leave Node's own code cache unused; a start reads its fixtures before anything else
// would load them.
import { readFile } from 'node:fs';

export function readTextFile(path: string): Promise<string> {
  return new Promise((resolve, reject) =>
    readFile(path, 'utf8', (err, text) => (err === null ? resolve(text) : reject(err))),
  );
}
