// Request objects at the authorize endpoint (OIDC Core 6.1/6.2, RFC 9101): `request`, and `request_uri`
// fetched over http(s), either one signed or encrypted to the realm (a JWE around it); a verified object's
// parameters replace the query's.
import {
  compactDecrypt,
  createLocalJWKSet,
  decodeProtectedHeader,
  errors as joseErrors,
  jwtVerify,
  UnsecuredJWT,
  type JWTPayload,
} from 'jose';
import { Clock } from '../clock.js';
import type { Client } from '../fixtures/realm.js';
import type { EncryptionKey } from '../keys/encryption-key.js';
import { invalidRequest, OAuthError } from './errors.js';
import { Params } from './params.js';
import { ASSERTION_TOLERANCE_S } from '../store/state-store.js';
import { fetchRequestUri, type RequestUriLimits } from './request-uri.js';

interface RequestObjectContext {
  /** The client the query's client_id names (its `jwks` verifies RS256 and ES256 objects). */
  client: Client;
  /** The realm base URL: an object's `aud`, when present, must name it. */
  issuer: string;
  clock: Clock;
  /** The realm's encryption key: an encrypted object (JWE) is decrypted with it. */
  encryptionKey: Promise<EncryptionKey>;
  /** Limits of the request_uri fetch. Default: 5 s, 64 kB. */
  limits?: RequestUriLimits;
}

/** JWT claims of the object itself, not authorization parameters. */
const OBJECT_CLAIMS = new Set(['iss', 'aud', 'exp', 'iat', 'nbf', 'jti', 'sub', 'request', 'request_uri']);

const invalidObject = (why: string): OAuthError =>
  new OAuthError('invalid_request_object', `Invalid request object: ${why}`);

/**
 * Key management algorithms of an encrypted object. RSA1_5 is not among them: jose 6 has no RSA1_5, and
 * Node refuses PKCS#1 v1.5 decryption since CVE-2023-46809.
 */
export const REQUEST_OBJECT_ENCRYPTION_ALGS = ['RSA-OAEP-256', 'RSA-OAEP'];
export const REQUEST_OBJECT_ENCRYPTION_ENCS = [
  'A128GCM',
  'A192GCM',
  'A256GCM',
  'A128CBC-HS256',
  'A192CBC-HS384',
  'A256CBC-HS512',
];

/**
 * The authorize parameters with the request object's (from `request` or `request_uri`) in place: its
 * values win over the query's. Without either parameter, `params` itself. Throws invalid_request,
 * invalid_request_object or invalid_request_uri.
 */
export async function withRequestObject(params: Params, ctx: RequestObjectContext): Promise<Params> {
  const request = params.get('request');
  const requestUri = params.get('request_uri');
  if (request === undefined && requestUri === undefined) return params;
  if (request !== undefined && requestUri !== undefined)
    throw invalidRequest('Use either request or request_uri, not both');
  const object = request ?? (await fetchRequestUri(requestUri as string, ctx.limits));
  const encrypted = object.split('.').length === 5;
  const jwt = encrypted ? await decryptRequestObject(object, ctx) : object;
  const payload = await verifyRequestObject(jwt, ctx);

  const merged = new Map<string, string>();
  const sealed: string[] = [];
  for (const [name, value] of params.entries())
    if (name !== 'request' && name !== 'request_uri') merged.set(name, value);
  for (const [name, value] of Object.entries(payload)) {
    if (OBJECT_CLAIMS.has(name) || value === null || value === undefined) continue;
    merged.set(name, typeof value === 'string' ? value : JSON.stringify(value));
    if (encrypted) sealed.push(name);
  }
  // The object's own parameters are sealed when it was encrypted; the query's beside it are not.
  return Params.from(Object.fromEntries(merged), sealed);
}

/** The plaintext of an object encrypted to the realm's encryption key: the signed (or none) object inside. */
async function decryptRequestObject(jwe: string, ctx: RequestObjectContext): Promise<string> {
  const key = await ctx.encryptionKey;
  let plaintext: Uint8Array;
  try {
    ({ plaintext } = await compactDecrypt(
      jwe,
      ({ kid }) => {
        if (kid !== undefined && kid !== key.kid)
          throw new joseErrors.JWKSNoMatchingKey(`kid "${kid}" is not the realm's encryption key`);
        return key.privateJwk;
      },
      {
        keyManagementAlgorithms: REQUEST_OBJECT_ENCRYPTION_ALGS,
        contentEncryptionAlgorithms: REQUEST_OBJECT_ENCRYPTION_ENCS,
      },
    ));
  } catch (err) {
    throw invalidObject(`cannot be decrypted: ${describeDecryption(err)}`);
  }
  return new TextDecoder().decode(plaintext);
}

