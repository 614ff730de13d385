// Why a token was refused, for `--log-level debug` only: the checks of verifyOwnToken (tokens/verify.ts) replayed
// one by one, each failure told in words. Names kids, issuers and times; never a token, secret or claim value.
import { compactVerify, decodeJwt, decodeProtectedHeader, type JWTPayload } from 'jose';
import type { RealmContext } from '../realm/context.js';
import { realmBasePath } from '../realm/paths.js';
import { hmacKey } from '../tokens/sign.js';
import {
  fixedIssuerOf,
  isOurIssuer,
  kindOfTyp,
  sessionIdOf,
  TYPS_OF_KIND,
  type OwnTokenKind,
} from '../tokens/verify.js';

/** Lazily computed: only a debug log line asks for it. */
export type Why = string | (() => Promise<string>);

const ago = (s: number): string => `${s} s`;

/** Why `token` is not an active `expected` token of this realm (or, if it is, says so). */
export async function explainRefusal(
  p: RealmContext,
  token: string,
  expected?: OwnTokenKind,
): Promise<string> {
  let header: { alg?: string; kid?: string };
  let claims: JWTPayload;
  try {
    header = decodeProtectedHeader(token);
    claims = decodeJwt(token);
  } catch {
    return 'not a JWT (malformed token)';
  }
  const { alg, kid } = header;
  if (alg === 'RS256') {
    const key = p.keys.find(kid);
    if (key === undefined)
      return `unknown kid "${String(kid)}" (this realm publishes ${p.keys.all.map((k) => `"${k.kid}"`).join(', ')})`;
    if (!(await verifies(token, key.publicKey))) return `bad signature (kid "${String(kid)}")`;
  } else if (alg === 'HS256') {
    if (kid !== p.secret.kid) return `HS256 with unknown kid "${String(kid)}" (not this realm's secret)`;
    if (!(await verifies(token, await hmacKey(p.secret)))) return 'bad signature (HS256 realm secret)';
  } else {
    return `alg ${String(alg)} is not accepted (RS256 tokens, HS256 refresh tokens)`;
  }
  const iss = typeof claims.iss === 'string' ? claims.iss : undefined;
  const fixed = fixedIssuerOf(p);
  if (!isOurIssuer(p, iss))
    return `foreign issuer "${String(iss)}" (this realm: ${fixed ?? `any origin + ${realmBasePath(p.realm.name)}`})`;
  const now = p.clock.nowSeconds();
  if (typeof claims.exp === 'number' && claims.exp <= now)
    return `expired ${ago(now - claims.exp)} ago by the mock clock (exp ${claims.exp}, now ${now})`;
  if (typeof claims.nbf === 'number' && claims.nbf > now)
    return `not valid for another ${ago(claims.nbf - now)} by the mock clock (nbf ${claims.nbf}, now ${now})`;
  const typ = String(claims['typ']);
  if (expected !== undefined && !(TYPS_OF_KIND.get(expected) ?? []).includes(typ))
    return `typ "${typ}" where ${expected === 'access' ? 'an access' : `a ${expected}`} token is needed`;
  const kind = kindOfTyp(claims['typ']);
  if (kind === undefined) return `unknown typ "${typ}"`;
  if ((kind === 'refresh') !== (alg === 'HS256'))
    return `typ "${typ}" signed ${String(alg)} (refresh tokens are HS256, the others RS256)`;
  if (await p.store.isRevoked(claims.jti)) return 'revoked';
  const sid = sessionIdOf(claims);
  if (sid !== undefined && (await p.store.sessionStatus(sid)) === 'ended')
    return 'its session has ended (logout, DELETE /mock/sessions, or idle expiry)';
  return 'the token itself is valid';
}

async function verifies(token: string, key: Parameters<typeof compactVerify>[1]): Promise<boolean> {
  try {
    await compactVerify(token, key);
    return true;
  } catch {
    return false;
  }
}
