// The one clock: real, shifted or frozen time. Nothing else in mock-idp reads the system time.

/** Options of a {@link Clock}. */
export interface ClockOptions {
  /** Instant time starts at, in epoch milliseconds. Default: real time. */
  startMs?: number;
  /** Whether time stands still until set or advanced. Default: false. */
  frozen?: boolean;
}

/** A snapshot of the clock, as `GET /mock/clock` shows it. */
export interface ClockState {
  now: string;
  epoch: number;
  frozen: boolean;
}

/** Parses `--clock` / `clock.start`: an ISO-8601 instant or epoch seconds. Returns epoch ms. */
export function parseInstant(value: string | number | Date): number {
  if (value instanceof Date) return value.getTime();
  if (typeof value === 'number') return Math.round(value * 1000);
  const trimmed = value.trim();
  if (/^-?\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const ms = Date.parse(trimmed);
  if (!/^\d{4}-\d{2}-\d{2}/.test(trimmed) || Number.isNaN(ms)) {
    throw new RangeError(`not an ISO-8601 instant or epoch seconds: ${JSON.stringify(value)}`);
  }
  return ms;
}

export class Clock {
  #offsetMs = 0;
  #frozenAtMs: number | undefined;

  constructor(options: ClockOptions = {}) {
    const start = options.startMs;
    if (options.frozen) this.#frozenAtMs = start ?? Clock.realMs();
    else if (start !== undefined) this.#offsetMs = start - Clock.realMs();
  }

  /** The system time in epoch ms; only for checks that must follow real time (client assertions). */
  static realMs(): number {
    return Date.now();
  }

  /** Current mock time in epoch milliseconds. */
  nowMs(): number {
    return this.#frozenAtMs ?? Clock.realMs() + this.#offsetMs;
  }

  /** Current mock time in whole epoch seconds (as JWT time claims use). */
  nowSeconds(): number {
    return Math.floor(this.nowMs() / 1000);
  }

  now(): Date {
    return new Date(this.nowMs());
  }

  get frozen(): boolean {
    return this.#frozenAtMs !== undefined;
  }

  /** True when mock time is (or follows) real time; false once set, shifted or frozen. */
  get isReal(): boolean {
    return this.#frozenAtMs === undefined && this.#offsetMs === 0;
  }

  /** Sets the time and/or whether it is frozen. */
  set(options: { nowMs?: number; frozen?: boolean }): void {
    const target = options.nowMs ?? this.nowMs();
    const frozen = options.frozen ?? this.frozen;
    if (frozen) {
      this.#frozenAtMs = target;
      this.#offsetMs = 0;
    } else {
      this.#frozenAtMs = undefined;
      this.#offsetMs = target - Clock.realMs();
    }
  }

  /** Moves time forward (or back, with a negative value) by whole or fractional seconds. */
  advance(seconds: number): void {
    this.set({ nowMs: this.nowMs() + seconds * 1000 });
  }

  state(): ClockState {
    const ms = this.nowMs();
    return { now: new Date(ms).toISOString(), epoch: Math.floor(ms / 1000), frozen: this.frozen };
  }
}
