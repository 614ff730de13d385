// openssl (a real part, see real-parts.ts) making certificates for tests: a throwaway CA and a server
// certificate it signs, as a user would make them for a TLS server.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { skipWithout } from './real-parts.js';

/** Locally the tests that need openssl skip without it; in CI its absence is a failure. */
export const SKIP_OPENSSL = skipWithout(
  'openssl',
  spawnSync('openssl', ['version'], { stdio: 'ignore' }).status === 0
    ? undefined
    : 'openssl is not installed',
  'apt-get install -y openssl',
);

/** A throwaway CA and a server certificate it signs for localhost and 127.0.0.1, made by openssl in `dir`. */
export function makeCertificates(dir: string): { ca: string; cert: string; key: string } {
  const file = (name: string): string => join(dir, name);
  const openssl = (args: string[]): void => {
    const run = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
    if (run.status !== 0)
      throw new Error(`openssl ${args.join(' ')} failed: ${run.error?.message ?? run.stderr}`);
  };
  const subject = (cn: string): string[] => ['-subj', `/CN=${cn}`];
  openssl([
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '1',
    ...subject('mock-idp test CA'),
    '-keyout',
    file('ca.key'),
    '-out',
    file('ca.pem'),
  ]);
  openssl([
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    ...subject('localhost'),
    '-keyout',
    file('server.key'),
    '-out',
    file('server.csr'),
  ]);
  writeFileSync(file('server.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
  openssl([
    'x509',
    '-req',
    '-days',
    '1',
    '-in',
    file('server.csr'),
    '-CA',
    file('ca.pem'),
    '-CAkey',
    file('ca.key'),
    '-CAcreateserial',
    '-extfile',
    file('server.ext'),
    '-out',
    file('server.pem'),
  ]);
  return { ca: file('ca.pem'), cert: file('server.pem'), key: file('server.key') };
}
