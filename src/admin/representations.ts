// Keycloak's representations as the admin API answers them, made from the realm's stored representation:
// Keycloak's defaults filled in, fields without a value left out (never null).
import { mapperIdOf } from '../fixtures/keycloak/ids.js';
import { nameUuid } from '../ids.js';
import { clientScopes } from './client-scopes.js';
import {
  realmIdOf,
  type ClientRepresentation,
  type GroupRepresentation,
  type KeycloakRealmRepresentation,
  type RoleRepresentation,
  type UserRepresentation,
} from '../fixtures/keycloak/schema.js';

type Json = Record<string, unknown>;

/** `value` without its undefined and null fields. */
export function present(value: Json): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(value)) if (v !== undefined && v !== null) out[k] = v;
  return out;
}

const USER_ACCESS = {
  manageGroupMembership: true,
  view: true,
  mapRoles: true,
  impersonate: true,
  manage: true,
};

/** Fields a user representation carries that the answer leaves to the other endpoints (or never shows). */
const USER_HIDDEN = new Set(['credentials', 'realmRoles', 'clientRoles', 'groups', 'clientConsents']);

/**
 * A user as the admin API answers one; `brief` as Keycloak's briefRepresentation (ModelToRepresentation
 * .toBriefRepresentation): the names, email, flags and creation time only, without attributes, required
 * actions, totp, credential types or notBefore, and with the caller's access as in a full listing.
 * `withAccess` false: without the caller's access, as Keycloak answers a group's members and a client's
 * service-account user.
 */
export function userOut(u: UserRepresentation, brief = false, withAccess = true): Json {
  const named = {
    id: u.id,
    username: u.username,
    firstName: u.firstName,
    lastName: u.lastName,
    email: u.email,
    emailVerified: u.emailVerified ?? false,
  };
  const access = withAccess ? USER_ACCESS : undefined;
  if (brief)
    return present({
      ...named,
      createdTimestamp: u.createdTimestamp,
      enabled: u.enabled ?? true,
      federationLink: u['federationLink'],
      access,
    });
  const rest: Json = {};
  for (const [k, v] of Object.entries(u)) if (!USER_HIDDEN.has(k)) rest[k] = v;
  const attributes =
    u.attributes !== undefined && Object.keys(u.attributes).length > 0 ? u.attributes : undefined;
  return present({
    ...rest,
    ...named,
    attributes,
    createdTimestamp: u.createdTimestamp,
    enabled: u.enabled ?? true,
    totp: false,
    disableableCredentialTypes: [],
    requiredActions: u.requiredActions ?? [],
    notBefore: typeof u['notBefore'] === 'number' ? u['notBefore'] : 0,
    access,
  });
}

/** The secret of a confidential client: its own, else the one made for it when it was read without one. */
export function secretOf(realm: string, c: ClientRepresentation): string {
  return c.secret !== undefined && c.secret !== ''
    ? c.secret
    : nameUuid(realm, 'unshared client secret', c.clientId);
}

export function clientOut(rep: KeycloakRealmRepresentation, c: ClientRepresentation): Json {
  const realm = rep.realm;
  const confidential = c.publicClient !== true && c.bearerOnly !== true;
  return present({
    ...c,
    id: c.id,
    clientId: c.clientId,
    name: c.name,
    surrogateAuthRequired: false,
    enabled: c.enabled ?? true,
    alwaysDisplayInConsole: false,
    clientAuthenticatorType: c.clientAuthenticatorType ?? 'client-secret',
    secret: confidential ? secretOf(realm, c) : undefined,
    redirectUris: c.redirectUris ?? [],
    webOrigins: c.webOrigins ?? [],
    notBefore: 0,
    bearerOnly: c.bearerOnly ?? false,
    consentRequired: false,
    standardFlowEnabled: c.standardFlowEnabled ?? true,
    implicitFlowEnabled: c.implicitFlowEnabled ?? false,
    directAccessGrantsEnabled: c.directAccessGrantsEnabled ?? false,
    serviceAccountsEnabled: c.serviceAccountsEnabled ?? false,
    publicClient: c.publicClient ?? false,
    frontchannelLogout: c.frontchannelLogout ?? true,
    protocol: c.protocol ?? 'openid-connect',
    attributes: c.attributes ?? {},
    fullScopeAllowed: c['fullScopeAllowed'] ?? true,
    nodeReRegistrationTimeout: -1,
    defaultClientScopes: clientScopes(rep, c, 'default'),
    optionalClientScopes: clientScopes(rep, c, 'optional'),
    protocolMappers: c.protocolMappers?.map((m) => ({ ...m, id: mapperIdOf(rep.realm, c.clientId, m) })),
    access: { view: true, configure: true, manage: true },
  });
}

