// A fixed-size ring of the last `capacity` items: constant memory however long the server runs. The request
// journal and the realm's events keep their records in one in this process.

export class Ring<T> {
  readonly capacity: number;
  readonly #slots: (T | undefined)[];
  #next = 0;
  #size = 0;

  constructor(capacity: number) {
    this.capacity = capacity;
    this.#slots = new Array<T | undefined>(capacity);
  }

  /** Adds an item; past the capacity, the oldest goes. */
  add(item: T): void {
    this.#slots[this.#next] = item;
    this.#next = (this.#next + 1) % this.capacity;
    if (this.#size < this.capacity) this.#size++;
  }

  /** The items, newest first (a walk that may stop early). */
  *newestFirst(): Generator<T> {
    for (let i = 1; i <= this.#size; i++) {
      const item = this.#slots[(this.#next - i + this.capacity) % this.capacity];
      if (item !== undefined) yield item;
    }
  }

  get size(): number {
    return this.#size;
  }

  /** Empties the ring; returns how many items it held. */
  clear(): number {
    const n = this.#size;
    this.#slots.fill(undefined);
    this.#next = 0;
    this.#size = 0;
    return n;
  }
}
