// Where a realm's injected faults (POST /mock/faults) wait: one FaultStore per realm store. In memory here;
// the Redis store keeps them in Redis, so a fault set at one replica applies at any, and a counted fault is
// used up exactly `count` times across all of them.
import type { EndpointName } from '../endpoint-names.js';

/** A fault still waiting for requests. */
export interface PendingFault {
  id: number;
  endpoint: EndpointName;
  status?: number;
  error?: string;
  description?: string;
  delayMs?: number;
  /** How many more matching requests it applies to; `always` until cleared. */
  remaining: number | 'always';
}

/** A fault as added: the store gives it its id. */
export type NewFault = Omit<PendingFault, 'id'>;

export interface FaultStore {
  /** Queues a fault; faults for the same endpoint apply in the order they were added. */
  add(fault: NewFault): Promise<PendingFault>;
  /** The pending faults, in the order they were added. */
  list(): Promise<PendingFault[]>;
  /** Removes every pending fault; answers how many there were. */
  clear(): Promise<number>;
  /**
   * Uses up one application of the first pending fault for `endpoint`, atomically: of several callers
   * racing for the last application, one gets it. Answers the fault as it is after this use.
   */
  take(endpoint: EndpointName): Promise<PendingFault | undefined>;
  /**
   * True when no fault is pending, known without waiting (the memory store): then every request skips `take`.
   * A shared store, which would have to ask, leaves it out.
   */
  none?(): boolean;
}

/** The faults in this process's memory (the memory store's). */
export class MemoryFaults implements FaultStore {
  #pending: PendingFault[] = [];
  #nextId = 1;

  async add(fault: NewFault): Promise<PendingFault> {
    const added = { id: this.#nextId++, ...fault };
    this.#pending.push(added);
    return { ...added };
  }

  async list(): Promise<PendingFault[]> {
    return this.#pending.map((f) => ({ ...f }));
  }

  async clear(): Promise<number> {
    const n = this.#pending.length;
    this.#pending = [];
    return n;
  }

  none(): boolean {
    return this.#pending.length === 0;
  }

  async take(endpoint: EndpointName): Promise<PendingFault | undefined> {
    const fault = this.#pending.find((f) => f.endpoint === endpoint);
    if (fault === undefined) return undefined;
    if (fault.remaining !== 'always') {
      fault.remaining -= 1;
      if (fault.remaining <= 0) this.#pending = this.#pending.filter((f) => f !== fault);
    }
    return { ...fault };
  }
}