export function roleOut(r: RoleRepresentation, containerId: string, clientRole: boolean): Json {
  const composite =
    (r.composites?.realm?.length ?? 0) > 0 ||
    Object.values(r.composites?.client ?? {}).some((names) => names.length > 0);
  return present({
    id: r.id,
    name: r.name,
    description: r.description,
    composite,
    clientRole,
    containerId,
    attributes: r['attributes'] ?? {},
  });
}

export function groupOut(
  g: GroupRepresentation,
  path: string,
  parentId: string | undefined,
  deep: boolean,
): Json {
  const subGroups = g.subGroups ?? [];
  return present({
    id: g.id,
    name: g.name,
    path,
    parentId,
    subGroupCount: subGroups.length,
    subGroups: deep ? subGroups.map((s) => groupOut(s, `${path}/${s.name}`, g.id, true)) : [],
    attributes: g.attributes ?? {},
    realmRoles: g.realmRoles ?? [],
    // As Keycloak's ModelToRepresentation: a client is listed only with a role of it the group has.
    clientRoles: Object.fromEntries(
      Object.entries(g.clientRoles ?? {}).filter(([, names]) => names.length > 0),
    ),
    access: { view: true, viewMembers: true, manageMembers: true, manage: true, manageMembership: true },
  });
}

/** The realm roles of `roles` whose names `keep` accepts, as Keycloak lists them. */
export function realmRolesOut(
  rep: KeycloakRealmRepresentation,
  roles: readonly RoleRepresentation[],
  keep: (name: string) => boolean,
): Json[] {
  return roles.filter((r) => keep(r.name)).map((r) => roleOut(r, realmIdOf(rep), false));
}

/** Client `client`'s roles whose names `keep` accepts, as Keycloak lists them. */
export function clientRolesOut(
  rep: KeycloakRealmRepresentation,
  client: ClientRepresentation,
  keep: (name: string) => boolean,
): Json[] {
  return (rep.roles?.client?.[client.clientId] ?? [])
    .filter((r) => keep(r.name))
    .map((r) => roleOut(r, client.id ?? '', true));
}

/**
 * Keycloak's MappingsRepresentation (a user's role mappings, a client's scope mappings): the realm roles, and
 * by client the roles of each client that has some mapped; an empty part is left out.
 */
export function mappingsOut(
  rep: KeycloakRealmRepresentation,
  realmRoles: readonly RoleRepresentation[],
  clientNames: (clientId: string) => readonly string[],
): Json {
  const clientMappings: Json = {};
  for (const c of rep.clients ?? []) {
    const names = clientNames(c.clientId);
    const mappings = clientRolesOut(rep, c, (name) => names.includes(name));
    if (mappings.length > 0) clientMappings[c.clientId] = { id: c.id, client: c.clientId, mappings };
  }
  return present({
    realmMappings: realmRoles.length > 0 ? realmRolesOut(rep, realmRoles, () => true) : undefined,
    clientMappings: Object.keys(clientMappings).length > 0 ? clientMappings : undefined,
  });
}

type Credential = NonNullable<UserRepresentation['credentials']>[number];

/** A credential's id: its own, else derived from its user and place (a file's credentials often have none). */
export const credentialIdOf = (
  realm: string,
  user: UserRepresentation,
  c: Credential,
  index: number,
): string => c.id ?? nameUuid(realm, 'credential', user.id ?? user.username, String(index));

/**
 * What Keycloak 26 stores about a password it hashed itself (argon2, its defaults): a plain password of a
 * realm file or of the admin API is shown as Keycloak would show it after hashing.
 */
const ARGON2_DATA = JSON.stringify({
  hashIterations: 5,
  algorithm: 'argon2',
  additionalParameters: {
    hashLength: ['32'],
    memory: ['7168'],
    type: ['id'],
    version: ['1.3'],
    parallelism: ['1'],
  },
});

/** A credential as Keycloak's CredentialRepresentation lists it: no value, no secret data. */
export function credentialOut(realm: string, user: UserRepresentation, c: Credential, index: number): Json {
  const type = c.type ?? 'password';
  return present({
    id: credentialIdOf(realm, user, c, index),
    type,
    userLabel: c.userLabel,
    createdDate: c.createdDate ?? user.createdTimestamp,
    credentialData: c.credentialData ?? (type === 'password' ? ARGON2_DATA : '{}'),
  });
}
