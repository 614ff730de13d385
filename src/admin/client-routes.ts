// /admin/realms/{realm}/clients: list, create, read, update, delete, client secret, service-account user, and
// the client's roles.
import type { Router } from 'express';
import type { ClientRepresentation, RoleRepresentation } from '../fixtures/keycloak/schema.js';
import { serviceAccountId } from '../fixtures/keycloak/ids.js';
import { changeRealm } from './edit.js';
import { badRequest, conflict } from './errors.js';
import { clientInput, parseBody, roleInput } from './input.js';
import {
  clientRole,
  clientRolesOf,
  clientsOf,
  findClient,
  forgetRole,
  setScope,
  updateRole,
  usersOf,
} from './resources.js';
import { clientOut, roleOut, secretOf, userOut } from './representations.js';
import {
  created,
  editing,
  handle,
  keycloakOf,
  page,
  queryParam,
  rolesPage,
  type AdminContext,
} from './http.js';

const C = '/:realm/clients';

/** The service-account user a client with service accounts has (added when missing, removed when off). */
function syncServiceAccount(rep: Parameters<typeof usersOf>[0], client: ClientRepresentation): void {
  const users = usersOf(rep);
  const index = users.findIndex((u) => u.serviceAccountClientId === client.clientId);
  const wanted = client.serviceAccountsEnabled === true && client.publicClient !== true;
  if (wanted && index < 0)
    users.push({
      id: serviceAccountId(rep.realm, client.clientId),
      username: `service-account-${client.clientId.toLowerCase()}`,
      enabled: true,
      serviceAccountClientId: client.clientId,
    });
  if (!wanted && index >= 0) users.splice(index, 1);
}

