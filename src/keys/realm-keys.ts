// Chooses the realm's keys: --key, else the fixtures' `keys`, else a fresh ephemeral key, for the RSA signing key,
// the EC P-256 key (made with its certificate chain when first asked for unless it is given) and the RSA
// encryption key (`use: enc`).
import type { KeyObject } from 'node:crypto';
import { resolve as resolvePath } from 'node:path';
import type { Realm } from '../fixtures/realm.js';
import { toEncryptionKey, startEncryptionKey, type EncryptionKey } from './encryption-key.js';
import { generateSigningKey, KeyStore, toSigningKey, type SigningKey } from './key-store.js';
import { takeEphemeralKey } from './ephemeral.js';
import type { EcStart, GivenKey } from './given-key.js';
import { sharedRsaKey, type ShareValue } from './shared-key.js';
import { KeyLoadError, parseSigningKey, readSigningKeyFile } from './load-key.js';

/** Splits given keys into the RSA signing keys (in order), the one EC key and the one encryption key. */
function split(given: GivenKey[]): {
  rsa: KeyObject[];
  ec: GivenKey | undefined;
  enc: KeyObject | undefined;
} {
  const rsa: KeyObject[] = [];
  let ec: GivenKey | undefined;
  let enc: KeyObject | undefined;
  for (const g of given) {
    if (g.key.use === 'enc') {
      if (g.key.kind !== 'rsa' || g.x5c !== undefined)
        throw new KeyLoadError(`${g.source}: use enc is for an RSA key (RSA-OAEP), without x5c`);
      if (enc !== undefined)
        throw new KeyLoadError(`${g.source}: a second key with use enc: a realm has one`);
      enc = g.key.key;
    } else if (g.key.kind === 'rsa') {
      if (g.x5c !== undefined)
        throw new KeyLoadError(
          `${g.source}: x5c is for the EC P-256 key; the RSA key is published without one`,
        );
      rsa.push(g.key.key);
    } else if (ec !== undefined) {
      throw new KeyLoadError(`${g.source}: a second EC P-256 key: a realm signs ES256 with one`);
    } else ec = g;
  }
  return { rsa, ec, enc };
}

/** The keys of --key (an RSA key, an EC P-256 key or both), else of the fixtures' `keys`. */
async function givenKeys(realm: Realm, keyFile: string | string[] | undefined): Promise<GivenKey[]> {
  const files = keyFile === undefined ? [] : Array.isArray(keyFile) ? keyFile : [keyFile];
  if (files.length > 0)
    return Promise.all(files.map(async (file) => ({ key: await readSigningKeyFile(file), source: file })));
  return Promise.all(
    (realm.keys ?? []).map(async (spec, i) => {
      const source = `${realm.source}: keys[${i}]`;
      const key =
        'file' in spec
          ? await readSigningKeyFile(resolvePath(realm.baseDir, spec.file))
          : 'pem' in spec
            ? parseSigningKey(spec.pem, source)
            : parseSigningKey(spec.jwk, source);
      const use = spec.use ?? key.use;
      return {
        key: { kind: key.kind, key: key.key, ...(use === 'enc' ? { use } : {}) },
        source,
        ...(spec.x5c !== undefined ? { x5c: spec.x5c } : {}),
      };
    }),
  );
}

/** The realm's keys: its signing keys (KeyStore) and its encryption key, being made (not awaited at start). */
interface RealmKeys {
  keys: KeyStore;
  encryptionKey: Promise<EncryptionKey>;
}

export async function loadRealmKeys(
  realm: Realm,
  keyFile: string | string[] | undefined,
  share?: ShareValue,
  pems?: Map<string, string>,
  start?: EcStart,
): Promise<RealmKeys> {
  const { rsa, ec, enc } = split(await givenKeys(realm, keyFile));
  // The encryption key: the given one; under a seed with a fixed RSA key, that key's material under its own
  // kid, so `certs` is byte-identical from run to run (section 5); else made at start (or the replicas' one).
  const first = rsa[0];
  const encryptionKey =
    enc !== undefined
      ? toEncryptionKey(enc)
      : first !== undefined && start?.ids.seeded === true
        ? toEncryptionKey(first, true)
        : startEncryptionKey(share);
  const rsaKeys =
    rsa.length > 0 ? await Promise.all(rsa.map((key) => toSigningKey(key))) : await madeRsaKey(share, pems);
  // The EC module (@noble/curves, @peculiar/x509) loads only when an EC key is made: not on a cold start's path.
  const makeEc =
    start === undefined
      ? undefined
      : async () => {
          const made = await import('./ec-realm-key.js');
          if (ec !== undefined || share === undefined) return made.ecSigningKey(realm.name, ec, start);
          // A shared store: the first process makes the key and its chain, the others load them.
          const text = await share(
            'ec-signing-key',
            async () => made.exportEc(await made.ecSigningKey(realm.name, undefined, start)),
            made.isSharedEc,
          );
          return made.importEc(text);
        };
  const store = new KeyStore(rsaKeys, makeEc);
  // A key given on purpose is published at start; a made one is made when first asked for.
  if (ec !== undefined) await store.publishEc(true);
  return { keys: store, encryptionKey };
}

/** The RSA key when none is given: shared by the replicas of a shared store, else the process's own. */
async function madeRsaKey(share?: ShareValue, pems?: Map<string, string>): Promise<SigningKey[]> {
  if (share !== undefined) {
    // A shared store: the first process makes the ephemeral key and stores it, the others load it.
    const shared = await sharedRsaKey(share, 'signing-key', takeEphemeralKey);
    const key = await toSigningKey(shared.key);
    pems?.set(key.kid, shared.pem);
    return [key];
  }
  return [await generateSigningKey()];
}
