// The one clock: real, shifted or frozen time. Nothing else in mock-idp reads the system time.

/** Options of a {@link Clock}. */
interface ClockOptions {
  /** Instant time starts at, in epoch milliseconds. Default: real time. */
  startMs?: number;
  /** Whether time stands still until set or advanced. Default: false. */
  frozen?: boolean;
}

/** What `clock.set()` and `PUT /mock/clock` take. */
export interface ClockSetting {
  /** The new time: ISO-8601 instant, epoch seconds or a Date. Default: the time stays. */
  now?: string | number | Date;
  /** Whether time stands still from then on. Default: as it was. */
  frozen?: boolean;
}

/** A snapshot of the clock, as `GET /mock/clock` shows it. */
export interface ClockState {
  now: string;
  epoch: number;
  frozen: boolean;
}

/** The earliest instant the clock can show: 1970-01-01T00:00:00Z (JWT times are seconds since then). */
const MIN_INSTANT_MS = 0;
/** The latest instant the clock can show: 9999-12-31T23:59:59Z (the last one ISO-8601 writes in 4 digits). */
const MAX_INSTANT_MS = 253_402_300_799_000;

/** A time outside what the clock can show (1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z), or not a time at all. */
export class ClockRangeError extends RangeError {
  readonly code = 'ERR_CLOCK_RANGE' as const;
  override name = 'ClockRangeError';
}

/** The one range check of every clock value (start, set, advance, minted times): returns `ms`, or throws. */
export function checkInstantMs(ms: number, what = 'time'): number {
  if (!Number.isFinite(ms) || ms < MIN_INSTANT_MS || ms > MAX_INSTANT_MS) {
    throw new ClockRangeError(
      `${what} is out of range: the clock runs from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z (epoch seconds 0 to ${MAX_INSTANT_MS / 1000})`,
    );
  }
  return ms;
}

/** Parses `--clock` / `clock.start`: an ISO-8601 instant or epoch seconds, in the clock's range. Returns epoch ms. */
export function parseInstant(value: string | number | Date): number {
  if (value instanceof Date) return checkInstantMs(value.getTime());
  if (typeof value === 'number') return checkInstantMs(Math.round(value * 1000));
  const trimmed = value.trim();
  if (/^-?\d+(\.\d+)?$/.test(trimmed)) return checkInstantMs(Math.round(Number(trimmed) * 1000));
  const ms = Date.parse(trimmed);
  if (!/^\d{4}-\d{2}-\d{2}/.test(trimmed) || Number.isNaN(ms)) {
    throw new ClockRangeError(`not an ISO-8601 instant or epoch seconds: ${JSON.stringify(value)}`);
  }
  return checkInstantMs(ms);
}

export class Clock {
  #offsetMs = 0;
  #frozenAtMs: number | undefined;
  readonly #listeners: (() => void)[] = [];

  constructor(options: ClockOptions = {}) {
    const start = options.startMs !== undefined ? checkInstantMs(options.startMs, 'start time') : undefined;
    if (options.frozen) this.#frozenAtMs = start ?? Clock.realMs();
    else if (start !== undefined) this.#offsetMs = start - Clock.realMs();
  }

  /**
   * The system time in epoch ms; only for checks that must follow real time besides the mock clock: times a
   * client writes with its own clock (assertions, DPoP proofs) and rate limits (the poll interval of the device
   * flow and CIBA), so that a frozen or moved clock does not refuse a client that behaves in real time.
   */
  static realMs(): number {
    return Date.now();
  }

  /** A monotonic reading in ms (not a time of day), to measure how long something took. */
  static elapsedMs(since = 0): number {
    return performance.now() - since;
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

  /**
   * Sets the time and/or whether it is frozen, with the field names of `PUT /mock/clock`: `now` is an
   * ISO-8601 instant, epoch seconds or a Date. An unknown field throws a TypeError (a typo must not be
   * ignored); a bad or out-of-range `now` a ClockRangeError. Either way nothing changes.
   */
  set(options: ClockSetting): void {
    const unknown = Object.keys(options).filter((k) => k !== 'now' && k !== 'frozen');
    if (unknown.length > 0)
      throw new TypeError(
        `clock.set: unknown field ${unknown.map((k) => `"${k}"`).join(', ')} (fields: now, frozen)`,
      );
    if (options.frozen !== undefined && typeof options.frozen !== 'boolean')
      throw new TypeError('clock.set: "frozen" must be a boolean');
    this.#setMs(options.now === undefined ? this.nowMs() : parseInstant(options.now), options.frozen);
  }

  /** Back to real time, not frozen (`DELETE /mock/clock`). */
  reset(): void {
    this.#frozenAtMs = undefined;
    this.#offsetMs = 0;
    this.#changed();
  }

  /** Calls `listener` after every set, advance or reset (not after restore): replicas publish the change. */
  onChange(listener: () => void): void {
    this.#listeners.push(listener);
  }

  #changed(): void {
    for (const listener of this.#listeners) listener();
  }

  #setMs(targetMs: number, frozenOption: boolean | undefined): void {
    const target = checkInstantMs(targetMs);
    const frozen = frozenOption ?? this.frozen;
    if (frozen) {
      this.#frozenAtMs = target;
      this.#offsetMs = 0;
    } else {
      this.#frozenAtMs = undefined;
      this.#offsetMs = target - Clock.realMs();
    }
    this.#changed();
  }

  /** Moves time forward (or back, with a negative value) by seconds; out of range throws and changes nothing. */
  advance(seconds: number): void {
    // As POST /mock/clock takes it: a number, not a text that looks like one.
    if (typeof seconds !== 'number' || Number.isNaN(seconds))
      throw new TypeError(
        `clock.advance: seconds must be a number (got ${typeof seconds === 'string' ? JSON.stringify(seconds) : typeof seconds === 'number' ? 'NaN' : typeof seconds})`,
      );
    this.#setMs(this.nowMs() + seconds * 1000, undefined);
  }

  /** The clock's setting, to hand to another process's clock (replicas share it through the store). */
  snapshot(): { frozenAtMs?: number; offsetMs: number } {
    return {
      ...(this.#frozenAtMs !== undefined ? { frozenAtMs: this.#frozenAtMs } : {}),
      offsetMs: this.#offsetMs,
    };
  }

  /** Takes over a snapshot() of another clock. */
  restore(snapshot: { frozenAtMs?: number; offsetMs: number }): void {
    this.#frozenAtMs = snapshot.frozenAtMs;
    this.#offsetMs = snapshot.offsetMs;
  }

  state(): ClockState {
    const ms = this.nowMs();
    return { now: new Date(ms).toISOString(), epoch: Math.floor(ms / 1000), frozen: this.frozen };
  }
}
