// A token's refusal told in words, for `--log-level debug` and the QA token decoder: names kids, issuers and
// times; never a token, secret or claim value. The checks themselves are verifyToken's (tokens/verify.ts).
import type { RealmContext } from '../realm/context.js';
import { realmBasePath } from '../realm/paths.js';
import { fixedIssuerOf, verifyToken, type OwnTokenKind, type Refusal } from '../tokens/verify.js';

/** Lazily computed: only a debug log line asks for it. */
export type Why = string | (() => Promise<string>);

const ago = (s: number): string => `${s} s`;

/** `refusal` in words. */
export function describeRefusal(
  p: Pick<RealmContext, 'fixedIssuer' | 'realm' | 'keys' | 'relativePath'>,
  refusal: Refusal,
): string {
  switch (refusal.reason) {
    case 'malformed':
      return 'not a JWT (malformed token)';
    case 'unknown-kid':
      return `unknown kid "${String(refusal.kid)}" (this realm publishes ${p.keys.all.map((k) => `"${k.kid}"`).join(', ')})`;
    case 'bad-signature':
      return refusal.alg !== 'HS256'
        ? `bad signature (kid "${String(refusal.kid)}")`
        : 'bad signature (HS256 realm secret)';
    case 'unknown-secret':
      return `HS256 with unknown kid "${String(refusal.kid)}" (not this realm's secret)`;
    case 'alg-not-accepted':
      return `alg ${String(refusal.alg)} is not accepted (RS256 or ES256 tokens, HS256 refresh tokens)`;
    case 'foreign-issuer':
      return `foreign issuer "${String(refusal.iss)}" (this realm: ${fixedIssuerOf(p) ?? `any origin + ${realmBasePath(p.realm.name, p.relativePath)}`})`;
    case 'invalid-time-claim':
      return `"${refusal.claim}" claim must be a number`;
    case 'expired':
      return `expired ${ago(refusal.now - refusal.exp)} ago by the mock clock (exp ${refusal.exp}, now ${refusal.now})`;
    case 'not-yet-valid':
      return `not valid for another ${ago(refusal.nbf - refusal.now)} by the mock clock (nbf ${refusal.nbf}, now ${refusal.now})`;
    case 'wrong-type':
      return `typ "${refusal.typ}" where ${refusal.expected === 'access' ? 'an access' : `a ${refusal.expected}`} token is needed`;
    case 'unknown-type':
      return `unknown typ "${refusal.typ}"`;
    case 'alg-mismatch':
      return `typ "${refusal.typ}" signed ${refusal.alg} (refresh tokens are HS256, the others RS256 or ES256)`;
    case 'revoked':
      return 'revoked';
    case 'session-ended':
      return 'its session has ended (logout, DELETE /mock/sessions, or idle expiry)';
  }
}

/** Why `token` is not an active `expected` token of this realm (or, if it is, says so). */
export async function explainRefusal(
  p: RealmContext,
  token: string,
  expected?: OwnTokenKind,
): Promise<string> {
  const verdict = await verifyToken(p, token, expected);
  return verdict.ok ? 'the token itself is valid' : describeRefusal(p, verdict.refusal);
}
