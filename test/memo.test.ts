// BoundedMemo (src/memo.ts): the one "remember by key, drop all when full" cache behind the per-request
// memos (Basic headers, origins, issuers, redirect URIs, cookie attributes, claims per scope set).
import { describe, expect, it } from 'vitest';
import { BoundedMemo } from '../src/memo.js';

describe('BoundedMemo', () => {
  it('makes a value once per key and hands the kept one back after', () => {
    const memo = new BoundedMemo<{ n: number }>(4);
    let made = 0;
    const make = (key: string): { n: number } => ({ n: (made++, key.length) });
    const first = memo.remember('abc', make);
    expect(memo.remember('abc', make)).toBe(first);
    expect(made).toBe(1);
    expect(memo.get('abc')).toBe(first);
  });

  it.each([1, 2, 64])('never holds more than its bound (%i): the key past it drops the others', (max) => {
    const memo = new BoundedMemo<string>(max);
    for (let i = 0; i < max; i++) memo.remember(`k${i}`, (k) => k);
    expect(memo.size).toBe(max);
    memo.remember('one more', (k) => k);
    expect(memo.size).toBe(1);
    expect(memo.get('one more')).toBe('one more');
    expect(memo.get('k0')).toBeUndefined();
  });

  it('keeps nothing when making the value throws', () => {
    const memo = new BoundedMemo<string>(4);
    expect(() =>
      memo.remember('bad', () => {
        throw new Error('unreadable');
      }),
    ).toThrow('unreadable');
    expect(memo.size).toBe(0);
  });

  it('keeps what set gives it, falsy values included, and clear drops all', () => {
    const memo = new BoundedMemo<boolean>(4);
    expect(memo.set('no', false)).toBe(false);
    expect(memo.remember('no', () => true)).toBe(false);
    memo.clear();
    expect(memo.get('no')).toBeUndefined();
  });

  it('takes key names of Object.prototype as data', () => {
    const memo = new BoundedMemo<string>(4);
    expect(memo.get('constructor')).toBeUndefined();
    expect(memo.remember('__proto__', () => 'x')).toBe('x');
    expect(memo.get('__proto__')).toBe('x');
  });
});
