// The role mappings of a user or a group (…/users/{id}/role-mappings, …/groups/{id}/role-mappings), one set of
// endpoints for both as Keycloak's RoleMapperResource serves them: all of them, the realm's, a client's, each
// with its `composite` (effective) and `available` (not mapped yet) views; mapped and unmapped by POST and DELETE.
import type { Router } from 'express';
import { effectiveRoles } from '../fixtures/keycloak/roles.js';
import type { KeycloakRealm, RoleSet } from '../fixtures/keycloak/model.js';
import type { KeycloakRealmRepresentation } from '../fixtures/keycloak/schema.js';
import { editing, handle, keycloakRealmOf, type AdminContext } from './http.js';
import { clientRolesOut, mappingsOut, realmRolesOut } from './representations.js';
import {
  addNames,
  clientRolesOf,
  findClient,
  findGroup,
  findUser,
  mappedRealmNames,
  realmRoleList,
  removeNames,
  roleNamesOf,
  userRolesOf,
} from './resources.js';

type Rep = KeycloakRealmRepresentation;

/** What holds role mappings: a user or a group. */
interface Holder {
  realmRoles?: string[] | undefined;
  clientRoles?: Record<string, string[]> | undefined;
}

/** How a kind of holder is found, and which roles it has directly and in effect. */
interface HolderKind {
  /** The path of one holder, under /admin/realms. */
  path: string;
  find(rep: Rep, id: string): Holder;
  /** Its realm roles as mapped (a user's include the realm's default role, as Keycloak lists it). */
  mappedRealm(kc: KeycloakRealm, rep: Rep, id: string): Set<string>;
  /** Its roles in effect: through groups (and parent groups), the default role and composites. */
  effective(kc: KeycloakRealm, rep: Rep, id: string): RoleSet;
}

const USERS: HolderKind = {
  path: '/:realm/users/:id',
  find: findUser,
  mappedRealm: (kc, rep, id) => mappedRealmNames(kc, findUser(rep, id)),
  effective: (kc, rep, id) => userRolesOf(kc, findUser(rep, id)),
};

const GROUPS: HolderKind = {
  path: '/:realm/groups/:id',
  find: (rep, id) => findGroup(rep, id).group,
  mappedRealm: (_kc, rep, id) => new Set(findGroup(rep, id).group.realmRoles ?? []),
  // A group's own roles and its parents', composites expanded (no default role).
  effective: (kc, rep, id) =>
    effectiveRoles(kc, { realmRoles: [], clientRoles: {}, groups: [findGroup(rep, id).path] }, false),
};

function holderRoutes(router: Router, ctx: AdminContext, kind: HolderKind): void {
  const base = `${kind.path}/role-mappings`;
  const read = (
    fn: (kc: KeycloakRealm, rep: Rep, id: string, client: string | undefined) => unknown,
  ): ReturnType<typeof handle> =>
    handle(async (req, res) => {
      const kc = keycloakRealmOf(await ctx.provider(req));
      const client = req.params['client'];
      res.json(
        fn(
          kc,
          kc.representation,
          String(req.params['id']),
          client === undefined ? undefined : String(client),
        ),
      );
    });

  router.get(
    base,
    read((kc, rep, id) => {
      const names = kind.mappedRealm(kc, rep, id);
      const holder = kind.find(rep, id);
      const realm = realmRoleList(rep, kc).filter((r) => names.has(r.name));
      return mappingsOut(rep, realm, (clientId) => holder.clientRoles?.[clientId] ?? []);
    }),
  );
  router.get(
    `${base}/realm`,
    read((kc, rep, id) => {
      const names = kind.mappedRealm(kc, rep, id);
      return realmRolesOut(rep, realmRoleList(rep, kc), (name) => names.has(name));
    }),
  );
  router.get(
    `${base}/realm/composite`,
    read((kc, rep, id) => {
      const names = new Set(kind.effective(kc, rep, id).realm);
      return realmRolesOut(rep, realmRoleList(rep, kc), (name) => names.has(name));
    }),
  );
  router.get(
    `${base}/realm/available`,
    read((kc, rep, id) => {
      const names = kind.mappedRealm(kc, rep, id);
      return realmRolesOut(rep, realmRoleList(rep, kc), (name) => !names.has(name));
    }),
  );
  for (const method of ['post', 'delete'] as const)
    router[method](
      `${base}/realm`,
      editing(ctx, (req, p) => (rep) => {
        const holder = kind.find(rep, String(req.params['id']));
        const names = roleNamesOf(req.body ?? [], realmRoleList(rep, p.realm.keycloak));
        holder.realmRoles =
          method === 'post' ? addNames(holder.realmRoles, names) : removeNames(holder.realmRoles, names);
      }),
    );

  // A client's roles (the client by its id).
  for (const view of ['', '/composite', '/available'] as const)
    router.get(
      `${base}/clients/:client${view}`,
      read((kc, rep, id, clientUuid) => {
        const client = findClient(rep, String(clientUuid));
        const mapped = new Set(
          view === '/composite'
            ? (kind.effective(kc, rep, id).client.get(client.clientId) ?? [])
            : (kind.find(rep, id).clientRoles?.[client.clientId] ?? []),
        );
        return clientRolesOut(rep, client, (name) => (view === '/available') !== mapped.has(name));
      }),
    );
  for (const method of ['post', 'delete'] as const)
    router[method](
      `${base}/clients/:client`,
      editing(ctx, (req) => (rep) => {
        const holder = kind.find(rep, String(req.params['id']));
        const client = findClient(rep, String(req.params['client']));
        const names = roleNamesOf(req.body ?? [], clientRolesOf(rep, client.clientId));
        const roles = { ...holder.clientRoles };
        roles[client.clientId] =
          method === 'post'
            ? addNames(roles[client.clientId], names)
            : removeNames(roles[client.clientId], names);
        if (roles[client.clientId]?.length === 0) delete roles[client.clientId];
        holder.clientRoles = roles;
      }),
    );
}

/** The role-mapping endpoints of users and of groups. */
export function roleMappingRoutes(router: Router, ctx: AdminContext): void {
  holderRoutes(router, ctx, USERS);
  holderRoutes(router, ctx, GROUPS);
}
