// A small memo for values derived from request text that repeats (a client's Basic header, a Host, a
// redirect URI, a realm's issuer): kept by key, at most `max` of them, all dropped when full. Clearing
// instead of evicting one by one keeps a hit to one Map lookup; the bound keeps hostile or varied input
// from growing it without limit.

export class BoundedMemo<V> {
  readonly #values = new Map<string, V>();

  constructor(readonly max: number) {}

  get size(): number {
    return this.#values.size;
  }

  get(key: string): V | undefined {
    return this.#values.get(key);
  }

  clear(): void {
    this.#values.clear();
  }

  /** Keeps `value` under `key` (dropping everything kept first when `max` are) and returns it. */
  set(key: string, value: V): V {
    if (this.#values.size >= this.max) this.#values.clear();
    this.#values.set(key, value);
    return value;
  }

  /** The value kept under `key`, else `make(key)`, kept. `make` may throw: nothing is kept then. */
  remember(key: string, make: (key: string) => V): V {
    const known = this.#values.get(key);
    return known !== undefined ? known : this.set(key, make(key));
  }
}
