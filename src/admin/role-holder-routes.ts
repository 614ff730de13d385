// Who has a role mapped to them directly (not through a group or a composite), as Keycloak's role resources
// list them: /roles/{role}/users and /groups, /clients/{id}/roles/{role}/users and /groups (paged by first and
// max; users 100 at most unless max says).
import type { Request, Router } from 'express';
import type { KeycloakRealm } from '../fixtures/keycloak/model.js';
import type { KeycloakRealmRepresentation } from '../fixtures/keycloak/schema.js';
import { notFound } from './errors.js';
import { allGroups, clientRole, mappedRealmNames } from './resources.js';
import { groupOut, userOut } from './representations.js';
import { handle, keycloakRealmOf, page, queryParam, type AdminContext } from './http.js';

/** Whose roles a request names: a realm role's holders, or a client role's. */
interface Holders {
  user: (u: NonNullable<KeycloakRealmRepresentation['users']>[number]) => boolean;
  group: (g: ReturnType<typeof allGroups>[number]['group']) => boolean;
}

function realmRoleHolders(kc: KeycloakRealm, req: Request): Holders {
  const name = String(req.params['role']);
  if (!kc.realmRoles.has(name)) throw notFound('Could not find role');
  return {
    user: (u) => mappedRealmNames(kc, u).has(name),
    group: (g) => (g.realmRoles ?? []).includes(name),
  };
}

function clientRoleHolders(kc: KeycloakRealm, req: Request): Holders {
  const { client, role } = clientRole(
    kc.representation,
    String(req.params['id']),
    String(req.params['role']),
  );
  const has = (roles: Record<string, string[]> | undefined) =>
    (roles?.[client.clientId] ?? []).includes(role.name);
  return { user: (u) => has(u.clientRoles), group: (g) => has(g.clientRoles) };
}

export function roleHolderRoutes(router: Router, ctx: AdminContext): void {
  for (const [base, holders] of [
    ['/:realm/roles/:role', realmRoleHolders],
    ['/:realm/clients/:id/roles/:role', clientRoleHolders],
  ] as const) {
    router.get(
      `${base}/users`,
      handle(async (req, res) => {
        const kc = keycloakRealmOf(await ctx.provider(req));
        const { user } = holders(kc, req);
        const brief = queryParam(req, 'briefRepresentation') === 'true';
        res.json(page(req, (kc.representation.users ?? []).filter(user)).map((u) => userOut(u, brief)));
      }),
    );
    router.get(
      `${base}/groups`,
      handle(async (req, res) => {
        const kc = keycloakRealmOf(await ctx.provider(req));
        const { group } = holders(kc, req);
        const found = allGroups(kc.representation).filter((f) => group(f.group));
        res.json(page(req, found, -1).map((f) => groupOut(f.group, f.path, f.parent?.id, false)));
      }),
    );
  }
}
