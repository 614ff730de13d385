// /admin/realms: the realms served (list, read, settings, create, delete) and a realm's partial import.
import type { Router } from 'express';
import {
  keycloakRealmSchema,
  realmIdOf,
  type KeycloakRealmRepresentation,
} from '../fixtures/keycloak/schema.js';
import { giveIds } from '../fixtures/keycloak/ids.js';
import { addBuiltInClients } from '../fixtures/keycloak/builtin-clients.js';
import { FixturesError, formatProblem } from '../fixtures/errors.js';
import { changeRealm } from './edit.js';
import { AdminError, badRequest, conflict } from './errors.js';
import { parseBody } from './input.js';
import { present } from './representations.js';
import { clientsOf, realmRolesOf, usersOf } from './resources.js';
import { created, editing, handle, keycloakOf, type AdminContext } from './http.js';
import type { Provider } from '../realm/provider.js';
import { z } from 'zod';
import { uniqueId } from '../ids.js';

/** The parts of a realm representation its own endpoints answer for: not in the realm's settings. */
const PARTS = new Set([
  'users',
  'clients',
  'roles',
  'groups',
  'clientScopes',
  'identityProviders',
  'components',
]);

/**
 * The settings Keycloak 26 gives a realm that does not set them, as its realm representation shows them
 * (what a suite may read back: lifespans, login options, flows).
 */
const REALM_DEFAULTS = {
  notBefore: 0,
  defaultSignatureAlgorithm: 'RS256',
  revokeRefreshToken: false,
  refreshTokenMaxReuse: 0,
  accessTokenLifespanForImplicitFlow: 900,
  ssoSessionIdleTimeout: 1800,
  ssoSessionMaxLifespan: 36000,
  ssoSessionIdleTimeoutRememberMe: 0,
  ssoSessionMaxLifespanRememberMe: 0,
  offlineSessionIdleTimeout: 2592000,
  offlineSessionMaxLifespanEnabled: false,
  offlineSessionMaxLifespan: 5184000,
  clientSessionIdleTimeout: 0,
  clientSessionMaxLifespan: 0,
  accessCodeLifespan: 60,
  accessCodeLifespanUserAction: 300,
  accessCodeLifespanLogin: 1800,
  actionTokenGeneratedByAdminLifespan: 43200,
  actionTokenGeneratedByUserLifespan: 300,
  oauth2DeviceCodeLifespan: 600,
  oauth2DevicePollingInterval: 5,
  sslRequired: 'external',
  registrationAllowed: false,
  registrationEmailAsUsername: false,
  rememberMe: false,
  verifyEmail: false,
  loginWithEmailAllowed: true,
  duplicateEmailsAllowed: false,
  resetPasswordAllowed: false,
  editUsernameAllowed: false,
  bruteForceProtected: false,
  requiredCredentials: ['password'],
  browserFlow: 'browser',
  registrationFlow: 'registration',
  directGrantFlow: 'direct grant',
  resetCredentialsFlow: 'reset credentials',
  clientAuthenticationFlow: 'clients',
  dockerAuthenticationFlow: 'docker auth',
  firstBrokerLoginFlow: 'first broker login',
  eventsEnabled: false,
  adminEventsEnabled: false,
  internationalizationEnabled: false,
  attributes: {},
};

function realmOut(p: Provider): Record<string, unknown> {
  const rep = p.realm.keycloak?.representation;
  if (rep === undefined) return { id: p.realm.name, realm: p.realm.name, enabled: true };
  const settings: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(rep)) if (!PARTS.has(k)) settings[k] = v;
  const id = realmIdOf(rep);
  const defaultRole = (rep.roles?.realm ?? []).find((r) => r.name === p.realm.keycloak?.defaultRole);
  return present({
    ...REALM_DEFAULTS,
    ...settings,
    id,
    realm: rep.realm,
    enabled: rep.enabled ?? true,
    accessTokenLifespan: p.realm.tokens.accessTokenLifespan,
    // The default role as Keycloak shows it here: the role itself, without its composites.
    defaultRole:
      defaultRole === undefined
        ? undefined
        : {
            id: defaultRole.id,
            name: defaultRole.name,
            description: defaultRole.description,
            composite: true,
            clientRole: false,
            containerId: id,
          },
    defaultRoles: undefined,
  });
}

const settingsInput = keycloakRealmSchema.partial();

const partialImportInput = z.looseObject({
  ifResourceExists: z.enum(['FAIL', 'SKIP', 'OVERWRITE']).optional(),
  users: keycloakRealmSchema.shape.users,
  clients: keycloakRealmSchema.shape.clients,
  groups: keycloakRealmSchema.shape.groups,
  roles: keycloakRealmSchema.shape.roles,
});

