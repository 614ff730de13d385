// The one id source: jti, session ids, codes, secrets. Seeded = reproducible; otherwise crypto random.
import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';

/** Formats 16 bytes as an RFC 4122 version-4-shaped UUID. */
function toUuid(bytes: Buffer): string {
  const b = Buffer.from(bytes.subarray(0, 16));
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x40;
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
  const hex = b.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A stable UUID derived from names (for generated subjects); the same names give the same UUID. */
export function nameUuid(...names: string[]): string {
  return toUuid(createHash('sha256').update(names.join('\u0000')).digest());
}

export class Ids {
  readonly #seed: string | undefined;
  readonly #counters = new Map<string, number>();

  /** @param seed makes every id reproducible; without it ids are crypto random. */
  constructor(seed?: string) {
    this.#seed = seed;
  }

  get seeded(): boolean {
    return this.#seed !== undefined;
  }

  /** `n` bytes for the given purpose: the next of a seeded sequence, or random. */
  bytes(purpose: string, n = 32): Buffer {
    if (this.#seed === undefined) return randomBytes(n);
    const count = (this.#counters.get(purpose) ?? 0) + 1;
    this.#counters.set(purpose, count);
    const out: Buffer[] = [];
    for (let block = 0; out.length * 32 < n; block++) {
      out.push(createHmac('sha256', this.#seed).update(`${purpose}\u0000${count}\u0000${block}`).digest());
    }
    return Buffer.concat(out).subarray(0, n);
  }

  /** A UUID-shaped id (jti, session id), as Keycloak uses. */
  uuid(purpose: string): string {
    if (this.#seed === undefined) return randomUUID();
    return toUuid(this.bytes(purpose, 16));
  }

  /** An opaque url-safe token (authorization codes). */
  opaque(purpose: string, n = 32): string {
    return this.bytes(purpose, n).toString('base64url');
  }

  /** A fixed secret for a purpose: derived from the seed when there is one, else random once. */
  secret(purpose: string): Buffer {
    if (this.#seed === undefined) return randomBytes(32);
    return createHmac('sha256', this.#seed).update(`secret\u0000${purpose}`).digest();
  }
}
