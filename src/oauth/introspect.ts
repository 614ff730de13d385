// RFC 7662 introspection answers, with the interface document's attribute rules (no nbf, aud, jti).
import type { Client } from '../fixtures/realm.js';
import type { Provider, VerifiedToken } from '../provider.js';
import { releasedClaims } from '../tokens/placement.js';

const NOT_RETURNED = new Set(['nbf', 'aud', 'jti']);
const TOKEN_TYPE: Record<VerifiedToken['kind'], string> = {
  access: 'Bearer',
  refresh: 'Refresh',
  id: 'ID',
  proof: 'Proof',
};

export const INACTIVE = Object.freeze({ active: false });

/** What `caller` (a resource server) may learn about `token`. */
export async function introspect(
  p: Provider,
  caller: Client,
  token: string,
): Promise<Record<string, unknown>> {
  const verified = await p.verifyOwnToken(token);
  if (verified === undefined) return INACTIVE;
  const { claims } = verified;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(claims)) if (!NOT_RETURNED.has(k)) out[k] = v;

  const entry = typeof claims.sub === 'string' ? p.realm.subjects.get(claims.sub) : undefined;
  const scopes = typeof claims['scope'] === 'string' ? claims['scope'].split(' ') : [];
  if (entry !== undefined && entry.serviceAccountOf === undefined && verified.kind === 'access') {
    // nnin_altsub is never in the access token; eligible resource servers get it here.
    const nnin = releasedClaims(
      { realm: p.realm, subject: entry.subject, scopes, nninEligible: caller.nninEligible },
      'id',
    )['nnin_altsub'];
    if (nnin !== undefined) out['nnin_altsub'] = nnin;
  }
  return {
    ...out,
    client_id: claims['azp'],
    ...(entry !== undefined ? { username: entry.subject.username } : {}),
    token_type: TOKEN_TYPE[verified.kind],
    active: true,
  };
}
