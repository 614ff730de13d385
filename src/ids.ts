// The one id source: jti, session ids, codes, secrets. Seeded = reproducible; otherwise crypto random.
import { createHmac, hash, randomBytes } from 'node:crypto';

const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');

/**
 * Formats 16 bytes as an RFC 4122 version-4-shaped UUID. Written into a buffer so the string is flat:
 * crypto.randomUUID() and template concatenation give rope strings of ~500 bytes, which the session
 * store would keep by the ten thousand under load.
 */
function toUuid(bytes: Buffer): string {
  const out = Buffer.allocUnsafe(36);
  let o = 0;
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) out[o++] = 0x2d;
    let byte = bytes[i] ?? 0;
    if (i === 6) byte = (byte & 0x0f) | 0x40;
    if (i === 8) byte = (byte & 0x3f) | 0x80;
    out[o++] = HEX_DIGITS[byte >> 4] ?? 0x30;
    out[o++] = HEX_DIGITS[byte & 0x0f] ?? 0x30;
  }
  return out.toString('latin1');
}

/** Where nameUuid writes a UUID before it becomes a (flat) string: one buffer, reused, as the work is synchronous. */
const UUID_TEXT = Buffer.alloc(36);

/**
 * A stable UUID derived from names (for generated subjects); the same names give the same UUID: the first
 * 16 bytes of their SHA-256, shaped as {@link toUuid} shapes bytes. Made from the hash's hex text in one
 * reused buffer: a fixtures file of fifty thousand users makes fifty thousand of these, and a Buffer per
 * hash and per UUID cost twice the hashing itself.
 */
export function nameUuid(...names: string[]): string {
  const hex = hash('sha256', names.join('\u0000'), 'hex');
  let o = 0;
  for (let i = 0; i < 32; i++) {
    if (i === 8 || i === 12 || i === 16 || i === 20) UUID_TEXT[o++] = 0x2d;
    let digit = hex.charCodeAt(i);
    if (i === 12)
      digit = 0x34; // version 4: byte 6's high nibble
    else if (i === 16) digit = HEX_DIGITS[(Number.parseInt(hex.charAt(16), 16) & 0x3) | 0x8] ?? 0x38; // variant 10xx
    UUID_TEXT[o++] = digit;
  }
  return UUID_TEXT.toString('latin1');
}

/** A random UUID that no seed reproduces: it tells processes (or their writes) apart, even with one seed. */
export function uniqueId(): string {
  return toUuid(randomBytes(16));
}

/** The letters of user codes: RFC 8628 §6.1's consonants, as Keycloak's user codes use. */
const USER_CODE_LETTERS = 'BCDFGHJKLMNPQRSTVWXZ';

export class Ids {
  readonly #seed: string | undefined;
  readonly #counters = new Map<string, number>();
  /** Random bytes drawn in blocks: one call to the CSPRNG per 256 ids, not one per id. */
  #pool = Buffer.alloc(0);
  #offset = 0;

  /** @param seed makes every id reproducible; without it ids are crypto random. */
  constructor(seed?: string) {
    this.#seed = seed;
  }

  get seeded(): boolean {
    return this.#seed !== undefined;
  }

  /** `n` bytes for the given purpose: the next of a seeded sequence, or random. */
  bytes(purpose: string, n = 32): Buffer {
    if (this.#seed === undefined) return this.#random(n);
    const count = (this.#counters.get(purpose) ?? 0) + 1;
    this.#counters.set(purpose, count);
    const out: Buffer[] = [];
    for (let block = 0; out.length * 32 < n; block++) {
      out.push(createHmac('sha256', this.#seed).update(`${purpose}\u0000${count}\u0000${block}`).digest());
    }
    return Buffer.concat(out).subarray(0, n);
  }

  #random(n: number): Buffer {
    if (n > 256) return randomBytes(n);
    if (this.#offset + n > this.#pool.length) {
      this.#pool = randomBytes(4096);
      this.#offset = 0;
    }
    // A copy: callers may keep or change the bytes, and the pool must never hand out the same bytes twice.
    const out = Buffer.from(this.#pool.subarray(this.#offset, this.#offset + n));
    this.#offset += n;
    return out;
  }

  /** A UUID-shaped id (jti, session id), as Keycloak uses. */
  uuid(purpose: string): string {
    return toUuid(this.bytes(purpose, 16));
  }

  /** An opaque url-safe token (authorization codes). */
  opaque(purpose: string, n = 32): string {
    return this.bytes(purpose, n).toString('base64url');
  }

  /**
   * A user code to type on another device (RFC 8628 §6.1): eight letters of twenty consonants (no vowels, so
   * no words; none that reads as a digit), `ABCD-EFGH` as Keycloak writes them. 20^8 ≈ 2.6e10 of them.
   */
  userCode(purpose: string): string {
    const bytes = this.bytes(purpose, 8);
    const letters = [...bytes].map((b) => USER_CODE_LETTERS[b % USER_CODE_LETTERS.length] as string);
    return `${letters.slice(0, 4).join('')}-${letters.slice(4).join('')}`;
  }

  /** A fixed secret for a purpose: derived from the seed when there is one, else random once. */
  secret(purpose: string): Buffer {
    if (this.#seed === undefined) return randomBytes(32);
    return createHmac('sha256', this.#seed).update(`secret\u0000${purpose}`).digest();
  }
}
