// Request parameters as single strings: a repeated parameter is an invalid_request (RFC 6749 §3.1, §3.2).
import { invalidRequest } from './errors.js';

export class Params {
  readonly #values: Map<string, string>;
  readonly #sealed: ReadonlySet<string>;

  private constructor(values: Map<string, string>, sealed: ReadonlySet<string>) {
    this.#values = values;
    this.#sealed = sealed;
  }

  /**
   * From a parsed query or urlencoded body (values may be arrays when repeated). `sealed` names the
   * parameters that came inside an encrypted request object.
   */
  static from(source: unknown, sealed: Iterable<string> = []): Params {
    const values = new Map<string, string>();
    if (typeof source === 'object' && source !== null) {
      for (const [key, value] of Object.entries(source)) {
        if (Array.isArray(value)) throw invalidRequest(`Duplicated parameter: ${key}`);
        if (typeof value !== 'string') throw invalidRequest(`Malformed parameter: ${key}`);
        values.set(key, value);
      }
    }
    return new Params(values, new Set(sealed));
  }

  /** The value, or undefined when absent or empty (an empty parameter counts as omitted). */
  get(name: string): string | undefined {
    const v = this.#values.get(name);
    return v === undefined || v === '' ? undefined : v;
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
