// The realm's users, clients, roles and groups as the admin API finds and edits them in the stored
// representation. Each lookup walks its list once: a request costs time linear in the realm's size.
import type {
  ClientRepresentation,
  GroupRepresentation,
  KeycloakRealmRepresentation,
  RoleRepresentation,
  UserRepresentation,
} from '../fixtures/keycloak/schema.js';
import { groupPath } from '../fixtures/keycloak/convert.js';
import type { KeycloakRealm, RoleSet } from '../fixtures/keycloak/model.js';
import { effectiveRoles } from '../fixtures/keycloak/roles.js';
import { nameUuid } from '../ids.js';
import { badRequest, conflict, notFound } from './errors.js';
import { parseBody, roleRefs } from './input.js';

type Rep = KeycloakRealmRepresentation;

export const usersOf = (rep: Rep): UserRepresentation[] => (rep.users ??= []);
export const clientsOf = (rep: Rep): ClientRepresentation[] => (rep.clients ??= []);

export function findUser(rep: Rep, id: string): UserRepresentation {
  const user = rep.users?.find((u) => u.id === id);
  if (user === undefined) throw notFound('User not found');
  return user;
}

/** Client `clientUuid`'s role `name`; 404 as Keycloak's for either unknown. */
export function clientRole(
  rep: Rep,
  clientUuid: string,
  name: string,
): { client: ClientRepresentation; role: RoleRepresentation } {
  const client = findClient(rep, clientUuid);
  const role = rep.roles?.client?.[client.clientId]?.find((r) => r.name === name);
  if (role === undefined) throw notFound('Could not find role');
  return { client, role };
}

/** The realm roles mapped to a user itself: its own, and the realm's default role (a service account has none). */
export function mappedRealmNames(kc: KeycloakRealm, user: UserRepresentation): Set<string> {
  const own = user.realmRoles ?? [];
  return new Set(user.serviceAccountClientId === undefined ? [kc.defaultRole, ...own] : own);
}

export function findClient(rep: Rep, id: string): ClientRepresentation {
  const client = rep.clients?.find((c) => c.id === id);
  if (client === undefined) throw notFound('Could not find client');
  return client;
}

export function realmRolesOf(rep: Rep): RoleRepresentation[] {
  rep.roles ??= {};
  return (rep.roles.realm ??= []);
}

export function clientRolesOf(rep: Rep, clientId: string): RoleRepresentation[] {
  rep.roles ??= {};
  rep.roles.client ??= {};
  return (rep.roles.client[clientId] ??= []);
}

/** A role named in a mapping body: by id, else by name among `roles`. */
function pickRole(
  roles: readonly RoleRepresentation[] | undefined,
  ref: { id?: string | undefined; name?: string | undefined },
): RoleRepresentation {
  const role =
    (ref.id !== undefined ? roles?.find((r) => r.id === ref.id) : undefined) ??
    (ref.name !== undefined ? roles?.find((r) => r.name === ref.name) : undefined);
  if (role === undefined) throw notFound('Role not found');
  return role;
}

/** The role names a mapping body (a list of role representations) names, each found among `roles` (404 if not). */
export function roleNamesOf(body: unknown, roles: readonly RoleRepresentation[] | undefined): string[] {
  return parseBody(roleRefs, body ?? [], 'list of roles').map((ref) => pickRole(roles, ref).name);
}

/** A role anywhere in the realm by id: a realm role (client undefined) or a client's role. */
export function roleById(rep: Rep, id: string): { role: RoleRepresentation; client?: string } | undefined {
  const realm = rep.roles?.realm?.find((r) => r.id === id);
  if (realm !== undefined) return { role: realm };
  for (const [client, roles] of Object.entries(rep.roles?.client ?? {})) {
    const role = roles.find((r) => r.id === id);
    if (role !== undefined) return { role, client };
  }
  return undefined;
}

interface FoundGroup {
  group: GroupRepresentation;
  path: string;
  parent?: GroupRepresentation;
  /** The list the group is in (the realm's top level or its parent's subgroups). */
  siblings: GroupRepresentation[];
}

