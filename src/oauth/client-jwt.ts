// A JWT a client signed for this realm (client assertions, JWT bearer grants): signature by the client's key,
// iss/sub/aud, exp and jti required, times on the mock clock or the client's real one, jti single-use.
import { errors as joseErrors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { Clock } from '../clock.js';
import type { RealmContext } from '../realm/context.js';
import { ASSERTION_TOLERANCE_S } from '../store/state-store.js';

/** The algorithms a client signs with its `jwks` (private_key_jwt, JWT bearer). */
export const CLIENT_KEY_ALGS = ['RS256', 'ES256'];

export interface ClientJwtCheck {
  /** The client's key: its JWKS, or the HMAC key of its secret. */
  key: JWTVerifyGetKey | Uint8Array;
  algorithms: string[];
  /** The client id `iss` must name (the `jti` namespace too). */
  issuer: string;
  /** The `sub` required, when fixed. */
  subject?: string;
  /** Audiences of which `aud` must name one. */
  audiences: string[];
}

/** Why a client JWT is refused, in words for an error_description. */
export class ClientJwtRefusal extends Error {
  override name = 'ClientJwtRefusal';
}

function describeJoseError(err: unknown): string {
  if (err instanceof joseErrors.JWTClaimValidationFailed)
    return `${err.claim} ${err.reason === 'check_failed' ? 'check failed' : err.reason}: ${err.message}`;
  if (err instanceof joseErrors.JOSEError) return err.message;
  return 'verification failed';
}

/** The verified claims of `jwt`, or a ClientJwtRefusal saying why not (the jti is spent on success). */
export async function verifyClientJwt(
  p: RealmContext,
  jwt: string,
  check: ClientJwtCheck,
): Promise<JWTPayload> {
  const verify = (currentDate: Date) =>
    jwtVerify(jwt, check.key as JWTVerifyGetKey, {
      algorithms: check.algorithms,
      issuer: check.issuer,
      ...(check.subject !== undefined ? { subject: check.subject } : {}),
      audience: check.audiences,
      requiredClaims: ['exp', 'jti'],
      currentDate,
      clockTolerance: ASSERTION_TOLERANCE_S,
    });
  let payload: JWTPayload;
  try {
    ({ payload } = await verify(p.clock.now()));
  } catch (err) {
    // The JWT is made by the client under test with its own (real) clock.
    const timeFailure =
      err instanceof joseErrors.JWTExpired ||
      (err instanceof joseErrors.JWTClaimValidationFailed && (err.claim === 'nbf' || err.claim === 'iat'));
    if (!timeFailure || p.clock.isReal) throw new ClientJwtRefusal(describeJoseError(err));
    try {
      ({ payload } = await verify(new Date(Clock.realMs())));
    } catch (err2) {
      throw new ClientJwtRefusal(describeJoseError(err2));
    }
  }
  if (!(await p.store.useAssertion(check.issuer, String(payload.jti), Number(payload.exp))))
    throw new ClientJwtRefusal('jti was already used (assertions are single-use)');
  return payload;
}
