// POST /mock/tokens/verify: decode a token and say whether this realm accepts it, and if not exactly why.
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../json-limits.js';
import { describeRefusal } from '../oauth/refusal.js';
import type { Provider } from '../realm/provider.js';
import { verifyToken } from '../tokens/verify.js';

interface TokenVerdict {
  /** Whether this realm accepts the token now (signature, issuer, times by the mock clock, revocation, session). */
  valid: boolean;
  /** Why not, in words; or what kind of token it is when valid. */
  reason: string;
  /** The decoded header and claims, null when the text is not a JWT. */
  header: Record<string, unknown> | null;
  claims: Record<string, unknown> | null;
}

const MAX_TOKEN = 64 * 1024;

/** The verdict on `token` (any text: a JWT, garbage, or nothing). */
export async function verifyForInspector(p: Provider, token: unknown): Promise<TokenVerdict> {
  if (typeof token !== 'string' || token.trim() === '')
    return { valid: false, reason: 'no token: send {"token": "eyJ..."}', header: null, claims: null };
  const text = token.trim();
  if (text.length > MAX_TOKEN)
    return {
      valid: false,
      reason: `not a token of this realm: ${text.length} characters (at most ${MAX_TOKEN})`,
      header: null,
      claims: null,
    };
  const verdict = await verifyToken(p, text);
  const { header, claims } = verdict;
  // Nothing this realm signs nests that deep, and the answer could not be written out.
  if (nestsDeeperThan(header) || nestsDeeperThan(claims))
    return {
      valid: false,
      reason: `not a token of this realm: its header or claims nest deeper than ${MAX_JSON_DEPTH} levels`,
      header: null,
      claims: null,
    };
  if (verdict.ok) {
    // From version 2 a token says its interface version; the decoder names it and the algorithm beside.
    const apiVer = verdict.claims['api_ver'];
    const version =
      typeof apiVer === 'number' ? ` (api_ver ${apiVer}, ${String(verdict.header['alg'])})` : '';
    const reason = `an active ${verdict.token.kind} token of this realm${version}`;
    return { valid: true, reason, header, claims };
  }
  // The decoder's own words for text that is not a JWT at all: it shows what a JWT is made of.
  const reason =
    verdict.refusal.reason === 'malformed'
      ? 'not a JWT (three base64url parts, a JSON header and JSON claims)'
      : describeRefusal(p, verdict.refusal);
  return { valid: false, reason, header, claims };
}
