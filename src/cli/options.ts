// Parsing of option values shared by commands: ports, instants, log levels.
import { InvalidArgumentError } from 'commander';
import { parseInstant } from '../clock.js';
import { LOG_LEVELS, type LogLevel } from '../log.js';
import { RELATIVE_TIME } from '../qa/mint-request.js';
import { API_VERSIONS, METHODS, type ApiVersion, type Method } from '../tokens/versions.js';
import { MAX_USERS } from '../users/generate.js';
import { normaliseRelativePath } from '../realm/paths.js';
import { BRAND_WORD, BRAND_WORD_RULE } from '../fixtures/schema.js';
import { CliError, EXIT } from './cli-error.js';
import { tlsHostProblem } from '../keys/tls.js';

export function parsePort(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65535)
    throw new InvalidArgumentError('a port is a whole number from 0 to 65535.');
  return Number(value);
}

export function parseClock(value: string): string {
  try {
    parseInstant(value);
  } catch {
    throw new InvalidArgumentError('expected an ISO-8601 instant (2030-01-01T00:00:00Z) or epoch seconds.');
  }
  return value;
}

/** `--issued-at` / `--not-before`: `+N`/`-N` seconds from the (mock) clock's now, or an instant. */
export function parseTokenTime(value: string): string {
  if (RELATIVE_TIME.test(value.trim())) return value.trim();
  try {
    parseInstant(value);
  } catch {
    throw new InvalidArgumentError(
      'expected +N or -N seconds from now, an ISO-8601 instant (2030-01-01T00:00:00Z) or epoch seconds.',
    );
  }
  return value;
}

export function parseLogLevel(value: string): LogLevel {
  if (!(LOG_LEVELS as readonly string[]).includes(value))
    throw new InvalidArgumentError(`one of ${LOG_LEVELS.join(', ')}.`);
  return value as LogLevel;
}

/** `--http-relative-path`: normalised (`auth/` → `/auth`, `/` → none). */
export function parseRelativePath(value: string): string {
  try {
    return normaliseRelativePath(value);
  } catch (err) {
    throw new InvalidArgumentError(`${(err as Error).message}.`);
  }
}

export function parseUrl(value: string): string {
  if (!URL.canParse(value) || !/^https?:/.test(value))
    throw new InvalidArgumentError('an absolute http(s) URL.');
  return value;
}

/** A whole number of seconds; negative is allowed (an already expired token). */
export function parseSeconds(value: string): number {
  if (!/^-?\d+$/.test(value.trim())) throw new InvalidArgumentError('a whole number of seconds.');
  return Number(value);
}

/** An interface version, 1–4 (the mint says which it serves). */
export function parseApiVersion(value: string): ApiVersion {
  const version = API_VERSIONS.find((v) => String(v) === value.trim());
  if (version === undefined) throw new InvalidArgumentError(`one of ${API_VERSIONS.join(', ')}.`);
  return version;
}

/** `name=value`: the value is JSON when it parses as JSON, else the string itself. */
export function parseKeyValue(value: string): [string, unknown] {
  const eq = value.indexOf('=');
  if (eq <= 0) throw new InvalidArgumentError('expected name=value.');
  const raw = value.slice(eq + 1);
  let parsed: unknown = raw;
  try {
    parsed = JSON.parse(raw);
  } catch {
    // not JSON: keep the text
  }
  return [value.slice(0, eq), parsed];
}

/** `--dpop-jwk`: a JWK as JSON text (an object). */
export function parseJwkJson(value: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new InvalidArgumentError('a JWK as JSON, e.g. \'{"kty":"EC","crv":"P-256","x":"…","y":"…"}\'.');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new InvalidArgumentError('a JWK as a JSON object.');
  return parsed as Record<string, unknown>;
}

/** Collects a repeatable option's values. */
export function collect<T>(parse: (value: string) => T): (value: string, previous: T[] | undefined) => T[] {
  return (value, previous) => [...(previous ?? []), parse(value)];
}

/** `--qa-token`: a non-empty token without white space (it travels as `Authorization: Bearer TOKEN`). */
export function parseQaToken(value: string): string {
  if (!/^[\x21-\x7e]+$/.test(value))
    throw new InvalidArgumentError('a non-empty token of printable ASCII without spaces.');
  return value;
}

/** `MOCK_IDP_QA_API`: `off` (or false/0) turns the QA API off; unset, `on`, true or 1 keep it. */
export function qaApiFromEnv(value: string | undefined): boolean {
  if (value === undefined || value === '' || /^(on|true|1)$/i.test(value)) return true;
  if (/^(off|false|0)$/i.test(value)) return false;
  throw new CliError(`MOCK_IDP_QA_API=${value}: expected off or on`, EXIT.usage);
}

/** `MOCK_IDP_TLS`: true (or on, 1) serves https as --tls does; unset, false, off or 0 does not. */
export function tlsFromEnv(value: string | undefined): boolean {
  if (value === undefined || value === '' || /^(off|false|0)$/i.test(value)) return false;
  if (/^(on|true|1)$/i.test(value)) return true;
  throw new CliError(`MOCK_IDP_TLS=${value}: expected true or false`, EXIT.usage);
}

/** A flag's true or false, as Keycloak's boolean options take them (`--flag`, `--flag=true`, `--flag false`). */
export function parseBoolean(value: string): boolean {
  if (/^(true|on|1)$/i.test(value.trim())) return true;
  if (/^(false|off|0)$/i.test(value.trim())) return false;
  throw new InvalidArgumentError('true or false.');
}

/** `--tls-host`: a DNS name or an IP address for the made certificate. */
export function parseTlsHost(value: string): string {
  const problem = tlsHostProblem(value);
  if (problem !== undefined) throw new InvalidArgumentError(`${problem}.`);
  return value;
}

/** `users --count`: a whole number from 1 to MAX_USERS. */
export function parseUserCount(value: string): number {
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1 || Number(value) > MAX_USERS)
    throw new InvalidArgumentError(`a whole number from 1 to ${MAX_USERS}.`);
  return Number(value);
}

/** `users --brand`: a brand word, as the fixtures' `brand`. */
export function parseBrand(value: string): string {
  if (!BRAND_WORD.test(value)) throw new InvalidArgumentError(`${BRAND_WORD_RULE}.`);
  return value;
}

/** `users --methods`: sign-in methods, comma-separated, each once (`bid,bis`). */
export function parseMethods(value: string): Method[] {
  const methods = value.split(',').map((m) => m.trim());
  const known = (m: string): m is Method => (METHODS as readonly string[]).includes(m);
  if (methods.length === 0 || !methods.every(known) || new Set(methods).size !== methods.length)
    throw new InvalidArgumentError(`comma-separated methods, each once, of: ${METHODS.join(', ')}.`);
  return methods;
}

/** `--seed`: any non-empty text (as the fixtures' `seed`). */
export function parseSeed(value: string): string {
  if (value === '') throw new InvalidArgumentError('a non-empty text.');
  return value;
}