export function clientRoutes(router: Router, ctx: AdminContext): void {
  router.get(
    C,
    handle(async (req, res) => {
      const p = await ctx.provider(req);
      const rep = keycloakOf(p);
      const clientId = queryParam(req, 'clientId');
      const search = queryParam(req, 'search') === 'true';
      // In clientId order, as Keycloak's queries of a realm's clients sort them (first and max page that).
      const list = (rep.clients ?? [])
        .filter(
          (c) =>
            clientId === undefined ||
            (search ? c.clientId.toLowerCase().includes(clientId.toLowerCase()) : c.clientId === clientId),
        )
        .sort((a, b) => (a.clientId < b.clientId ? -1 : a.clientId > b.clientId ? 1 : 0));
      res.json(page(req, list, -1).map((c) => clientOut(rep, c)));
    }),
  );
  router.post(
    C,
    handle(async (req, res) => {
      const p = await ctx.provider(req);
      const body = parseBody(clientInput, req.body, 'client representation');
      if (body.clientId === undefined || body.clientId === '') throw badRequest('Client id is missing');
      const clientId = body.clientId;
      const id = body.id ?? p.ids.uuid('admin-client');
      const confidential = body.publicClient !== true && body.bearerOnly !== true;
      const secret = confidential ? (body.secret ?? p.ids.opaque('admin-client-secret', 24)) : undefined;
      await changeRealm(p, (rep) => {
        const clients = clientsOf(rep);
        if (clients.some((c) => c.clientId === clientId)) throw conflict(`Client ${clientId} already exists`);
        if (clients.some((c) => c.id === id)) throw conflict(`Client ${id} already exists`);
        const client: ClientRepresentation = {
          ...body,
          id,
          clientId,
          enabled: body.enabled ?? true,
          publicClient: body.publicClient ?? false,
          ...(secret !== undefined ? { secret } : {}),
        };
        clients.push(client);
        syncServiceAccount(rep, client);
      });
      created(req, res, id);
    }),
  );
  router.get(
    `${C}/:id`,
    handle(async (req, res) => {
      const rep = keycloakOf(await ctx.provider(req));
      res.json(clientOut(rep, findClient(rep, String(req.params['id']))));
    }),
  );
  router.put(
    `${C}/:id`,
    editing(ctx, (req, p) => {
      const body = parseBody(clientInput, req.body, 'client representation');
      const secret = p.ids.opaque('admin-client-secret', 24);
      return (rep) => {
        const client = findClient(rep, String(req.params['id']));
        if (body.clientId !== undefined && body.clientId !== client.clientId)
          throw badRequest(
            'Changing a clientId is not supported here: delete the client and create it again',
          );
        const { id: _id, ...fields } = body;
        Object.assign(client, fields);
        if (client.publicClient !== true && client.bearerOnly !== true && client.secret === undefined)
          client.secret = secret;
        syncServiceAccount(rep, client);
      };
    }),
  );
  router.delete(
    `${C}/:id`,
    editing(ctx, (req) => (rep) => {
      const client = findClient(rep, String(req.params['id']));
      rep.clients = clientsOf(rep).filter((c) => c !== client);
      rep.users = usersOf(rep).filter((u) => u.serviceAccountClientId !== client.clientId);
      for (const role of rep.roles?.client?.[client.clientId] ?? [])
        forgetRole(rep, role.name, client.clientId);
      if (rep.roles?.client !== undefined) delete rep.roles.client[client.clientId];
      setScope(rep, client.clientId, { realmRoles: [], clientRoles: {} });
      if (rep.clientScopeMappings !== undefined) delete rep.clientScopeMappings[client.clientId];
      for (const u of rep.users)
        if (u.clientRoles?.[client.clientId] !== undefined) delete u.clientRoles[client.clientId];
    }),
  );
  router.get(
    `${C}/:id/client-secret`,
    handle(async (req, res) => {
      const rep = keycloakOf(await ctx.provider(req));
      const client = findClient(rep, String(req.params['id']));
      if (client.publicClient === true || client.bearerOnly === true)
        throw badRequest('The client is public: it has no secret');
      res.json({ type: 'secret', value: secretOf(rep.realm, client) });
    }),
  );
  router.post(
    `${C}/:id/client-secret`,
    handle(async (req, res) => {
      const p = await ctx.provider(req);
      const secret = p.ids.opaque('admin-client-secret', 24);
      await changeRealm(p, (rep) => {
        const client = findClient(rep, String(req.params['id']));
        if (client.publicClient === true || client.bearerOnly === true)
          throw badRequest('The client is public: it has no secret');
        client.secret = secret;
      });
      res.json({ type: 'secret', value: secret });
    }),
  );
  router.get(
    `${C}/:id/service-account-user`,
    handle(async (req, res) => {
      const rep = keycloakOf(await ctx.provider(req));
      const client = findClient(rep, String(req.params['id']));
      const user = rep.users?.find((u) => u.serviceAccountClientId === client.clientId);
      if (user === undefined || client.serviceAccountsEnabled !== true)
        throw badRequest('Service account not enabled for the client');
      res.json(userOut(user, false, false));
    }),
  );

  // The client's roles.
  router.get(
    `${C}/:id/roles`,
    handle(async (req, res) => {
      const rep = keycloakOf(await ctx.provider(req));
      const client = findClient(rep, String(req.params['id']));
      const search = queryParam(req, 'search');
      const roles = (rep.roles?.client?.[client.clientId] ?? []).filter(
        (r) => search === undefined || r.name.toLowerCase().includes(search.toLowerCase()),
      );
      res.json(rolesPage(req, roles, search !== undefined).map((r) => roleOut(r, client.id ?? '', true)));
    }),
  );
  router.post(
    `${C}/:id/roles`,
    handle(async (req, res) => {
      const p = await ctx.provider(req);
      const body = parseBody(roleInput, req.body, 'role representation');
      const name = body.name;
      if (name === undefined || name.trim() === '') throw badRequest('Role name is missing');
      const id = p.ids.uuid('admin-role');
      await changeRealm(p, (rep) => {
        const client = findClient(rep, String(req.params['id']));
        const roles = clientRolesOf(rep, client.clientId);
        if (roles.some((r) => r.name === name)) throw conflict(`Role with name ${name} already exists`);
        roles.push({ ...body, id, name });
      });
      created(req, res, name);
    }),
  );
  router.get(
    `${C}/:id/roles/:role`,
    handle(async (req, res) => {
      const rep = keycloakOf(await ctx.provider(req));
      const { client, role } = clientRole(rep, String(req.params['id']), String(req.params['role']));
      res.json(roleOut(role, client.id ?? '', true));
    }),
  );
  router.put(
    `${C}/:id/roles/:role`,
    editing(ctx, (req) => {
      const body = parseBody(roleInput, req.body, 'role representation');
      return (rep) => {
        const { client, role } = clientRole(rep, String(req.params['id']), String(req.params['role']));
        const roles = clientRolesOf(rep, client.clientId);
        updateRole(rep, role, body as Partial<RoleRepresentation>, roles, client.clientId);
      };
    }),
  );
  router.delete(
    `${C}/:id/roles/:role`,
    editing(ctx, (req) => (rep) => {
      const { client, role } = clientRole(rep, String(req.params['id']), String(req.params['role']));
      const roles = clientRolesOf(rep, client.clientId);
      roles.splice(roles.indexOf(role), 1);
      forgetRole(rep, role.name, client.clientId);
    }),
  );
}
