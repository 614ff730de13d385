// `mock-idp users --count N [--seed S]`: prints a YAML `users:` block of synthetic test identities,
// streamed in 1 MB chunks (a million users are ~860 MB of YAML), waiting when the reader is slower.
import { CliError } from './cli-error.js';
import { syntheticUsers } from '../users/generate.js';
import { userYaml } from '../users/yaml.js';
import type { Method } from '../fixtures/versions.js';

export interface UsersOptions {
  /** how many users, 1 to 1,000,000 */
  count: number;
  /** makes the users reproducible; default: different users on every run */
  seed?: string;
  /** the fixtures' brand the users are written for (`{brand}_altsub`, `urn:{brand}:bid`); default `idp` */
  brand?: string;
  /** the sign-in methods every user may use (`users.{u}.methods`); default: none written (every method) */
  methods?: Method[];
}

const CHUNK_BYTES = 1024 * 1024;
/** Room left in a chunk before the next user: one user's YAML is under 2 KB (names come from lists). */
const USER_ROOM = 16 * 1024;

export async function users(options: UsersOptions, out: NodeJS.WritableStream): Promise<void> {
  // A reader that stops early (`| head`) closes the pipe: stop writing, without a stack trace.
  let closed = false;
  let failed: Error | undefined;
  out.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') closed = true;
    else failed = err;
  });
  const write = async (bytes: Buffer): Promise<void> => {
    if (closed) return;
    if (!out.write(bytes)) await drained(out);
    if (failed) throw new CliError(`mock-idp users: cannot write the output: ${failed.message}`);
  };
  // Each user's YAML goes straight into a buffer: encoding one large joined string costs twice as much.
  let chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  let used = chunk.write('users:\n');
  for (const user of syntheticUsers(options.count, options.seed)) {
    if (chunk.length - used < USER_ROOM) {
      await write(chunk.subarray(0, used));
      if (closed) return;
      chunk = Buffer.allocUnsafe(CHUNK_BYTES);
      used = 0;
    }
    used += chunk.write(userYaml(user, options.brand, options.methods), used);
  }
  await write(chunk.subarray(0, used));
}

/** Resolves when the stream wants more, or can take no more (closed or failed: the caller checks). */
function drained(out: NodeJS.WritableStream): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      out.off('drain', done);
      out.off('close', done);
      out.off('error', done);
      resolve();
    };
    out.on('drain', done);
    out.on('close', done);
    out.on('error', done);
  });
}