function describeDecryption(err: unknown): string {
  if (err instanceof joseErrors.JOSEAlgNotAllowed)
    return `${err.message} (alg ${REQUEST_OBJECT_ENCRYPTION_ALGS.join(', ')}; enc ${REQUEST_OBJECT_ENCRYPTION_ENCS.join(', ')})`;
  if (err instanceof joseErrors.JWEDecryptionFailed) return 'decryption failed (another key, or altered)';
  if (err instanceof joseErrors.JOSEError) return err.message;
  return 'not a JWE';
}

/** Verifies a request object: alg none, or RS256 or ES256 by the client's jwks; iss, aud, client_id and times. */
async function verifyRequestObject(jwt: string, ctx: RequestObjectContext): Promise<JWTPayload> {
  const { client } = ctx;
  const parts = jwt.split('.').length;
  if (parts === 5)
    throw invalidObject('a JWE inside a JWE: the encrypted object must hold a signed (or none) one');
  let alg: string | undefined;
  try {
    if (parts !== 3) throw new TypeError('not three parts');
    ({ alg } = decodeProtectedHeader(jwt));
  } catch {
    throw invalidObject('not a JWT');
  }
  const required = client.requestObjectSigningAlg;
  if (required !== undefined && alg !== required)
    throw invalidObject(
      `alg "${String(alg)}": client "${client.id}" requires request objects with alg ${required}`,
    );
  let verify: (currentDate: Date) => Promise<JWTPayload>;
  const claimOptions = (currentDate: Date) => ({ currentDate, clockTolerance: ASSERTION_TOLERANCE_S });
  if (alg === 'none') {
    verify = async (currentDate) => UnsecuredJWT.decode(jwt, claimOptions(currentDate)).payload;
  } else if (alg === 'RS256' || alg === 'ES256') {
    if (client.jwks === undefined)
      throw invalidObject(`client "${client.id}" has no jwks to verify an ${alg} request object with`);
    const jwks = createLocalJWKSet(client.jwks);
    verify = async (currentDate) =>
      (await jwtVerify(jwt, jwks, { algorithms: [alg], ...claimOptions(currentDate) })).payload;
  } else {
    throw invalidObject(`alg "${String(alg)}" is not supported (none, RS256 or ES256)`);
  }
  const payload = await verifyTimes(verify, ctx.clock);
  if (payload.iss !== undefined && payload.iss !== client.id)
    throw invalidObject(`iss "${payload.iss}" is not the client id "${client.id}"`);
  const aud = payload.aud;
  if (aud !== undefined && !(Array.isArray(aud) ? aud : [aud]).includes(ctx.issuer))
    throw invalidObject(`aud does not name the issuer ${ctx.issuer}`);
  const inner = payload['client_id'];
  if (inner !== undefined && inner !== client.id)
    throw invalidObject(`client_id "${String(inner)}" differs from the query's "${client.id}"`);
  return payload;
}

/**
 * Runs `verify` at the mock clock's time; a time failure is retried at real time while the mock clock is
 * set away from it, since the client under test makes the object with its own (real) clock, as it does
 * a client assertion.
 */
async function verifyTimes(
  verify: (currentDate: Date) => Promise<JWTPayload>,
  clock: Clock,
): Promise<JWTPayload> {
  try {
    return await verify(clock.now());
  } catch (err) {
    if (!isTimeFailure(err) || clock.isReal) throw invalidObject(describe(err));
    try {
      return await verify(new Date(Clock.realMs()));
    } catch (err2) {
      throw invalidObject(describe(err2));
    }
  }
}

function isTimeFailure(err: unknown): boolean {
  return (
    err instanceof joseErrors.JWTExpired ||
    (err instanceof joseErrors.JWTClaimValidationFailed && (err.claim === 'nbf' || err.claim === 'iat'))
  );
}

function describe(err: unknown): string {
  if (err instanceof joseErrors.JWTExpired) return 'expired (exp is in the past)';
  if (err instanceof joseErrors.JWSSignatureVerificationFailed) return 'signature verification failed';
  if (err instanceof joseErrors.JWKSNoMatchingKey) return "no key of the client's jwks matches";
  if (err instanceof joseErrors.JWTClaimValidationFailed) return `${err.claim} check failed: ${err.message}`;
  if (err instanceof joseErrors.JOSEError) return err.message;
  return 'verification failed';
}
