// RFC 7662 introspection answers, with the interface document's attribute rules (no nbf, aud, jti).
import { isDisabled, type Client, type Subject } from '../fixtures/realm.js';
import type { RealmContext } from '../realm/context.js';
import type { VerifiedToken } from '../tokens/verify.js';
import { boundJkt } from './dpop.js';
import { releasedClaims } from '../tokens/placement.js';

const NOT_RETURNED = new Set(['nbf', 'aud', 'jti', 'nnin_altsub']);
const TOKEN_TYPE: Record<VerifiedToken['kind'], string> = {
  access: 'Bearer',
  refresh: 'Refresh',
  id: 'ID',
  proof: 'Proof',
};

const INACTIVE = Object.freeze({ active: false });

/**
 * nnin_altsub goes only to an eligible caller, whatever client got the token: from the access token's scopes,
 * or as an ID token carries it. Never copied through to a caller that is not eligible.
 */
function nninFor(
  p: RealmContext,
  caller: Client,
  verified: VerifiedToken,
  user: Subject | undefined,
): unknown {
  if (!caller.nninEligible || user === undefined) return undefined;
  if (verified.kind === 'id') return verified.claims['nnin_altsub'];
  if (verified.kind !== 'access') return undefined;
  const scope = verified.claims['scope'];
  const scopes = typeof scope === 'string' ? scope.split(' ') : [];
  return releasedClaims({ realm: p.realm, subject: user, scopes, nninEligible: true }, 'id')['nnin_altsub'];
}

/**
 * Why a valid token is inactive all the same, as Keycloak's introspection decides: the user of the session it
 * belongs to was removed from the realm or is disabled. Undefined for any other token (a service account's,
 * one minted offline whose session this server never held).
 */
export async function barredUser(p: RealmContext, verified: VerifiedToken): Promise<string | undefined> {
  const username = (await p.store.activeSession(verified.sessionId))?.username;
  if (username === undefined) return undefined;
  if (!p.realm.users.has(username)) return `its user "${username}" is no longer in the realm`;
  return isDisabled(p.realm, username) ? `its user "${username}" is disabled` : undefined;
}

/** What `caller` (a resource server) may learn about a token: `verified`, or none (inactive). */
export function introspect(
  p: RealmContext,
  caller: Client,
  verified: VerifiedToken | undefined,
): Record<string, unknown> {
  if (verified === undefined) return INACTIVE;
  const { claims } = verified;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(claims)) if (!NOT_RETURNED.has(k)) out[k] = v;

  const azp = typeof claims['azp'] === 'string' ? claims['azp'] : undefined;
  const entry = typeof claims.sub === 'string' ? p.subjectIds.lookup(p.realm, claims.sub, azp) : undefined;
  const user = entry !== undefined && entry.serviceAccountOf === undefined ? entry.subject : undefined;
  const nnin = nninFor(p, caller, verified, user);
  if (nnin !== undefined) out['nnin_altsub'] = nnin;
  return {
    ...out,
    client_id: claims['azp'],
    ...(entry !== undefined ? { username: entry.subject.username } : {}),
    // A DPoP-bound access token is of the type its token response named (RFC 9449 §6.2 shows its cnf).
    token_type:
      verified.kind === 'access' && boundJkt(claims) !== undefined ? 'DPoP' : TOKEN_TYPE[verified.kind],
    active: true,
  };
}