/** Every group with its path, parents before their subgroups. */
export function allGroups(rep: Rep): FoundGroup[] {
  const out: FoundGroup[] = [];
  const walk = (list: GroupRepresentation[], parentPath: string, parent?: GroupRepresentation): void => {
    for (const group of list) {
      const path = `${parentPath}/${group.name}`;
      out.push({ group, path, siblings: list, ...(parent !== undefined ? { parent } : {}) });
      if (group.subGroups !== undefined) walk(group.subGroups, path, group);
    }
  };
  walk((rep.groups ??= []), '');
  return out;
}

export function findGroup(rep: Rep, id: string): FoundGroup {
  const found = allGroups(rep).find((g) => g.group.id === id);
  if (found === undefined) throw notFound('Could not find group by id');
  return found;
}

/** Adds `names` to a list of role names, each once. */
export function addNames(list: string[] | undefined, names: readonly string[]): string[] {
  const out = [...(list ?? [])];
  for (const n of names) if (!out.includes(n)) out.push(n);
  return out;
}

/** A list of role names without `names`. */
export function removeNames(list: string[] | undefined, names: readonly string[]): string[] {
  return (list ?? []).filter((n) => !names.includes(n));
}

/** A client's scope mappings as one holder: realm roles, and client roles by the client that has them. */
interface ScopeHolder {
  realmRoles: string[];
  clientRoles: Record<string, string[]>;
}

/** The scope mappings of client `clientId` (`scopeMappings`, `clientScopeMappings` entries naming it). */
export function scopeOf(rep: Rep, clientId: string): ScopeHolder {
  const realmRoles = (rep.scopeMappings ?? [])
    .filter((m) => m.client === clientId)
    .flatMap((m) => m.roles ?? []);
  const clientRoles: Record<string, string[]> = {};
  for (const [container, mappings] of Object.entries(rep.clientScopeMappings ?? {})) {
    const names = mappings.filter((m) => m.client === clientId).flatMap((m) => m.roles ?? []);
    if (names.length > 0) clientRoles[container] = addNames([], names);
  }
  return { realmRoles: addNames([], realmRoles), clientRoles };
}

/** Writes client `clientId`'s scope mappings back as one entry each (none when empty). */
export function setScope(rep: Rep, clientId: string, scope: ScopeHolder): void {
  const others = (rep.scopeMappings ?? []).filter((m) => m.client !== clientId);
  rep.scopeMappings =
    scope.realmRoles.length > 0 ? [...others, { client: clientId, roles: scope.realmRoles }] : others;
  const byContainer = { ...rep.clientScopeMappings };
  for (const container of new Set([...Object.keys(byContainer), ...Object.keys(scope.clientRoles)])) {
    const rest = (byContainer[container] ?? []).filter((m) => m.client !== clientId);
    const names = scope.clientRoles[container] ?? [];
    const next = names.length > 0 ? [...rest, { client: clientId, roles: names }] : rest;
    if (next.length > 0) byContainer[container] = next;
    else delete byContainer[container];
  }
  rep.clientScopeMappings = byContainer;
}

/** Applies `edit` to the role names of every scope mapping of realm roles (client undefined) or of `client`'s roles. */
function eachScopeMapping(rep: Rep, client: string | undefined, edit: (roles: string[]) => string[]): void {
  if (client === undefined) {
    for (const m of rep.scopeMappings ?? []) if (m.roles !== undefined) m.roles = edit(m.roles);
  } else
    for (const m of rep.clientScopeMappings?.[client] ?? [])
      if (m.roles !== undefined) m.roles = edit(m.roles);
}

/**
 * Applies `edit` to every list naming realm roles (client undefined) or `client`'s roles: users', groups',
 * the scope mappings' and the roles' composites.
 */
function editRoleMentions(rep: Rep, client: string | undefined, edit: (names: string[]) => string[]): void {
  const holders: { realmRoles?: string[] | undefined; clientRoles?: Record<string, string[]> | undefined }[] =
    [...(rep.users ?? []), ...allGroups(rep).map(({ group }) => group)];
  for (const holder of holders) {
    if (client === undefined) {
      if (holder.realmRoles !== undefined) holder.realmRoles = edit(holder.realmRoles);
    } else if (holder.clientRoles?.[client] !== undefined)
      holder.clientRoles[client] = edit(holder.clientRoles[client]);
  }
  eachScopeMapping(rep, client, edit);
  const roles = [
    ...(rep.roles?.realm ?? []),
    ...Object.values(rep.roles?.client ?? {}).flat(),
    ...(rep.defaultRole !== undefined ? [rep.defaultRole as RoleRepresentation] : []),
  ];
  for (const role of roles) {
    const c = role.composites;
    if (c === undefined) continue;
    if (client === undefined) {
      if (c.realm !== undefined) c.realm = edit(c.realm);
    } else if (c.client?.[client] !== undefined) c.client[client] = edit(c.client[client]);
  }
}