export function realmRoutes(router: Router, ctx: AdminContext): void {
  router.get('/', (_req, res) => {
    // A realm's own admin (not master's) sees that realm only.
    const only = res.locals['adminRealm'] as string | undefined;
    res.json(
      ctx.realms
        .list()
        .filter((p) => only === undefined || p.realm.name === only)
        .map(realmOut),
    );
  });
  router.post(
    '/',
    handle(async (req, res) => {
      const rep = parseBody(keycloakRealmSchema, req.body, 'realm representation');
      if (ctx.realms.create === undefined) throw badRequest('Realms cannot be created here');
      if (ctx.realms.get(rep.realm) !== undefined) throw conflict(`Conflict detected. See logs for details`);
      addBuiltInClients(rep);
      giveIds(rep);
      // A confidential client sent without a secret gets a new one, as in Keycloak: a realm deleted and made
      // again does not bring back the old secrets (a file's realm derives them from the names instead).
      for (const c of rep.clients ?? [])
        if (
          c.publicClient !== true &&
          c.bearerOnly !== true &&
          (c.secret === undefined || c.secret === '') &&
          (c.clientAuthenticatorType === undefined || c.clientAuthenticatorType === 'client-secret')
        )
          c.secret = uniqueId().replaceAll('-', '');
      rep.users ??= [];
      rep.clients ??= [];
      try {
        if (!(await ctx.realms.create(rep))) throw conflict(`Conflict detected. See logs for details`);
      } catch (err) {
        if (!(err instanceof FixturesError)) throw err;
        throw badRequest(err.problems.map((problem) => formatProblem(err.source, problem)).join('; '));
      }
      created(req, res, rep.realm);
    }),
  );
  router.get(
    '/:realm',
    handle(async (req, res) => {
      res.json(realmOut(await ctx.provider(req)));
    }),
  );
  router.put(
    '/:realm',
    editing(ctx, (req, p) => {
      keycloakOf(p);
      const body = parseBody(settingsInput, req.body, 'realm representation');
      if (body.realm !== undefined && body.realm !== p.realm.name)
        throw badRequest('Renaming a realm is not supported here: create a realm of the new name instead');
      return (rep) => {
        for (const [k, v] of Object.entries(body)) if (!PARTS.has(k) && k !== 'id') rep[k] = v;
      };
    }),
  );
  router.delete(
    '/:realm',
    handle(async (req, res) => {
      const p = await ctx.provider(req);
      if (ctx.realms.remove === undefined || p.realm.name === 'master')
        throw badRequest(`Realm "${p.realm.name}" cannot be deleted here`);
      await ctx.realms.remove(p.realm.name);
      res.status(204).end();
    }),
  );
  router.post(
    '/:realm/partialImport',
    handle(async (req, res) => {
      const p = await ctx.provider(req);
      keycloakOf(p);
      const body = parseBody(partialImportInput, req.body, 'partial import');
      const policy = body.ifResourceExists ?? 'FAIL';
      const results: Record<string, string>[] = [];
      let added = 0;
      let skipped = 0;
      let overwritten = 0;
      await changeRealm(p, (rep) => {
        // Made again when another replica changed the realm first: counted afresh.
        results.length = 0;
        added = skipped = overwritten = 0;
        const incoming: KeycloakRealmRepresentation = {
          realm: rep.realm,
          ...(body.users !== undefined ? { users: body.users } : {}),
          ...(body.clients !== undefined ? { clients: body.clients } : {}),
          ...(body.groups !== undefined ? { groups: body.groups } : {}),
          ...(body.roles !== undefined ? { roles: body.roles } : {}),
        };
        giveIds(incoming);
        /** Puts `item` in `list` by `key`, as the policy says for one that is there. */
        const merge = <T extends { id?: string | undefined }>(
          list: T[],
          items: T[],
          key: (t: T) => string,
          type: string,
        ): void => {
          const index = new Map(list.map((t, i) => [key(t), i]));
          for (const item of items) {
            const at = index.get(key(item));
            let action = 'ADDED';
            if (at === undefined) {
              index.set(key(item), list.length);
              list.push(item);
              added++;
            } else if (policy === 'FAIL') {
              throw new AdminError(409, { errorMessage: `${type} '${key(item)}' already exists` });
            } else if (policy === 'SKIP') {
              action = 'SKIPPED';
              skipped++;
            } else {
              list[at] = { ...item, id: list[at]?.id ?? item.id };
              action = 'OVERWRITTEN';
              overwritten++;
            }
            const id = at !== undefined ? (list[at]?.id ?? '') : (item.id ?? '');
            results.push({ action, resourceType: type, resourceName: key(item), id });
          }
        };
        merge(realmRolesOf(rep), incoming.roles?.realm ?? [], (r) => r.name, 'REALM_ROLE');
        for (const [client, roles] of Object.entries(incoming.roles?.client ?? {})) {
          rep.roles ??= {};
          rep.roles.client ??= {};
          merge((rep.roles.client[client] ??= []), roles, (r) => r.name, 'CLIENT_ROLE');
        }
        merge(clientsOf(rep), incoming.clients ?? [], (c) => c.clientId, 'CLIENT');
        rep.groups ??= [];
        merge(rep.groups, incoming.groups ?? [], (g) => g.name, 'GROUP');
        merge(usersOf(rep), incoming.users ?? [], (u) => u.username, 'USER');
      });
      res.json({ overwritten, added, skipped, results });
    }),
  );
}
