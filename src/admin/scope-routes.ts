// /admin/realms/{realm}/clients/{id}/scope-mappings: the roles a client whose scope is not full
// (fullScopeAllowed false) lets into its tokens, as Keycloak's ScopeMappedResource reads and changes them.
import type { Router } from 'express';
import { inScope } from '../fixtures/keycloak/roles.js';
import type { RoleSet } from '../fixtures/keycloak/model.js';
import {
  addNames,
  clientRolesOf,
  findClient,
  realmRoleList,
  removeNames,
  roleNamesOf,
  scopeOf,
  setScope,
} from './resources.js';
import { clientRolesOut, mappingsOut, realmRolesOut } from './representations.js';
import { editing, handle, keycloakOf, type AdminContext } from './http.js';

const S = '/:realm/clients/:id/scope-mappings';

/**
 * The roles of `all` a client's tokens may carry, as Keycloak's `composite` views list them (its
 * `hasScope`): all with `fullScopeAllowed`; else those its scope mappings and its own client roles reach,
 * composites expanded (not its client scopes' mappings).
 */
function effectiveScope(
  p: Awaited<ReturnType<AdminContext['provider']>>,
  clientId: string,
  all: RoleSet,
): RoleSet {
  const kc = p.realm.keycloak;
  return kc === undefined ? all : inScope(kc, clientId, [], all);
}

export function scopeRoutes(router: Router, ctx: AdminContext): void {
  // Everything in scope: realm roles, and client roles by the client that has them.
  router.get(
    S,
    handle(async (req, res) => {
      const p = await ctx.provider(req);
      const rep = keycloakOf(p);
      const scope = scopeOf(rep, findClient(rep, String(req.params['id'])).clientId);
      const realm = realmRoleList(rep, p.realm.keycloak).filter((r) => scope.realmRoles.includes(r.name));
      res.json(mappingsOut(rep, realm, (clientId) => scope.clientRoles[clientId] ?? []));
    }),
  );
  router.get(
    `${S}/realm/composite`,
    handle(async (req, res) => {
      const p = await ctx.provider(req);
      const rep = keycloakOf(p);
      const roles = realmRoleList(rep, p.realm.keycloak);
      const { clientId } = findClient(rep, String(req.params['id']));
      const kept = new Set(
        effectiveScope(p, clientId, { realm: roles.map((r) => r.name), client: new Map() }).realm,
      );
      res.json(realmRolesOut(rep, roles, (name) => kept.has(name)));
    }),
  );
  router.get(
    [`${S}/realm`, `${S}/realm/available`],
    handle(async (req, res) => {
      const p = await ctx.provider(req);
      const rep = keycloakOf(p);
      const { realmRoles } = scopeOf(rep, findClient(rep, String(req.params['id'])).clientId);
      const available = req.path.endsWith('/available');
      res.json(
        realmRolesOut(
          rep,
          realmRoleList(rep, p.realm.keycloak),
          (name) => realmRoles.includes(name) !== available,
        ),
      );
    }),
  );
  for (const method of ['post', 'delete'] as const)
    router[method](
      `${S}/realm`,
      editing(ctx, (req, p) => (rep) => {
        const { clientId } = findClient(rep, String(req.params['id']));
        const names = roleNamesOf(req.body, realmRoleList(rep, p.realm.keycloak));
        const scope = scopeOf(rep, clientId);
        scope.realmRoles =
          method === 'post' ? addNames(scope.realmRoles, names) : removeNames(scope.realmRoles, names);
        setScope(rep, clientId, scope);
      }),
    );

  // One client's roles in scope (that client by its id).
  router.get(
    `${S}/clients/:client/composite`,
    handle(async (req, res) => {
      const p = await ctx.provider(req);
      const rep = keycloakOf(p);
      const { clientId } = findClient(rep, String(req.params['id']));
      const container = findClient(rep, String(req.params['client']));
      const roles = rep.roles?.client?.[container.clientId] ?? [];
      const all: RoleSet = { realm: [], client: new Map([[container.clientId, roles.map((r) => r.name)]]) };
      const kept = new Set(effectiveScope(p, clientId, all).client.get(container.clientId) ?? []);
      res.json(clientRolesOut(rep, container, (name) => kept.has(name)));
    }),
  );
  router.get(
    [`${S}/clients/:client`, `${S}/clients/:client/available`],
    handle(async (req, res) => {
      const rep = keycloakOf(await ctx.provider(req));
      const { clientId } = findClient(rep, String(req.params['id']));
      const container = findClient(rep, String(req.params['client']));
      const names = scopeOf(rep, clientId).clientRoles[container.clientId] ?? [];
      const available = req.path.endsWith('/available');
      res.json(clientRolesOut(rep, container, (name) => names.includes(name) !== available));
    }),
  );
  for (const method of ['post', 'delete'] as const)
    router[method](
      `${S}/clients/:client`,
      editing(ctx, (req) => (rep) => {
        const { clientId } = findClient(rep, String(req.params['id']));
        const container = findClient(rep, String(req.params['client']));
        const names = roleNamesOf(req.body, clientRolesOf(rep, container.clientId));
        const scope = scopeOf(rep, clientId);
        const held = scope.clientRoles[container.clientId];
        scope.clientRoles[container.clientId] =
          method === 'post' ? addNames(held, names) : removeNames(held, names);
        setScope(rep, clientId, scope);
      }),
    );
}
