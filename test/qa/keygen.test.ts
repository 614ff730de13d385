// `mock-idp keygen`: a private RSA key (PEM or JWK) that `serve --key` and `token --key` accept.
import { createPrivateKey, createPublicKey, type JsonWebKey } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { jwtVerify } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import { runBin } from '../helpers/cli.js';
import { tempDir } from '../helpers/files.js';

const tmp = tempDir();
afterAll(() => tmp.remove());

describe('mock-idp keygen', () => {
  it.each([
    [[], 2048, 'pem'],
    [['--bits', '3072'], 3072, 'pem'],
    [['--jwk'], 2048, 'jwk'],
  ] as const)('%j prints an RSA-%i private key as %s', async (args, bits, format) => {
    const { code, stdout, stderr } = await runBin(['keygen', ...args]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const key =
      format === 'pem'
        ? createPrivateKey(stdout)
        : createPrivateKey({ key: JSON.parse(stdout) as JsonWebKey, format: 'jwk' });
    if (format === 'pem')
      expect(stdout).toMatch(/^-----BEGIN PRIVATE KEY-----\n[\s\S]+-----END PRIVATE KEY-----\n$/);
    expect(key.asymmetricKeyType).toBe('rsa');
    expect(key.asymmetricKeyDetails?.modulusLength).toBe(bits);
  });

  it('prints a different key each time', async () => {
    const [a, b] = await Promise.all([runBin(['keygen']), runBin(['keygen'])]);
    expect(a.stdout).not.toBe(b.stdout);
  });

  it.each(['1024', '9000', 'big'])('--bits %s is a usage error', async (bits) => {
    const { code, stderr } = await runBin(['keygen', '--bits', bits]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/2048 to 8192/);
  });

  it.each(['pem', 'jwk'])('a %s key works with token --key', async (format) => {
    const generated = await runBin(['keygen', ...(format === 'jwk' ? ['--jwk'] : [])]);
    const file = join(tmp.dir, `key.${format}`);
    writeFileSync(file, generated.stdout);
    const { code, stdout } = await runBin(['token', '--key', file, '--client', 'web-app']);
    expect(code).toBe(0);
    const publicKey = createPublicKey(
      format === 'jwk'
        ? { key: JSON.parse(generated.stdout) as JsonWebKey, format: 'jwk' }
        : generated.stdout,
    );
    await expect(jwtVerify(stdout.trim(), publicKey)).resolves.toBeDefined();
  });
});
