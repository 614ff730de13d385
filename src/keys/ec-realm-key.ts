// The realm's EC P-256 key with its chain: the given key and chain, or made from the realm's ids and clock.
import { createPublicKey, X509Certificate, type KeyObject } from 'node:crypto';
import { makeChain, readChain } from './chain.js';
import { ecKeyFromScalar, scalarFromSeed, toEcSigningKey, type EcSigningKey } from './ec-key.js';
import { KeyLoadError } from './load-key.js';
import type { EcStart, GivenKey } from './given-key.js';

/** The realm's EC key: the given one (with its chain, or one made for it), else one made from the ids. */
export async function ecSigningKey(
  realm: string,
  given: GivenKey | undefined,
  start: EcStart,
): Promise<EcSigningKey> {
  const leafKey = given?.key.key ?? ecKeyFromScalar(scalarFromSeed(start.ids.bytes('ec-signing-key', 48)));
  if (given?.x5c !== undefined) {
    const chain = checkedChain(given.x5c, leafKey, given.source);
    return toEcSigningKey(leafKey, chain.x5c, chain.x5tS256);
  }
  const chain = await makeChain({
    realm,
    caKey: ecKeyFromScalar(scalarFromSeed(start.ids.bytes('ec-ca-key', 48))),
    leafKey,
    caSerial: start.ids.bytes('ec-ca-serial', 16),
    leafSerial: start.ids.bytes('ec-leaf-serial', 16),
    // Whole seconds: certificates hold no fractions, and a fixed --clock then gives the same bytes.
    notBefore: new Date(Math.floor(start.now.getTime() / 1000) * 1000),
  });
  return toEcSigningKey(leafKey, chain.x5c, chain.x5tS256);
}

/** A given chain, checked: certificates that decode, the first one the key's. */
export function checkedChain(
  certs: string[],
  key: KeyObject,
  source: string,
): { x5c: string[]; x5tS256: string } {
  let chain: ReturnType<typeof readChain>;
  try {
    chain = readChain(certs);
  } catch {
    throw new KeyLoadError(`${source}: x5c: a certificate that does not decode (give PEM or base64 DER)`);
  }
  const leaf = new X509Certificate(chain.ders[0] ?? Buffer.alloc(0));
  if (!leaf.publicKey.equals(createPublicKey(key)))
    throw new KeyLoadError(`${source}: x5c: the first certificate is not the key's (its public key differs)`);
  return { x5c: chain.x5c, x5tS256: chain.x5tS256 };
}

/** A made key as the replicas of a shared store keep it: its scalar and its chain (JSON). */
export function exportEc(key: EcSigningKey): string {
  return JSON.stringify({ d: Buffer.from(key.scalar).toString('base64url'), x5c: key.x5c });
}

/** The key and chain of a stored text, checked (a chain that is not the key's is no key); throws if not one. */
function parseShared(text: string): { key: KeyObject; chain: { x5c: string[]; x5tS256: string } } {
  const { d, x5c } = JSON.parse(text) as { d?: unknown; x5c?: unknown };
  if (typeof d !== 'string' || !Array.isArray(x5c) || !x5c.every((c) => typeof c === 'string'))
    throw new KeyLoadError('the shared EC key: not {d, x5c}');
  const key = ecKeyFromScalar(Buffer.from(d, 'base64url'));
  return { key, chain: checkedChain(x5c as string[], key, 'the shared EC key') };
}

export function isSharedEc(text: string): boolean {
  try {
    parseShared(text);
    return true;
  } catch {
    return false;
  }
}

export async function importEc(text: string): Promise<EcSigningKey> {
  const { key, chain } = parseShared(text);
  return toEcSigningKey(key, chain.x5c, chain.x5tS256);
}
