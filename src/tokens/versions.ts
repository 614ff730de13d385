// Interface versions and sign-in methods as the tokens show them: the one place that knows what each version adds.
import { METHODS, type ApiVersion, type Method } from '../fixtures/versions.js';

export { API_VERSIONS, METHODS, type ApiVersion, type Method } from '../fixtures/versions.js';
/** The versions this mock-idp issues tokens in (3 and 4 need ES256 key material). */
export const SERVED_VERSIONS: readonly ApiVersion[] = [1, 2];

/** Methods of a user whose fixtures name none. */
export const DEFAULT_METHODS: readonly Method[] = METHODS;

/** The level of assurance each method signs in at. */
const LOA: Record<Method, number> = { bid: 4, bis: 3 };

/** The `acr_values` value that asks for `method`: `urn:{brand}:bid`. */
export const acrValueOf = (method: Method, brand: string): string => `urn:${brand}:${method}`;

/** The `acr` a sign-in with `method` carries: `urn:{brand}:bid;LOA=4`. */
export const acrOf = (method: Method, brand: string): string =>
  `${acrValueOf(method, brand)};LOA=${LOA[method]}`;

/** The method an `acr` names (a refresh token carries the acr a method gave), if any. */
export function methodOfAcr(acr: unknown, brand: string): Method | undefined {
  return METHODS.find((m) => acr === acrOf(m, brand));
}

/** `amr` as version 1 writes it: the method's name in capitals (`BID`), as the fixtures' `amr` is written. */
export const amrOf = (method: Method): string => method.toUpperCase();

/**
 * The claims `version` adds to access, ID and refresh tokens, onto `out`: from version 2 `api_ver`, and
 * `amr` as an array of lower-case method names. Version 1 adds nothing.
 */
export function addVersionClaims(out: Record<string, unknown>, version: ApiVersion | undefined): void {
  if (version === undefined || version < 2) return;
  const amr = out['amr'];
  if (typeof amr === 'string') out['amr'] = [amr.toLowerCase()];
  out['api_ver'] = version;
}
