// Request parameters as single strings: a repeated parameter is an invalid_request (RFC 6749 §3.1, §3.2).
import { invalidRequest } from './errors.js';

export class Params {
  readonly #values: Map<string, string>;

  private constructor(values: Map<string, string>) {
    this.#values = values;
  }

  /** From a parsed query or urlencoded body (values may be arrays when repeated). */
  static from(source: unknown): Params {
    const values = new Map<string, string>();
    if (typeof source === 'object' && source !== null) {
      for (const [key, value] of Object.entries(source)) {
        if (Array.isArray(value)) throw invalidRequest(`Duplicated parameter: ${key}`);
        if (typeof value !== 'string') throw invalidRequest(`Malformed parameter: ${key}`);
        values.set(key, value);
      }
    }
    return new Params(values);
  }

  /** The value, or undefined when absent or empty (an empty parameter counts as omitted). */
  get(name: string): string | undefined {
    const v = this.#values.get(name);
    return v === undefined || v === '' ? undefined : v;
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
