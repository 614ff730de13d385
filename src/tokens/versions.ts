// Interface versions and sign-in methods as the tokens show them: the one place that knows what each version adds.
import { METHODS, type ApiVersion, type Method } from '../fixtures/versions.js';

export { API_VERSIONS, METHODS, type ApiVersion, type Method } from '../fixtures/versions.js';
/** The versions this mock-idp issues tokens in. */
export const SERVED_VERSIONS: readonly ApiVersion[] = [1, 2, 3, 4];

/** Whether tokens of `version` are signed ES256 with the realm's EC key (from version 3; RS256 before). */
export const signsEs256 = (version: ApiVersion | undefined): boolean => version !== undefined && version >= 3;

/** The version a token of this realm carries in `api_ver` (versions 2 on write it), else undefined. */
export const versionOfClaims = (claims: Record<string, unknown>): ApiVersion | undefined =>
  SERVED_VERSIONS.find((v) => v === claims['api_ver']);

/** The token response's `token_type`: `Bearer` from version 3, the realm's `tokens.tokenType` before. */
export const tokenTypeOf = (version: ApiVersion | undefined, realmTokenType: string): string =>
  signsEs256(version) ? 'Bearer' : realmTokenType;

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

/**
 * Where version 4 leaves a claim out: the provider withdrew the certificate claims (`originator`,
 * `additionalCertInfo`, `tid`) and `session_state` from its tokens, and the nonce from the access token
 * (it belongs to the ID token). Userinfo follows the tokens of its sign-in, so it loses the certificate
 * claims too. Refresh tokens keep `nonce`: a refreshed ID token carries it on.
 */
const LEFT_OUT_AT_4 = new Map<string, readonly string[]>([
  ['originator', ['access', 'id', 'userinfo']],
  ['additionalCertInfo', ['access', 'id', 'userinfo']],
  ['tid', ['access', 'id', 'userinfo']],
  ['session_state', ['access', 'id']],
  ['nonce', ['access']],
]);

/** Whether `version` leaves `claim` out of `target` (`access`, `id`, `userinfo`); versions 1–3 leave out nothing. */
export function leavesOut(version: ApiVersion | undefined, target: string, claim: string): boolean {
  if (version === undefined || version < 4) return false;
  return LEFT_OUT_AT_4.get(claim)?.includes(target) === true;
}

/** Whether a sign-in of `version` may have a proof token: version 4 has none. */
export const issuesProof = (version: ApiVersion | undefined): boolean => version === undefined || version < 4;
