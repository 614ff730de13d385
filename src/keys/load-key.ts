// Reading private RSA keys given as PEM (PKCS#8 or PKCS#1) or JWK, from text or a file.
import { createPrivateKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';

export class KeyLoadError extends Error {
  readonly code = 'ERR_KEY_INVALID' as const;
  override name = 'KeyLoadError';
}

/** Parses a private RSA key from PEM or JWK text (or a JWK object). */
export function parsePrivateKey(input: string | Record<string, unknown>, source = 'key'): KeyObject {
  let key: KeyObject;
  try {
    if (typeof input === 'string' && input.trimStart().startsWith('-----BEGIN')) {
      key = createPrivateKey({ key: input, format: 'pem' });
    } else {
      const jwk: unknown = typeof input === 'string' ? JSON.parse(input) : input;
      key = createPrivateKey({ key: jwk as JsonWebKey, format: 'jwk' });
    }
  } catch (err) {
    throw new KeyLoadError(`${source}: not a PEM or JWK private key (${(err as Error).message})`);
  }
  if (key.asymmetricKeyType !== 'rsa') {
    throw new KeyLoadError(
      `${source}: an RSA key is needed for RS256, got ${key.asymmetricKeyType ?? 'unknown'}`,
    );
  }
  if ((key.asymmetricKeyDetails?.modulusLength ?? 0) < 2048) {
    throw new KeyLoadError(`${source}: RSA keys shorter than 2048 bits are not accepted`);
  }
  return key;
}

export async function readPrivateKeyFile(path: string): Promise<KeyObject> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new KeyLoadError(
      `${path}: cannot read key (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
    );
  }
  return parsePrivateKey(text, path);
}
