// Pure claim builders per token type. No HTTP, no clock reads: times and ids come in as arguments.
import type { Client, Realm, Subject } from '../fixtures/realm.js';
import { keycloakAudience, keycloakIdAudience, keycloakScope } from './keycloak-claims.js';
import { releasedClaims } from './placement.js';
import { acrOf, addVersionClaims, amrOf, leavesOut, type ApiVersion, type Method } from './versions.js';

/** What an authorization (code, client credentials, refresh) granted: the input of every builder. */
export interface Grant {
  client: Client;
  subject: Subject;
  serviceAccount: boolean;
  scopes: string[];
  sessionId: string;
  authTime: number;
  nonce?: string;
  /** The `sub` the client sees when it is not the subject's own (a pairwise client: SubjectIds.forClient). */
  sub?: string;
  /** The interface version the tokens follow; absent: 1. */
  apiVersion?: ApiVersion;
  /** The method `acr_values` picked: it decides acr and amr over the user's fixtures ones. */
  method?: Method;
  /**
   * The audiences a token exchange asked for: the access token's `aud` and `resource_access` keep only these
   * (each must be among the audiences the grant has without it: see grantAudiences).
   */
  audience?: string[];
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

/** The refresh token claim carrying a token exchange's `audience` parameters. */
export const REQUESTED_AUDIENCE_CLAIM = 'requested_audience';

/** What a grant's audiences and roles are. */
interface Access {
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
  const kc = realm.keycloak;
  const scope = kc !== undefined ? keycloakScope(kc, grant.client, grant.scopes) : grant.scopes.join(' ');
  return { access: accessOf(realm, grant), scope, released: new Map() };
}

/**
 * The audiences a token exchange may ask for: those of the grant's scopes, and every client the grant has roles
 * of (as Keycloak's audience resolution adds each client in resource_access).
 */
function availableAudiences(access: Access): string[] {
  return [...new Set([...access.aud, ...Object.keys(access.resourceAccess)])];
}

/** The access token audiences a grant has by its scopes and roles, before a token exchange narrows them. */
export function grantAudiences(realm: Realm, grant: Grant): string[] {
  const { audience: _narrowed, ...whole } = grant;
  return availableAudiences(accessOf(realm, whole));
}

/** realm_access, resource_access and the audiences of a grant. */
function accessOf(realm: Realm, grant: Grant): Access {
  const access = wholeAccessOf(realm, grant);
  const only = grant.audience;
  if (only === undefined) return access;
  const available = availableAudiences(access);
  return {
    aud: only.filter((a) => available.includes(a)),
    realmRoles: access.realmRoles,
    resourceAccess: narrowedRoles(access.resourceAccess, only),
  };
}

/** resource_access with only the entries of `audiences` (a token exchange drops the other clients' roles). */
function narrowedRoles<T>(roles: Record<string, T>, audiences: readonly string[]): Record<string, T> {
  return Object.fromEntries(Object.entries(roles).filter(([resource]) => audiences.includes(resource)));
}

function wholeAccessOf(realm: Realm, grant: Grant): Access {
  // A Keycloak realm's roles are claims of its `roles` scope's mappers, its audiences the mappers' too.
  const kc = realm.keycloak;
  if (kc !== undefined)
    return { aud: keycloakAudience({ ...grant, kc }), realmRoles: [], resourceAccess: {} };
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
      releasedClaims(
        {
          realm,
          subject: grant.subject,
          scopes: grant.scopes,
          nninEligible,
          apiVersion: grant.apiVersion,
          client: grant.client,
        },
        target,
      ),
    );
    derived.released.set(key, claims);
  }
  return claims;
}

/** acr (Keycloak's default "1") and amr of the authentication, onto `out` (in that order). */
function addAuthLevel(out: Claims, grant: Grant, brand: string): void {
  if (grant.method !== undefined) {
    out['acr'] = acrOf(grant.method, brand);
    out['amr'] = amrOf(grant.method);
    return;
  }
  out['acr'] = grant.subject.acr ?? '1';
  if (grant.subject.amr !== undefined) out['amr'] = grant.subject.amr;
}

/** What one token type puts into the skeleton every token shares. */
interface TokenExtras {
  typ: string;
  /** Which token this is, for the claims an interface version leaves out of it. */
  target: 'access' | 'id' | 'refresh' | 'proof';
  /** Whether the token says when the user authenticated (all but the refresh token). */
  authTime: boolean;
  /** The `aud` claim, or undefined for none. */
  aud: string | string[] | undefined;
  /** The type's own claims, between session_state and sid. */
  add(out: Claims): void;
  /** Whether the interface version's extras apply (access, ID and refresh tokens). */
  versioned: boolean;
  /** Whether `session_state` is written (Keycloak 26 writes only `sid`). */
  sessionState: boolean;
}

/**
 * The claims every token has, in claim order (the order the JSON shows), with the type's extras in their place.
 * One object filled in order, no intermediate objects to spread: the builders run per token request.
 */
