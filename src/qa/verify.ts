// POST /mock/tokens/verify: decode a token and say whether this realm accepts it, and if not exactly why.
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { explainRefusal } from '../oauth/refusal.js';
import type { Provider } from '../realm/provider.js';
import { verifyOwnToken } from '../tokens/verify.js';

export interface TokenVerdict {
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
  let header: Record<string, unknown>;
  let claims: Record<string, unknown>;
  try {
    header = decodeProtectedHeader(text) as Record<string, unknown>;
    claims = decodeJwt(text) as Record<string, unknown>;
  } catch {
    return {
      valid: false,
      reason: 'not a JWT (three base64url parts, a JSON header and JSON claims)',
      header: null,
      claims: null,
    };
  }
  const verified = await verifyOwnToken(p, text);
  if (verified !== undefined)
    return { valid: true, reason: `an active ${verified.kind} token of this realm`, header, claims };
  return { valid: false, reason: await explainRefusal(p, text), header, claims };
}
