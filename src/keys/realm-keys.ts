// Chooses the realm's signing keys: --key, else the fixtures' `keys`, else a fresh ephemeral key.
import { resolve as resolvePath } from 'node:path';
import type { Realm } from '../fixtures/realm.js';
import { generateSigningKey, KeyStore, toSigningKey } from './key-store.js';
import { takeEphemeralKey } from './ephemeral.js';
import { parsePrivateKey, readPrivateKeyFile } from './load-key.js';

/** Stores a value shared by every process of the realm (a Redis store), or undefined: the key is the process's own. */
type ShareValue = (
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

export async function loadRealmKeys(
  realm: Realm,
  keyFile: string | undefined,
  share?: ShareValue,
  pems?: Map<string, string>,
): Promise<KeyStore> {
  if (keyFile !== undefined) return new KeyStore([await toSigningKey(await readPrivateKeyFile(keyFile))]);
  if (realm.keys !== undefined) {
    const keys = await Promise.all(
      realm.keys.map(async (spec, i) => {
        const source = `${realm.source}: keys[${i}]`;
        const key =
          'file' in spec
            ? await readPrivateKeyFile(resolvePath(realm.baseDir, spec.file))
            : 'pem' in spec
              ? parsePrivateKey(spec.pem, source)
              : parsePrivateKey(spec.jwk, source);
        return toSigningKey(key);
      }),
    );
    return new KeyStore(keys);
  }
  if (share !== undefined) {
    // A shared store: the first process makes the ephemeral key and stores it, the others load it.
    const pem = await share(
      'signing-key',
      async () => (await takeEphemeralKey()).export({ format: 'pem', type: 'pkcs8' }).toString(),
      isPrivateKey,
    );
    const key = await toSigningKey(parsePrivateKey(pem, 'the shared signing key'));
    pems?.set(key.kid, pem);
    return new KeyStore([key]);
  }
  return new KeyStore([await generateSigningKey()]);
}