/** Removes every mention of a realm role (or a client's role) from users, groups, scope mappings and composites. */
export function forgetRole(rep: Rep, name: string, client?: string): void {
  editRoleMentions(rep, client, (names) => removeNames(names, [name]));
}

/** A role set of the realm model as a representation's composites. */
function compositesOfSet(set: RoleSet): RoleRepresentation['composites'] {
  return { realm: [...set.realm], client: Object.fromEntries([...set.client].map(([c, n]) => [c, [...n]])) };
}

/**
 * The realm roles: the representation's, then those every realm has that it does not list (the default role,
 * `offline_access`, `uma_authorization`), with their ids and composites.
 */
export function realmRoleList(rep: Rep, kc: KeycloakRealm | undefined): RoleRepresentation[] {
  const own = rep.roles?.realm ?? [];
  const listed = new Set(own.map((r) => r.name));
  const builtIn: RoleRepresentation[] = [];
  for (const [name, set] of kc?.realmRoles ?? [])
    if (!listed.has(name))
      builtIn.push({ id: nameUuid(rep.realm, 'role', '', name), name, composites: compositesOfSet(set) });
  return [...own, ...builtIn];
}

/** A realm role of {@link realmRoleList} as one the representation lists (added to it when built in). */
export function ownRealmRole(rep: Rep, kc: KeycloakRealm | undefined, name: string): RoleRepresentation {
  const own = rep.roles?.realm?.find((r) => r.name === name);
  if (own !== undefined) return own;
  const builtIn = realmRoleList(rep, kc).find((r) => r.name === name);
  if (builtIn === undefined) throw notFound('Could not find role');
  realmRolesOf(rep).push(builtIn);
  return builtIn;
}

/** Renames every mention of a realm role (or a client's role) in users, groups, scope mappings, composites and default roles. */
function renameRole(rep: Rep, from: string, to: string, client?: string): void {
  const swap = (list: string[]): string[] => list.map((n) => (n === from ? to : n));
  editRoleMentions(rep, client, swap);
  // Files older than Keycloak 13 list the default roles by name.
  if (client === undefined) {
    if (rep.defaultRoles !== undefined) rep.defaultRoles = swap(rep.defaultRoles);
  } else
    for (const c of rep.clients ?? [])
      if (c.clientId === client && c.defaultRoles !== undefined) c.defaultRoles = swap(c.defaultRoles);
}

/**
 * `PUT` of a role (realm or client): merges the fields sent. A new name renames it, as Keycloak does: every
 * mapping, composite and default role naming it follows; a name another role of `siblings` has is a 409.
 * `client` is the clientId of a client role.
 */
export function updateRole(
  rep: Rep,
  role: RoleRepresentation,
  body: Partial<RoleRepresentation>,
  siblings: readonly RoleRepresentation[],
  client?: string,
): void {
  const { id: _id, name, ...fields } = body;
  if (name !== undefined && name !== role.name) {
    if (name.trim() === '') throw badRequest('Role name cannot be empty');
    if (siblings.some((r) => r !== role && r.name === name)) throw conflict('Role with same name exists');
    if (
      client === undefined &&
      role.name === (rep.defaultRole?.name ?? `default-roles-${rep.realm.toLowerCase()}`)
    )
      throw badRequest("The realm's default role cannot be renamed here");
    renameRole(rep, role.name, name, client);
    role.name = name;
  }
  Object.assign(role, fields);
}

/**
 * A user's effective roles as its representation gives them: through its groups (their parents too), the
 * realm's default role and composites.
 */
export function userRolesOf(kc: KeycloakRealm, user: UserRepresentation): RoleSet {
  return effectiveRoles(kc, {
    realmRoles: user.realmRoles ?? [],
    clientRoles: user.clientRoles ?? {},
    groups: (user.groups ?? []).map(groupPath),
  });
}
