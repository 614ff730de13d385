// Request parameters as single strings: a repeated parameter is an invalid_request (RFC 6749 §3.1, §3.2),
// unless the caller names it as one that may repeat (RFC 8693's `audience`).
import { invalidRequest } from './errors.js';

export class Params {
  readonly #values: Map<string, string>;
  readonly #sealed: ReadonlySet<string>;
  /** Every value of a parameter that may repeat, in the order sent. */
  readonly #lists: Map<string, string[]>;

  private constructor(
    values: Map<string, string>,
    sealed: ReadonlySet<string>,
    lists: Map<string, string[]>,
  ) {
    this.#values = values;
    this.#sealed = sealed;
    this.#lists = lists;
  }

  /**
   * From a parsed query or urlencoded body (values may be arrays when repeated). `sealed` names the
   * parameters that came inside an encrypted request object; `repeatable` those that may be sent more than
   * once (`get` gives the first value, `all` every one).
   */
  static from(source: unknown, sealed: Iterable<string> = [], repeatable: readonly string[] = []): Params {
    const values = new Map<string, string>();
    const lists = new Map<string, string[]>();
    if (typeof source === 'object' && source !== null) {
      for (const [key, value] of Object.entries(source)) {
        if (Array.isArray(value) && !repeatable.includes(key))
          throw invalidRequest(`Duplicated parameter: ${key}`);
        const all: unknown[] = Array.isArray(value) ? value : [value];
        if (!all.every((v): v is string => typeof v === 'string'))
          throw invalidRequest(`Malformed parameter: ${key}`);
        values.set(key, all[0] as string);
        if (repeatable.includes(key)) lists.set(key, all);
      }
    }
    return new Params(values, new Set(sealed), lists);
  }

  /** Every non-empty value of a parameter that may repeat (see `from`); of another, its value if any. */
  all(name: string): string[] {
    return (this.#lists.get(name) ?? [this.#values.get(name) ?? '']).filter((v) => v !== '');
  }

  /** The value, or undefined when absent or empty (an empty parameter counts as omitted). */
  get(name: string): string | undefined {
    const v = this.#values.get(name);
    return v === undefined || v === '' ? undefined : v;
  }

  /** Whether the parameter was sent, even empty. */
  has(name: string): boolean {
    return this.#values.has(name);
  }

  /** Whether the value came inside an encrypted request object: only the client and the realm read it. */
  sealed(name: string): boolean {
    return this.#sealed.has(name) && this.get(name) !== undefined;
  }

  require(name: string): string {
    const v = this.get(name);
    if (v === undefined) throw invalidRequest(`Missing parameter: ${name}`);
    return v;
  }

  entries(): [string, string][] {
    return [...this.#values.entries()];
  }
}
