// Pure claim builders per token type. No HTTP, no clock reads: times and ids come in as arguments.
import type { Client, Realm, Subject } from '../fixtures/realm.js';
import { releasedClaims } from './placement.js';

/** What an authorization (code, client credentials, refresh) granted: the input of every builder. */
export interface Grant {
  client: Client;
  subject: Subject;
  serviceAccount: boolean;
  scopes: string[];
  sessionId: string;
  /** OIDC Session Management `session_state` of a browser sign-in; else the session id stands in. */
  sessionState?: string;
  authTime: number;
  nonce?: string;
  /** The `sub` the client sees when it is not the subject's own (a pairwise client: SubjectIds.forClient). */
  sub?: string;
}

export interface Stamp {
  issuer: string;
  jti: string;
  /** iat, epoch seconds. */
  iat: number;
  /** exp, epoch seconds. */
  exp: number;
}

export type Claims = Record<string, unknown>;

/** What a grant's audiences and roles are. */
export interface Access {
  aud: string[];
  realmRoles: string[];
  resourceAccess: Record<string, { roles: string[] }>;
}

/**
 * What the claim builders derive from a realm, a subject and the granted scopes alone: the access (audiences,
 * roles), the `scope` text and the released user claims per target, made once per token.
 */
interface Derived {
  access: Access;
  scope: string;
  released: Map<string, Claims>;
}

function derivedOf(realm: Realm, grant: Grant): Derived {
  return { access: accessOf(realm, grant), scope: grant.scopes.join(' '), released: new Map() };
}

/** realm_access, resource_access and the audiences of a grant. */
export function accessOf(realm: Realm, grant: Grant): Access {
  // Keyed by client ids from the fixtures: a Map, so an id like "constructor" is data, not Object.prototype.
  const byResource = new Map<string, string[]>();
  const add = (resource: string, roles: readonly string[]): void => {
    let entry = byResource.get(resource);
    if (entry === undefined) byResource.set(resource, (entry = []));
    for (const r of roles) if (!entry.includes(r)) entry.push(r);
  };
  for (const [resource, roles] of Object.entries(grant.subject.clientRoles)) add(resource, roles);
  const aud: string[] = [];
  for (const name of grant.scopes) {
    const scope = realm.scopes.get(name);
    if (scope?.resource === undefined) continue;
    if (!aud.includes(scope.resource)) aud.push(scope.resource);
    add(scope.resource, scope.roles);
  }
  const resourceAccess = Object.fromEntries(
    [...byResource].filter(([, roles]) => roles.length > 0).map(([resource, roles]) => [resource, { roles }]),
  );
  return { aud, realmRoles: grant.subject.realmRoles, resourceAccess };
}

/** realm_access and resource_access, when not empty, onto `out` (in that order). */
function addRoleClaims(out: Claims, access: Access): void {
  if (access.realmRoles.length > 0) out['realm_access'] = { roles: [...access.realmRoles] };
  for (const _ in access.resourceAccess) {
    out['resource_access'] = access.resourceAccess;
    break;
  }
}

/** The subject's claims for `target`; nnin_altsub only with the client's eligibility (never for proof tokens). */
function released(
  realm: Realm,
  grant: Grant,
  target: 'access' | 'id',
  nninEligible = grant.client.nninEligible,
  derived = derivedOf(realm, grant),
): Claims {
  const key = nninEligible ? `${target} nnin` : target;
  let claims = derived.released.get(key);
  if (claims === undefined) {
    claims = Object.freeze(
      releasedClaims({ realm, subject: grant.subject, scopes: grant.scopes, nninEligible }, target),
    );
    derived.released.set(key, claims);
  }
  return claims;
}

/** acr (Keycloak's default "1") and amr of the authentication, onto `out` (in that order). */
function addAuthLevel(out: Claims, grant: Grant): void {
  out['acr'] = grant.subject.acr ?? '1';
  if (grant.subject.amr !== undefined) out['amr'] = grant.subject.amr;
}

