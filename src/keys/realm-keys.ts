// Chooses the realm's signing keys: --key, else the fixtures' `keys`, else a fresh ephemeral key.
import { resolve as resolvePath } from 'node:path';
import type { Realm } from '../fixtures/realm.js';
import { generateSigningKey, KeyStore, toSigningKey } from './key-store.js';
import { parsePrivateKey, readPrivateKeyFile } from './load-key.js';

export async function loadRealmKeys(realm: Realm, keyFile: string | undefined): Promise<KeyStore> {
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
  return new KeyStore([await generateSigningKey()]);
}
