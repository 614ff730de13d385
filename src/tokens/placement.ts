// Which user claim goes into which token: the interface document's "Appears in" column.
import type { Client, Realm, Subject } from '../fixtures/realm.js';
import { keycloakClaims, PROVIDER_CLAIMS, type ClaimTarget } from './keycloak-claims.js';
import { leavesOut, type ApiVersion } from './versions.js';

const BOTH: ClaimTarget[] = ['access', 'id', 'userinfo', 'introspection'];
const ID_ONLY: ClaimTarget[] = ['id', 'userinfo'];
const ACCESS_ONLY: ClaimTarget[] = ['access', 'introspection'];

/** Claims the document places; any other user claim goes into access, ID and userinfo. */
const PLACEMENT = new Map<string, ClaimTarget[]>([
  ['name', BOTH],
  ['given_name', BOTH],
  ['family_name', BOTH],
  ['preferred_username', BOTH],
  ['birthdate', BOTH],
  ['idp_altsub', BOTH],
  ['originator', BOTH],
  ['updated_at', ID_ONLY],
  ['nnin_altsub', ID_ONLY],
  ['additionalCertInfo', ID_ONLY],
  ['tid', ID_ONLY],
  ['resource_claims', ACCESS_ONLY],
]);

/** Claims that only the provider sets (its own, and the roles and methods it derives); a fixture cannot place them. */
const RESERVED = new Set([...PROVIDER_CLAIMS, 'realm_access', 'resource_access', 'allowed-origins', 'amr']);

interface ReleaseContext {
  realm: Realm;
  subject: Subject;
  /** Granted scopes. */
  scopes: readonly string[];
  /** Whether nnin_altsub may be released (eligible client, or eligible resource server at introspection). */
  nninEligible: boolean;
  /** The interface version of the sign-in: version 4 releases fewer claims. Absent: 1. */
  apiVersion?: ApiVersion | undefined;
  /** The client the claims are for: a Keycloak realm's claims come from its client scopes and mappers. */
  client?: Client | undefined;
}

/** The subject's claims released into `target`, honouring scope gates and nnin eligibility. */
export function releasedClaims(ctx: ReleaseContext, target: ClaimTarget): Record<string, unknown> {
  const kc = ctx.realm.keycloak;
  if (kc !== undefined) return keycloakClaims({ ...ctx, kc }, target);
  const out: Record<string, unknown> = {};
  for (const [claim, value] of Object.entries(ctx.subject.claims)) {
    if (value === null || value === undefined || RESERVED.has(claim)) continue;
    if (!(PLACEMENT.get(claim) ?? BOTH).includes(target)) continue;
    if (leavesOut(ctx.apiVersion, target, claim)) continue;
    const gate = ctx.realm.gatedClaims.get(claim);
    if (gate !== undefined && !ctx.scopes.includes(gate)) continue;
    if (claim === 'nnin_altsub' && !(ctx.nninEligible && ctx.scopes.includes('nnin_altsub'))) continue;
    out[claim] = value;
  }
  return out;
}
