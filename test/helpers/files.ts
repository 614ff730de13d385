// Temporary files for tests: a directory removed by the test, and a fresh RSA key in it.
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A temporary directory, removed by the returned function. */
export function tempDir(): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'mock-idp-test-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Writes a fresh RSA-2048 private key (PKCS#8 PEM) into `dir` and returns its path. */
export function writeTestKey(dir: string, name = 'key.pem'): string {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const path = join(dir, name);
  writeFileSync(path, privateKey.export({ format: 'pem', type: 'pkcs8' }));
  return path;
}

/**
 * Fixtures of realm `realm` over the 256 kB above which the binary reads a text on its fixtures worker:
 * client `web-app` (secret `s`), 3,000 users with claims and roles, and last a user `fixed` with a fixed
 * `sub` and the claims `lastClaims` (YAML).
 */
export function bigFixtures(realm = 'mock', lastClaims = '{ name: Fixed }'): string {
  const lines = [
    `realm: ${realm}`,
    'clients:',
    '  web-app:',
    '    secret: s',
    '    redirectUris: [http://app.example/cb]',
    'users:',
  ];
  for (let i = 0; i < 3_000; i++) {
    lines.push(
      `  user${i}:`,
      `    claims: { name: User ${i}, idp_altsub: 9578-6000-4-${String(i).padStart(6, '0')}, level: ${i % 7}, on: yes }`,
      `    realmRoles: [user, r${i % 3}]`,
    );
  }
  lines.push('  fixed:', '    sub: 00000000-0000-4000-8000-000000000001', `    claims: ${lastClaims}`);
  return `${lines.join('\n')}\n`;
}