// The access and refresh builders run per token request: one object filled in claim order (the order the
// JSON shows), one accessOf, no intermediate objects to spread.
export function buildAccessClaims(realm: Realm, grant: Grant, stamp: Stamp): Claims {
  const derived = derivedOf(realm, grant);
  const { access } = derived;
  const { aud } = access;
  const out: Claims = {
    exp: stamp.exp,
    iat: stamp.iat,
    auth_time: grant.authTime,
    jti: stamp.jti,
    iss: stamp.issuer,
  };
  if (aud.length === 1) out['aud'] = aud[0];
  else if (aud.length > 1) out['aud'] = aud;
  out['sub'] = grant.sub ?? grant.subject.sub;
  out['typ'] = 'Bearer';
  out['azp'] = grant.client.id;
  if (grant.nonce !== undefined) out['nonce'] = grant.nonce;
  out['session_state'] = grant.sessionState ?? grant.sessionId;
  addAuthLevel(out, grant);
  if (grant.client.webOrigins.length > 0) out['allowed-origins'] = grant.client.webOrigins;
  addRoleClaims(out, access);
  out['scope'] = derived.scope;
  out['sid'] = grant.sessionId;
  if (grant.serviceAccount) out['client_id'] = grant.client.id;
  return Object.assign(out, released(realm, grant, 'access', grant.client.nninEligible, derived));
}

export function buildIdClaims(
  realm: Realm,
  grant: Grant,
  stamp: Stamp,
  hashes: { atHash?: string; cHash?: string; sHash?: string },
): Claims {
  // As the access builder: one object filled in claim order, no intermediate objects to spread.
  const out: Claims = {
    exp: stamp.exp,
    iat: stamp.iat,
    auth_time: grant.authTime,
    jti: stamp.jti,
    iss: stamp.issuer,
    aud: grant.client.id,
    sub: grant.sub ?? grant.subject.sub,
    typ: 'ID',
    azp: grant.client.id,
  };
  if (grant.nonce !== undefined) out['nonce'] = grant.nonce;
  out['session_state'] = grant.sessionState ?? grant.sessionId;
  if (hashes.atHash !== undefined) out['at_hash'] = hashes.atHash;
  if (hashes.cHash !== undefined) out['c_hash'] = hashes.cHash;
  if (hashes.sHash !== undefined) out['s_hash'] = hashes.sHash;
  addAuthLevel(out, grant);
  out['sid'] = grant.sessionId;
  return Object.assign(out, released(realm, grant, 'id'));
}

export function buildRefreshClaims(realm: Realm, grant: Grant, stamp: Stamp): Claims {
  const out: Claims = {
    exp: stamp.exp,
    iat: stamp.iat,
    jti: stamp.jti,
    iss: stamp.issuer,
    aud: stamp.issuer,
    sub: grant.sub ?? grant.subject.sub,
    typ: grant.scopes.includes('offline_access') ? 'Offline' : 'Refresh',
    azp: grant.client.id,
  };
  if (grant.nonce !== undefined) out['nonce'] = grant.nonce;
  out['session_state'] = grant.sessionState ?? grant.sessionId;
  const derived = derivedOf(realm, grant);
  addRoleClaims(out, derived.access);
  out['scope'] = derived.scope;
  out['sid'] = grant.sessionId;
  return out;
}

/** The idp_proof token: proves the end-user authentication to the client (claim set not shown in the document). */
export function buildProofClaims(realm: Realm, grant: Grant, stamp: Stamp): Claims {
  const altsub = released(realm, grant, 'access', false)['idp_altsub'];
  const out: Claims = {
    exp: stamp.exp,
    iat: stamp.iat,
    auth_time: grant.authTime,
    jti: stamp.jti,
    iss: stamp.issuer,
    aud: grant.client.id,
    sub: grant.sub ?? grant.subject.sub,
    typ: 'Proof',
    azp: grant.client.id,
  };
  if (grant.nonce !== undefined) out['nonce'] = grant.nonce;
  out['session_state'] = grant.sessionState ?? grant.sessionId;
  addAuthLevel(out, grant);
  if (altsub !== undefined) out['idp_altsub'] = altsub;
  out['sid'] = grant.sessionId;
  return out;
}
