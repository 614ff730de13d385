// Keys the replicas of a shared store (Redis) hold in common: the first process makes one and stores it, the
// others load it, so every replica signs and decrypts alike.
import type { KeyObject } from 'node:crypto';
import { parsePrivateKey } from './load-key.js';

/** Stores a value shared by every process of the realm: `make` runs in the first, `valid` checks what is read. */
export type ShareValue = (
  name: string,
  make: () => Promise<string>,
  valid: (value: string) => boolean,
) => Promise<string>;

function isPrivateKey(pem: string): boolean {
  try {
    parsePrivateKey(pem);
    return true;
  } catch {
    return false;
  }
}

/** The private RSA key stored under `name` (PKCS#8 PEM), made by `make` when no process has stored it yet. */
export async function sharedRsaKey(
  share: ShareValue,
  name: string,
  make: () => Promise<KeyObject>,
): Promise<{ key: KeyObject; pem: string }> {
  const pem = await share(
    name,
    async () => (await make()).export({ format: 'pem', type: 'pkcs8' }).toString(),
    isPrivateKey,
  );
  return { key: parsePrivateKey(pem, `the shared ${name.replace('-', ' ')}`), pem };
}