function skeleton(grant: Grant, stamp: Stamp, extras: TokenExtras): Claims {
  const out: Claims = { exp: stamp.exp, iat: stamp.iat };
  if (extras.authTime) out['auth_time'] = grant.authTime;
  out['jti'] = stamp.jti;
  out['iss'] = stamp.issuer;
  if (extras.aud !== undefined) out['aud'] = extras.aud;
  out['sub'] = grant.sub ?? grant.subject.sub;
  out['typ'] = extras.typ;
  out['azp'] = grant.client.id;
  const version = grant.apiVersion;
  if (grant.nonce !== undefined && !leavesOut(version, extras.target, 'nonce')) out['nonce'] = grant.nonce;
  // As Keycloak writes it: the user session's id, the same value as sid.
  if (extras.sessionState && !leavesOut(version, extras.target, 'session_state'))
    out['session_state'] = grant.sessionId;
  extras.add(out);
  out['sid'] = grant.sessionId;
  if (extras.versioned) addVersionClaims(out, grant.apiVersion);
  return out;
}

export function buildAccessClaims(realm: Realm, grant: Grant, stamp: Stamp): Claims {
  const derived = derivedOf(realm, grant);
  const { access } = derived;
  const { aud } = access;
  const out = skeleton(grant, stamp, {
    typ: 'Bearer',
    target: 'access',
    authTime: true,
    versioned: true,
    sessionState: realm.keycloak === undefined,
    aud: aud.length === 1 ? aud[0] : aud.length > 1 ? aud : undefined,
    add(claims) {
      addAuthLevel(claims, grant, realm.brand.word);
      if (grant.client.webOrigins.length > 0) claims['allowed-origins'] = grant.client.webOrigins;
      addRoleClaims(claims, access);
      claims['scope'] = derived.scope;
    },
  });
  if (grant.serviceAccount) out['client_id'] = grant.client.id;
  Object.assign(out, released(realm, grant, 'access', grant.client.nninEligible, derived));
  // A Keycloak realm's resource_access comes from its mappers: narrowed here for a token exchange's audiences.
  const roles = out['resource_access'];
  if (grant.audience !== undefined && typeof roles === 'object' && roles !== null) {
    const kept = narrowedRoles(roles as Record<string, unknown>, grant.audience);
    if (Object.keys(kept).length > 0) out['resource_access'] = kept;
    else delete out['resource_access'];
  }
  return out;
}

export function buildIdClaims(
  realm: Realm,
  grant: Grant,
  stamp: Stamp,
  hashes: { atHash?: string; cHash?: string; sHash?: string },
): Claims {
  const kc = realm.keycloak;
  const extraAud = kc !== undefined ? keycloakIdAudience({ ...grant, kc }) : [];
  const out = skeleton(grant, stamp, {
    typ: 'ID',
    target: 'id',
    authTime: true,
    versioned: true,
    sessionState: kc === undefined,
    aud: extraAud.length > 0 ? [grant.client.id, ...extraAud] : grant.client.id,
    add(claims) {
      if (hashes.atHash !== undefined) claims['at_hash'] = hashes.atHash;
      if (hashes.cHash !== undefined) claims['c_hash'] = hashes.cHash;
      if (hashes.sHash !== undefined) claims['s_hash'] = hashes.sHash;
      addAuthLevel(claims, grant, realm.brand.word);
    },
  });
  return Object.assign(out, released(realm, grant, 'id'));
}

export function buildRefreshClaims(realm: Realm, grant: Grant, stamp: Stamp): Claims {
  const derived = derivedOf(realm, grant);
  return skeleton(grant, stamp, {
    typ: grant.scopes.includes('offline_access') ? 'Offline' : 'Refresh',
    target: 'refresh',
    authTime: false,
    versioned: true,
    sessionState: realm.keycloak === undefined,
    aud: stamp.issuer,
    add(claims) {
      // The method acr_values picked, so that a refresh signs in at the same level.
      if (grant.method !== undefined) claims['acr'] = acrOf(grant.method, realm.brand.word);
      addRoleClaims(claims, derived.access);
      claims['scope'] = derived.scope;
      // The audiences a token exchange narrowed to, so that its refresh keeps them.
      if (grant.audience !== undefined) claims[REQUESTED_AUDIENCE_CLAIM] = grant.audience;
    },
  });
}

/** The {brand}_proof token: proves the end-user authentication to the client (claim set not shown in the document). */
export function buildProofClaims(realm: Realm, grant: Grant, stamp: Stamp): Claims {
  const altsub = released(realm, grant, 'access', false)[realm.brand.altsub];
  return skeleton(grant, stamp, {
    typ: 'Proof',
    target: 'proof',
    authTime: true,
    versioned: false,
    sessionState: realm.keycloak === undefined,
    aud: grant.client.id,
    add(claims) {
      addAuthLevel(claims, grant, realm.brand.word);
      if (altsub !== undefined) claims[realm.brand.altsub] = altsub;
    },
  });
}
