// Reading private signing keys (RSA, or EC P-256) given as PEM (PKCS#8, PKCS#1 or SEC1) or JWK, from text or a file.
import { createPrivateKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';

export class KeyLoadError extends Error {
  readonly code = 'ERR_KEY_INVALID' as const;
  override name = 'KeyLoadError';
}

/** The label of a PEM block (`-----BEGIN {label}-----`) when it is a plain one; never other text of the file. */
function pemLabel(text: string): string | undefined {
  const label = /^-----BEGIN ([A-Z0-9 ]{1,40})-----/.exec(text.trimStart())?.[1];
  return label;
}

/** A private key of either kind the realm signs with; `use: 'enc'` marks an RSA key given as its encryption key. */
export type SigningKeyObject = { kind: 'rsa' | 'ec'; key: KeyObject; use?: 'enc' };

/** Whether a key given as JWK (object or JSON text) says `"use": "enc"`. */
function saysEnc(input: string | Record<string, unknown>): boolean {
  if (typeof input !== 'string') return input['use'] === 'enc';
  if (!input.trimStart().startsWith('{')) return false;
  try {
    return (JSON.parse(input) as Record<string, unknown>)['use'] === 'enc';
  } catch {
    return false;
  }
}

/**
 * Decodes a private key from PEM or JWK text (or a JWK object), of any type. A key that is not one says what
 * it is not, never echoing the input (a key file is a secret, and error messages end up in CI logs).
 */
function decodePrivateKey(
  input: string | Record<string, unknown>,
  source: string,
  jwkHint: string,
): KeyObject {
  const fail = (what: string): KeyLoadError => new KeyLoadError(`${source}: not a private key: ${what}`);
  let key: KeyObject;
  if (typeof input === 'string' && input.trimStart().startsWith('-----BEGIN')) {
    const label = pemLabel(input);
    if (label !== undefined && !/PRIVATE KEY$/.test(label))
      throw fail(`a PEM "${label}" block, not a private key (PRIVATE KEY or RSA PRIVATE KEY)`);
    try {
      key = createPrivateKey({ key: input, format: 'pem' });
    } catch {
      throw fail(
        `a PEM ${label !== undefined ? `"${label}" ` : ''}block that does not decode (damaged, encrypted or not PKCS#8/PKCS#1)`,
      );
    }
  } else {
    let jwk: unknown = input;
    if (typeof input === 'string') {
      try {
        jwk = JSON.parse(input);
      } catch {
        throw fail('the text is neither PEM (-----BEGIN PRIVATE KEY-----) nor JSON (a JWK)');
      }
    }
    const fields = typeof jwk === 'object' && jwk !== null && !Array.isArray(jwk) ? jwk : {};
    if ('kty' in fields && !('d' in fields))
      throw fail('a public JWK (no "d"): give the private key, whose public half clients verify with');
    try {
      key = createPrivateKey({ key: jwk as JsonWebKey, format: 'jwk' });
    } catch {
      throw fail(`JSON, but not a ${jwkHint}`);
    }
  }
  return key;
}

const RSA_JWK = 'private RSA JWK (kty "RSA" with n, e, d, p, q, dp, dq, qi)';

function checkRsa(key: KeyObject, source: string): KeyObject {
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

/** Parses a private RSA key from PEM or JWK text (or a JWK object). */
export function parsePrivateKey(input: string | Record<string, unknown>, source = 'key'): KeyObject {
  return checkRsa(decodePrivateKey(input, source, RSA_JWK), source);
}

/** Parses a private signing key: RSA (at least 2048 bits, for RS256) or EC on P-256 (for ES256). */
export function parseSigningKey(input: string | Record<string, unknown>, source = 'key'): SigningKeyObject {
  const key = decodePrivateKey(
    input,
    source,
    `${RSA_JWK} or private EC JWK (kty "EC" with crv "P-256", x, y, d)`,
  );
  const use = saysEnc(input) ? ({ use: 'enc' } as const) : {};
  if (key.asymmetricKeyType === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve !== 'prime256v1')
      throw new KeyLoadError(
        `${source}: an EC key on P-256 (prime256v1) is needed for ES256, got the curve ${curve ?? 'unknown'}`,
      );
    return { kind: 'ec', key, ...use };
  }
  if (key.asymmetricKeyType === 'rsa') return { kind: 'rsa', key: checkRsa(key, source), ...use };
  throw new KeyLoadError(
    `${source}: an RSA key (RS256) or an EC P-256 key (ES256) is needed, got ${key.asymmetricKeyType ?? 'unknown'}`,
  );
}

async function readKeyText(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    throw new KeyLoadError(
      `${path}: cannot read key (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
    );
  }
}

export async function readSigningKeyFile(path: string): Promise<SigningKeyObject> {
  return parseSigningKey(await readKeyText(path), path);
}
