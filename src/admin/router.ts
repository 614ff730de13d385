// The admin REST API under /admin/realms, as Keycloak 26 answers it (a subset): a bearer token of realm
// master's admin user; users, clients, roles, groups and their role mappings, realms. A change edits the
// realm's Keycloak representation and is swapped in as a fixtures replacement is (edit.ts).
import express, { type NextFunction, type Request, type Response } from 'express';
import { decodeJwt } from 'jose';
import { REALM_ADMIN } from '../fixtures/keycloak/builtin-clients.js';
import { verifyToken } from '../tokens/verify.js';
import { methodNotAllowed } from '../http/method-not-allowed.js';
import {
  AdminError,
  cannotParse,
  forbidden,
  methodNotAllowedHere,
  notFound,
  unauthorized,
} from './errors.js';
import type { AdminContext, AdminRealms } from './http.js';
import { ADMIN_ROLE, MASTER } from './master.js';
import { realmRoutes } from './realm-routes.js';
import { userRolesOf } from './resources.js';
import { userRoutes } from './user-routes.js';
import { recordAdminEvent, type AdminCaller } from './admin-events.js';
import { eventRoutes } from './event-routes.js';
import { realmIdOf } from '../fixtures/keycloak/schema.js';
import { clientRoutes } from './client-routes.js';
import { clientScopeRoutes } from './client-scope-routes.js';
import { mapperRoutes } from './mapper-routes.js';
import { roleHolderRoutes } from './role-holder-routes.js';
import { keyRoutes } from './key-routes.js';
import { profileRoutes } from './profile-routes.js';
import { scopeRoutes } from './scope-routes.js';
import { sessionRoutes } from './session-routes.js';
import { roleRoutes } from './role-routes.js';
import { groupRoutes } from './group-routes.js';
import { roleMappingRoutes } from './role-mapping-routes.js';

/** What an admin endpoint manages, as Keycloak's permissions divide it: users (and groups), clients, events, the realm. */
type Area = 'users' | 'clients' | 'realm' | 'events';

const AREAS: Record<string, Area> = {
  users: 'users',
  groups: 'users',
  sessions: 'users',
  'logout-all': 'users',
  'attack-detection': 'users',
  clients: 'clients',
  'client-scopes': 'clients',
  'client-session-stats': 'clients',
  events: 'events',
  'admin-events': 'events',
};

/**
 * The realm-management roles that let a user of the realm itself make a request, as Keycloak's admin
 * permissions grant them: `realm-admin` everything; `manage-{area}` its area; `view-{area}` reading it.
 */
function rolesFor(method: string, resource: string | undefined): string[] {
  const area = AREAS[resource ?? ''] ?? 'realm';
  const reading = method === 'GET' || method === 'HEAD';
  return [REALM_ADMIN, `manage-${area}`, ...(reading ? [`view-${area}`] : [])];
}

/** The realm a token says it is from (its `iss`, unverified: the realm named is the one that verifies it). */
function issuingRealm(token: string): string | undefined {
  try {
    const iss = decodeJwt(token).iss;
    return iss === undefined ? undefined : /\/realms\/([^/]+)$/.exec(iss)?.[1];
  } catch {
    return undefined;
  }
}

/**
 * Who may call the admin API, as in Keycloak: a user (or a client's service account) of realm master with
 * its realm role `admin`, on every realm; or one of the realm the request is about, with the roles of that
 * realm's `realm-management` client the request needs. Returns the realm a token of another realm than master
 * may see (the realm list shows only it). 401 for no token, a bad one or a disabled user; 403 without the role.
 */
async function authorize(
  realms: AdminRealms,
  req: Request,
): Promise<{ only: string | undefined; caller: AdminCaller }> {
  const header = req.headers.authorization ?? '';
  const token = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
  if (token === undefined) throw unauthorized();
  const from = issuingRealm(token);
  const issuer = from === undefined ? undefined : realms.get(from);
  if (issuer === undefined) throw unauthorized();
  await issuer.catchUp();
  const verdict = await verifyToken(issuer, token, 'access');
  if (!verdict.ok) throw unauthorized();
  const sub = verdict.token.claims.sub;
  const kc = issuer.realm.keycloak;
  // A user, or a client's service account (client_credentials): its user has the token's subject as id.
  const user = kc?.representation.users?.find((u) => u.id === sub);
  if (kc === undefined || user === undefined || user.enabled === false) throw unauthorized();
  // Roles as Keycloak resolves them: mapped directly, through a group (or a parent group), or a composite.
  const roles = userRolesOf(kc, user);
  const azp = verdict.token.claims['azp'];
  const caller = {
    realmId: realmIdOf(kc.representation),
    clientId: typeof azp === 'string' ? azp : '',
    userId: user.id ?? '',
  };
  if (from === MASTER && roles.realm.includes(ADMIN_ROLE)) return { only: undefined, caller };
  const [realm, resource] = req.path.split('/').filter((s) => s !== '');
  if (from === MASTER || (realm !== undefined && realm !== from)) throw forbidden();
  const held = roles.client.get('realm-management') ?? [];
  // Any of its admin roles lets a realm's own admin read the realm list (which shows it its realm only) and
  // the realm (Keycloak shows it a brief one without view-realm; this its settings).
  const needed =
    resource === undefined && req.method === 'GET'
      ? held
      : realm === undefined
        ? []
        : rolesFor(req.method, resource);
  if (!needed.some((r) => held.includes(r))) throw forbidden();
  return { only: from, caller };
}

export function adminRouter(realms: AdminRealms): express.Router {
  const router = express.Router({ caseSensitive: true, strict: false });
  router.use((req, res, next) => {
    authorize(realms, req).then(({ only, caller }) => {
      if (only !== undefined) res.locals['adminRealm'] = only;
      recordAdminEvent(realms, req, res, caller);
      next();
    }, next);
  });
  router.use(express.json({ type: () => true, limit: '16mb', strict: false }));
  const ctx: AdminContext = {
    realms,
    provider: async (req) => {
      const name = String(req.params['realm'] ?? '');
      const p = realms.get(name);
      if (p === undefined) throw notFound('Realm does not exist');
      await p.catchUp();
      return p;
    },
  };
  realmRoutes(router, ctx);
  // Before the users' routes: /users/profile is not a user.
  profileRoutes(router, ctx);
  userRoutes(router, ctx);
  clientRoutes(router, ctx);
  mapperRoutes(router, ctx);
  clientScopeRoutes(router, ctx);
  scopeRoutes(router, ctx);
  roleRoutes(router, ctx);
  groupRoutes(router, ctx);
  roleMappingRoutes(router, ctx);
  roleHolderRoutes(router, ctx);
  sessionRoutes(router, ctx);
  keyRoutes(router, ctx);
  eventRoutes(router, ctx);
  router.use(methodNotAllowed(router, methodNotAllowedHere));
  router.use((req: Request) => {
    throw notFound('HTTP 404 Not Found', `No admin endpoint ${req.method} ${req.baseUrl}${req.path}`);
  });
  router.use((err: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (err instanceof AdminError) {
      res.status(err.status).set(err.headers).json(err.body);
      return;
    }
    const parser = err as { type?: string; status?: number };
    if (parser.type === 'entity.parse.failed') {
      const answer = cannotParse('invalid_request');
      res.status(answer.status).json(answer.body);
      return;
    }
    if (parser.type === 'entity.too.large') {
      res.status(413).json({ error: 'invalid_request', error_description: 'The body is too large' });
      return;
    }
    next(err);
  });
  return router;
}
