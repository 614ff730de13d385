// Compact JWS for the tokens issued per request: RS256 through crypto.sign's callback form (the libuv thread
// pool, off the event loop) and HS256 through createHmac, each over a protected header serialized once per key.
// The bytes are jose's exactly (same header and payload JSON, deterministic signatures; test/tokens/jws.test.ts
// holds the two to each other and verifies the output with jose): this only skips jose's per-call claim
// builder, header checks and WebCrypto hand-off. jose stays for verification, JWK/JWKS and the QA mint's algs.
import { createHmac, sign, type KeyObject } from 'node:crypto';
import type { JWTHeaderParameters, JWTPayload } from 'jose';
import type { SigningKey } from '../keys/key-store.js';

/** A key's Node KeyObject and its default header segment (`{"alg","typ":"JWT","kid"}`, base64url, then "."). */
interface Prepared {
  key: KeyObject | Uint8Array;
  head: string;
}

const prepared = new WeakMap<object, Prepared>();

const segment = (json: string): string => Buffer.from(json, 'utf8').toString('base64url');

/** The header segment: the prepared one, or one for extra parameters (in jose's order: alg, typ, kid, rest). */
function headOf(
  alg: 'RS256' | 'HS256',
  kid: string,
  p: Prepared,
  header: Partial<JWTHeaderParameters> | undefined,
): string {
  if (header === undefined) return p.head;
  for (const _ in header) return `${segment(JSON.stringify({ alg, typ: 'JWT', kid, ...header }))}.`;
  return p.head;
}

function preparedRsa(key: SigningKey): Prepared {
  let p = prepared.get(key.privateKey);
  if (p === undefined) {
    p = {
      key: key.privateKeyObject,
      head: `${segment(JSON.stringify({ alg: 'RS256', typ: 'JWT', kid: key.kid }))}.`,
    };
    prepared.set(key.privateKey, p);
  }
  return p;
}

/** RS256 (RSASSA-PKCS1-v1_5 with SHA-256) compact JWS of `claims`, signed on the thread pool. */
export function jwsRs256(
  key: SigningKey,
  claims: JWTPayload,
  header?: Partial<JWTHeaderParameters>,
): Promise<string> {
  const p = preparedRsa(key);
  const input = headOf('RS256', key.kid, p, header) + segment(JSON.stringify(claims));
  return new Promise((resolve, reject) => {
    sign('sha256', Buffer.from(input, 'latin1'), p.key as KeyObject, (err, signature) => {
      if (err !== null) reject(err);
      else resolve(`${input}.${signature.toString('base64url')}`);
    });
  });
}

/** HS256 compact JWS of `claims` with a secret and its kid (an HMAC is microseconds: no thread hop). */
export function jwsHs256(
  secret: { kid: string; key: Uint8Array },
  claims: JWTPayload,
  header?: Partial<JWTHeaderParameters>,
): string {
  let p = prepared.get(secret.key);
  if (p === undefined) {
    p = {
      key: secret.key,
      head: `${segment(JSON.stringify({ alg: 'HS256', typ: 'JWT', kid: secret.kid }))}.`,
    };
    prepared.set(secret.key, p);
  }
  const input = headOf('HS256', secret.kid, p, header) + segment(JSON.stringify(claims));
  return `${input}.${createHmac('sha256', p.key as Uint8Array)
    .update(input, 'latin1')
    .digest('base64url')}`;
}
