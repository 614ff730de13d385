// The admin REST API under /admin/realms, as Keycloak 26 answers it (a subset): a bearer token of realm
// master's admin user; users, clients, roles, groups and their role mappings, realms. A change edits the
// realm's Keycloak representation and is swapped in as a fixtures replacement is (edit.ts).
import express, { type NextFunction, type Request, type Response } from 'express';
import { verifyToken } from '../tokens/verify.js';
import { AdminError, cannotParse, forbidden, notFound, unauthorized } from './errors.js';
import type { AdminContext, AdminRealms } from './http.js';
import { ADMIN_ROLE, MASTER } from './master.js';
import { realmRoutes } from './realm-routes.js';
import { userRolesOf } from './resources.js';
import { userRoutes } from './user-routes.js';
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

/** Whether the bearer token of the request is one of master's admins (realm role `admin`, effective). */
async function authorize(realms: AdminRealms, req: Request): Promise<void> {
  const header = req.headers.authorization ?? '';
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  const master = realms.get(MASTER);
  if (match?.[1] === undefined || master === undefined) throw unauthorized();
  await master.catchUp();
  const verdict = await verifyToken(master, match[1], 'access');
  if (!verdict.ok) throw unauthorized();
  const sub = verdict.token.claims.sub;
  const kc = master.realm.keycloak;
  // A user, or a client's service account (client_credentials): its user has the token's subject as id.
  const user = kc?.representation.users?.find((u) => u.id === sub);
  if (kc === undefined || user === undefined || user.enabled === false) throw unauthorized();
  // The role as Keycloak resolves it: mapped directly, through a group (or a parent group), or a composite.
  if (!userRolesOf(kc, user).realm.includes(ADMIN_ROLE)) throw forbidden();
}

export function adminRouter(realms: AdminRealms): express.Router {
  const router = express.Router({ caseSensitive: true, strict: false });
  router.use((req, _res, next) => {
    authorize(realms, req).then(() => next(), next);
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
  roleHolderRoutes(router, ctx);
  sessionRoutes(router, ctx);
  keyRoutes(router, ctx);
  router.use((req: Request) => {
    throw notFound('HTTP 404 Not Found', `No admin endpoint ${req.method} ${req.baseUrl}${req.path}`);
  });
  router.use((err: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (err instanceof AdminError) {
      res.status(err.status).json(err.body);
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
