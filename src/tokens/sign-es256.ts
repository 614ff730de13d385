// ES256 with the realm's EC P-256 key: compact JWS whose signature is RFC 6979 deterministic (@noble/curves),
// so a fixed key and clock give the same token bytes run after run; jose's SignJWT draws a random k.
// Header and payload are serialized as jose serializes them (alg, typ, kid, then the rest; base64url JSON).
import type { JWTHeaderParameters, JWTPayload } from 'jose';
import { signP256, type EcSigningKey } from '../keys/ec-key.js';

const segment = (json: string): string => Buffer.from(json, 'utf8').toString('base64url');

/** ES256 compact JWS of `claims` with the realm's EC key (microseconds of work: no thread hop). */
export function signEs256(
  key: Pick<EcSigningKey, 'kid' | 'scalar'>,
  claims: JWTPayload,
  header: Partial<JWTHeaderParameters> = {},
): string {
  return signEs256As(key, { alg: 'ES256', typ: 'JWT', kid: key.kid, ...header }, claims);
}

/** ES256 compact JWS under exactly `header` (the QA mint's, whose overrides may remove members). */
export function signEs256As(
  key: Pick<EcSigningKey, 'scalar'>,
  header: Record<string, unknown>,
  claims: JWTPayload,
): string {
  const input = `${segment(JSON.stringify(header))}.${segment(JSON.stringify(claims))}`;
  const signature = signP256(key.scalar, Buffer.from(input, 'latin1'));
  return `${input}.${Buffer.from(signature).toString('base64url')}`;
}
