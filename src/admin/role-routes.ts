// /admin/realms/{realm}/roles: the realm roles, and composites.
import type { Router } from 'express';
import type { KeycloakRealmRepresentation, RoleRepresentation } from '../fixtures/keycloak/schema.js';
import { changeRealm } from './edit.js';
import { badRequest, conflict, notFound } from './errors.js';
import { parseBody, roleInput, roleRefs } from './input.js';
import {
  addNames,
  clientRolesOf,
  forgetRole,
  ownRealmRole,
  realmRoleList,
  realmRolesOf,
  removeNames,
  roleById,
  updateRole,
} from './resources.js';
import { realmRolesOut, roleOut } from './representations.js';
import { realmIdOf } from '../fixtures/keycloak/schema.js';
import { created, editing, handle, keycloakOf, queryParam, rolesPage, type AdminContext } from './http.js';
import type { KeycloakRealm } from '../fixtures/keycloak/model.js';

const R = '/:realm/roles';

/** A role of a composites body: by id anywhere in the realm, else a realm role by name. */
function compositeRef(
  rep: KeycloakRealmRepresentation,
  kc: KeycloakRealm | undefined,
  ref: { id?: string | undefined; name?: string | undefined },
): { name: string; client?: string } {
  if (ref.id !== undefined) {
    const found = roleById(rep, ref.id);
    if (found !== undefined)
      return { name: found.role.name, ...(found.client !== undefined ? { client: found.client } : {}) };
  }
  const realm = realmRoleList(rep, kc).find(
    (r) => r.name === ref.name || (ref.id !== undefined && r.id === ref.id),
  );
  if (realm === undefined) throw notFound('Could not find composite role');
  return { name: realm.name };
}

/** The roles a role's composites name, as representations (realm ones, then each client's). */
function compositesOf(
  rep: KeycloakRealmRepresentation,
  kc: KeycloakRealm | undefined,
  role: RoleRepresentation,
): unknown[] {
  const composites = role.composites?.realm ?? [];
  const realm = realmRolesOut(rep, realmRoleList(rep, kc), (name) => composites.includes(name));
  const clients = Object.entries(role.composites?.client ?? {}).flatMap(([clientId, names]) => {
    const client = rep.clients?.find((c) => c.clientId === clientId);
    return (rep.roles?.client?.[clientId] ?? [])
      .filter((r) => names.includes(r.name))
      .map((r) => roleOut(r, client?.id ?? clientId, true));
  });
  return [...realm, ...clients];
}

