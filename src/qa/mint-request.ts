// The body of POST {realm}/mock/tokens as a zod schema, and the minted answer.
import { z } from 'zod';
import { parseInstant } from '../clock.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../json-limits.js';
import { API_VERSIONS, type ApiVersion } from '../tokens/versions.js';

export const MINT_TOKEN_TYPES = ['access', 'id', 'refresh', 'proof'] as const;
export const MINT_SIGNATURES = ['valid', 'invalid', 'none', 'unknown-key'] as const;

export type MintTokenType = (typeof MINT_TOKEN_TYPES)[number];
export type MintSignature = (typeof MINT_SIGNATURES)[number];

/** A time claim as asked for: seconds from the mock clock's now, or an absolute epoch second. */
type TimeSpec = { fromNow: number } | { epoch: number };

/** `+N` / `-N` (a string with a sign): N seconds from the mock clock's now, as `--expires-in` counts. */
export const RELATIVE_TIME = /^[+-]\d+$/;

/** `+3600`/`-60` relative to the mock clock, else ISO-8601 or epoch seconds. */
const time = z.union([z.number(), z.string().min(1)]).transform((value, ctx): TimeSpec => {
  if (typeof value === 'string' && RELATIVE_TIME.test(value.trim())) return { fromNow: Number(value) };
  try {
    return { epoch: Math.floor(parseInstant(value) / 1000) };
  } catch {
    ctx.issues.push({
      code: 'custom',
      input: value,
      message: 'expected an ISO-8601 instant, epoch seconds, or "+N"/"-N" seconds from now',
    });
    return z.NEVER;
  }
});

/** Epoch seconds of a time claim, relative ones measured from `now` (the mock clock). */
export function resolveTime(spec: TimeSpec | undefined, now: number): number | undefined {
  if (spec === undefined) return undefined;
  return 'fromNow' in spec ? now + spec.fromNow : spec.epoch;
}

/** Any JSON, nested at most MAX_JSON_DEPTH levels (the token must serialize it). */
const jsonValue = z.unknown().refine((v) => !nestsDeeperThan(v), {
  message: `a value may nest at most ${MAX_JSON_DEPTH} levels`,
});

export const mintRequestSchema = z.strictObject({
  type: z.enum(MINT_TOKEN_TYPES),
  client: z.string().min(1),
  user: z.string().min(1).optional(),
  scope: z.string().optional(),
  claims: z.record(z.string(), jsonValue).optional(),
  header: z.record(z.string(), jsonValue).optional(),
  expiresIn: z.number().int().optional(),
  issuedAt: time.optional(),
  notBefore: time.optional(),
  signature: z.enum(MINT_SIGNATURES).default('valid'),
  apiVersion: z.literal(API_VERSIONS).optional(),
  dpopJwk: z.record(z.string(), z.unknown()).optional(),
});

/** What to mint; every field but `type` and `client` is optional. */
export interface MintRequest {
  /** Which token: access, id, refresh or proof. */
  type: MintTokenType;
  /** Client id from the fixtures: `azp`, and `aud` of ID and proof tokens. */
  client: string;
  /** Username from the fixtures. Default: the client's service account. */
  user?: string;
  /**
   * Space-separated scopes, each known to the realm (the client's allowed scopes are not enforced).
   * Default: what client_credentials would grant the client, plus `openid profile` with a user.
   */
  scope?: string;
  /** Claim overrides merged over the built claims; `null` removes a claim. */
  claims?: Record<string, unknown>;
  /** JOSE header overrides (not `alg`: see `signature`); `null` removes a parameter. */
  header?: Record<string, unknown>;
  /** `exp` − `iat` in seconds; negative = already expired. Default: the realm's lifespan for the type. */
  expiresIn?: number;
  /** `iat`: epoch seconds, ISO-8601, or `"+N"`/`"-N"` seconds from the mock clock's now. Default: now. */
  issuedAt?: number | string;
  /**
   * `nbf`: epoch seconds, ISO-8601, or `"+N"`/`"-N"` seconds from the mock clock's now; in the future = not
   * yet valid. Default: no `nbf`.
   */
  notBefore?: number | string;
  /** valid (default), invalid (wrong signature bytes), none (alg none), unknown-key (a key not in the JWKS). */
  signature?: MintSignature;
  /** The interface version to mint in, 1 to 4. Default: the client's (else the realm's). */
  apiVersion?: ApiVersion;
  /**
   * A public JWK (an access or refresh token only): the token is DPoP-bound to it, `cnf.jkt` its RFC 7638
   * thumbprint. Default: not bound.
   */
  dpopJwk?: Record<string, unknown>;
}

/** A minted token's decoded JOSE header. */
export interface MintedTokenHeader {
  /** `RS256` or `ES256`; `none` for `signature: "none"`. */
  alg: string;
  kid?: string;
  /** `JWT`, `at+jwt`, `logout+jwt`, … */
  typ?: string;
  [parameter: string]: unknown;
}

/**
 * A minted token's decoded claims: the registered ones typed as mock-idp writes them (a `claims` override
 * may put any JSON value in their place), every other claim `unknown`.
 */
export interface MintedTokenClaims {
  iss?: string;
  sub?: string;
  aud?: string | string[];
  /** Epoch seconds on the mock clock. */
  exp?: number;
  iat?: number;
  nbf?: number;
  auth_time?: number;
  jti?: string;
  azp?: string;
  typ?: string;
  scope?: string;
  nonce?: string;
  sid?: string;
  [claim: string]: unknown;
}

/** A minted token with its decoded header and claims. */
export interface MintedToken {
  token: string;
  header: MintedTokenHeader;
  claims: MintedTokenClaims;
}
