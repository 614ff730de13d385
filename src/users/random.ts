// A small fast seeded PRNG (sfc32) for bulk generation, seeded from the one id source (src/ids.ts).
import { Ids } from '../ids.js';

export class SeededRandom {
  #a: number;
  #b: number;
  #c: number;
  #d: number;

  /** @param seed the same seed gives the same sequence; without one the sequence is crypto random. */
  constructor(seed: string | undefined, purpose: string) {
    const bytes = new Ids(seed).bytes(purpose, 16);
    this.#a = bytes.readUInt32LE(0);
    this.#b = bytes.readUInt32LE(4);
    this.#c = bytes.readUInt32LE(8);
    this.#d = bytes.readUInt32LE(12);
    for (let i = 0; i < 12; i++) this.uint32();
  }

  /** The next 32-bit unsigned integer. */
  uint32(): number {
    const t = (((this.#a + this.#b) | 0) + this.#d) | 0;
    this.#d = (this.#d + 1) | 0;
    this.#a = this.#b ^ (this.#b >>> 9);
    this.#b = (this.#c + (this.#c << 3)) | 0;
    this.#c = (this.#c << 21) | (this.#c >>> 11);
    this.#c = (this.#c + t) | 0;
    return t >>> 0;
  }

  /** An integer in [0, n) for n up to 2^32. */
  below(n: number): number {
    return Math.floor((this.uint32() / 0x1_0000_0000) * n);
  }

  /** An integer in [lo, hi]. */
  between(lo: number, hi: number): number {
    return lo + this.below(hi - lo + 1);
  }

  pick<T>(list: readonly T[]): T {
    const item = list[this.below(list.length)];
    if (item === undefined) throw new RangeError('pick from an empty list');
    return item;
  }
}

/**
 * A keyed bijection on 0..999,999 (Feistel rounds over 1000 × 1000): distinct inputs give distinct,
 * random-looking outputs, so up to a million users get unique six-digit numbers without a lookup table.
 */
export function permuteSixDigits(i: number, keys: readonly number[]): number {
  let left = Math.floor(i / 1000);
  let right = i % 1000;
  for (const key of keys) {
    let h = Math.imul(right ^ key, 0x9e3779b1);
    h ^= h >>> 15;
    h = Math.imul(h, 0x85ebca77);
    h ^= h >>> 13;
    const next = (left + ((h >>> 0) % 1000)) % 1000;
    left = right;
    right = next;
  }
  return left * 1000 + right;
}