export function roleRoutes(router: Router, ctx: AdminContext): void {
  router.get(
    R,
    handle(async (req, res) => {
      const p = await ctx.provider(req);
      const rep = keycloakOf(p);
      const search = queryParam(req, 'search');
      const roles = realmRoleList(rep, p.realm.keycloak).filter(
        (r) => search === undefined || r.name.toLowerCase().includes(search.toLowerCase()),
      );
      res.json(rolesPage(req, roles, search !== undefined).map((r) => roleOut(r, realmIdOf(rep), false)));
    }),
  );
  router.post(
    R,
    handle(async (req, res) => {
      const p = await ctx.provider(req);
      const body = parseBody(roleInput, req.body, 'role representation');
      const name = body.name;
      if (name === undefined || name.trim() === '') throw badRequest('Role name is missing');
      const id = p.ids.uuid('admin-role');
      await changeRealm(p, (rep) => {
        if (realmRoleList(rep, p.realm.keycloak).some((r) => r.name === name))
          throw conflict(`Role with name ${name} already exists`);
        realmRolesOf(rep).push({ ...body, id, name });
      });
      created(req, res, name);
    }),
  );
  router.get(
    `${R}/:role`,
    handle(async (req, res) => {
      const p = await ctx.provider(req);
      const rep = keycloakOf(p);
      const role = realmRoleList(rep, p.realm.keycloak).find((r) => r.name === req.params['role']);
      if (role === undefined) throw notFound('Could not find role');
      res.json(roleOut(role, realmIdOf(rep), false));
    }),
  );
  router.put(
    `${R}/:role`,
    editing(ctx, (req, p) => {
      const body = parseBody(roleInput, req.body, 'role representation');
      return (rep) => {
        const role = ownRealmRole(rep, p.realm.keycloak, String(req.params['role']));
        updateRole(rep, role, body as Partial<RoleRepresentation>, realmRoleList(rep, p.realm.keycloak));
      };
    }),
  );
  router.delete(
    `${R}/:role`,
    editing(ctx, (req, p) => (rep) => {
      const role = ownRealmRole(rep, p.realm.keycloak, String(req.params['role']));
      if (role.name === p.realm.keycloak?.defaultRole) throw badRequest('You cannot delete the default role');
      const roles = realmRolesOf(rep);
      roles.splice(roles.indexOf(role), 1);
      forgetRole(rep, role.name);
    }),
  );
  router.get(
    `${R}/:role/composites`,
    handle(async (req, res) => {
      const p = await ctx.provider(req);
      const rep = keycloakOf(p);
      const role = realmRoleList(rep, p.realm.keycloak).find((r) => r.name === req.params['role']);
      if (role === undefined) throw notFound('Could not find role');
      res.json(compositesOf(rep, p.realm.keycloak, role));
    }),
  );
  /** The role a composites request names: a realm role by name, or any role by id (roles-by-id). */
  const target = (
    rep: KeycloakRealmRepresentation,
    kc: KeycloakRealm | undefined,
    params: Record<string, string | string[] | undefined>,
    own: boolean,
  ): { role: RoleRepresentation; client?: string } => {
    if (typeof params['role'] === 'string') {
      const name = params['role'];
      if (own) return { role: ownRealmRole(rep, kc, name) };
      const role = realmRoleList(rep, kc).find((r) => r.name === name);
      if (role === undefined) throw notFound('Could not find role');
      return { role };
    }
    const id = String(params['id']);
    const found = roleById(rep, id);
    if (found !== undefined) return found;
    const builtIn = realmRoleList(rep, kc).find((r) => r.id === id);
    if (builtIn === undefined) throw notFound('Could not find role with id');
    return { role: own ? ownRealmRole(rep, kc, builtIn.name) : builtIn };
  };
  router.get(
    '/:realm/roles-by-id/:id',
    handle(async (req, res) => {
      const p = await ctx.provider(req);
      const rep = keycloakOf(p);
      const { role, client } = target(rep, p.realm.keycloak, req.params, false);
      const containerId =
        client === undefined
          ? realmIdOf(rep)
          : (rep.clients?.find((c) => c.clientId === client)?.id ?? client);
      res.json(roleOut(role, containerId, client !== undefined));
    }),
  );
  router.put(
    '/:realm/roles-by-id/:id',
    editing(ctx, (req, p) => {
      const body = parseBody(roleInput, req.body, 'role representation');
      return (rep) => {
        const { role, client } = target(rep, p.realm.keycloak, req.params, true);
        const siblings =
          client === undefined ? realmRoleList(rep, p.realm.keycloak) : clientRolesOf(rep, client);
        updateRole(rep, role, body as Partial<RoleRepresentation>, siblings, client);
      };
    }),
  );
  router.get(
    '/:realm/roles-by-id/:id/composites',
    handle(async (req, res) => {
      const p = await ctx.provider(req);
      const rep = keycloakOf(p);
      res.json(compositesOf(rep, p.realm.keycloak, target(rep, p.realm.keycloak, req.params, false).role));
    }),
  );
  for (const method of ['post', 'delete'] as const)
    router[method](
      [`${R}/:role/composites`, '/:realm/roles-by-id/:id/composites'],
      editing(ctx, (req, p) => (rep) => {
        const { role } = target(rep, p.realm.keycloak, req.params, true);
        const refs = parseBody(roleRefs, req.body ?? [], 'list of roles').map((ref) =>
          compositeRef(rep, p.realm.keycloak, ref),
        );
        const composites = { realm: role.composites?.realm ?? [], client: { ...role.composites?.client } };
        for (const { name, client } of refs) {
          if (client === undefined)
            composites.realm =
              method === 'post' ? addNames(composites.realm, [name]) : removeNames(composites.realm, [name]);
          else
            composites.client[client] =
              method === 'post'
                ? addNames(composites.client[client], [name])
                : removeNames(composites.client[client], [name]);
        }
        role.composites = composites;
        role.composite =
          composites.realm.length > 0 || Object.values(composites.client).some((n) => n.length > 0);
      }),
    );
}
