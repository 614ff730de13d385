// The realm's sessions through the admin API, as Keycloak's resources list and end them: a user's
// (/users/{id}/sessions, /users/{id}/logout), a client's (/clients/{id}/user-sessions, /client-session-stats),
// one (DELETE /sessions/{id}) and all (/logout-all). Ending one tells its clients (back-channel logout).
import type { Router } from 'express';
import type { KeycloakRealmRepresentation } from '../fixtures/keycloak/schema.js';
import type { Provider } from '../realm/provider.js';
import type { Session } from '../store/state-store.js';
import { notFound } from './errors.js';
import { findClient, findUser } from './resources.js';
import { handle, keycloakOf, page, type AdminContext } from './http.js';

/** A session as Keycloak's UserSessionRepresentation shows it (its clients by id). */
function sessionOut(rep: KeycloakRealmRepresentation, s: Session): Record<string, unknown> {
  const user = (rep.users ?? []).find((u) => u.id === s.sub);
  return {
    id: s.id,
    username: user?.username ?? s.username,
    userId: s.sub,
    ipAddress: '127.0.0.1',
    start: s.authTime * 1000,
    lastAccess: s.authTime * 1000,
    rememberMe: false,
    clients: Object.fromEntries(
      s.clients.map((c) => [rep.clients?.find((x) => x.clientId === c)?.id ?? c, c]),
    ),
    transientUser: false,
  };
}

/** The users' sessions (a client's service-account sessions are not listed, as Keycloak 26 keeps none). */
async function userSessions(p: Provider): Promise<Session[]> {
  return (await p.store.sessions()).filter((s) => s.username !== undefined);
}

export function sessionRoutes(router: Router, ctx: AdminContext): void {
  router.get(
    '/:realm/users/:id/sessions',
    handle(async (req, res) => {
      const p = await ctx.provider(req);
      const rep = keycloakOf(p);
      const user = findUser(rep, String(req.params['id']));
      const sessions = (await p.store.sessions()).filter((s) => s.sub === user.id);
      res.json(sessions.map((s) => sessionOut(rep, s)));
    }),
  );
  router.post(
    '/:realm/users/:id/logout',
    handle(async (req, res) => {
      const p = await ctx.provider(req);
      const user = findUser(keycloakOf(p), String(req.params['id']));
      for (const s of await p.store.sessions())
        if (s.sub === user.id) await p.store.endSession(s.id, 'logout');
      res.status(204).end();
    }),
  );
  router.get(
    '/:realm/clients/:id/user-sessions',
    handle(async (req, res) => {
      const p = await ctx.provider(req);
      const rep = keycloakOf(p);
      const { clientId } = findClient(rep, String(req.params['id']));
      const sessions = (await userSessions(p)).filter((s) => s.clients.includes(clientId));
      res.json(page(req, sessions).map((s) => sessionOut(rep, s)));
    }),
  );
  router.get(
    '/:realm/clients/:id/session-count',
    handle(async (req, res) => {
      const p = await ctx.provider(req);
      const { clientId } = findClient(keycloakOf(p), String(req.params['id']));
      res.json({ count: (await userSessions(p)).filter((s) => s.clients.includes(clientId)).length });
    }),
  );
  router.get(
    '/:realm/client-session-stats',
    handle(async (req, res) => {
      const p = await ctx.provider(req);
      const rep = keycloakOf(p);
      const active = new Map<string, number>();
      for (const s of await userSessions(p))
        for (const c of s.clients) active.set(c, (active.get(c) ?? 0) + 1);
      res.json(
        (rep.clients ?? [])
          .filter((c) => active.has(c.clientId))
          .map((c) => ({
            id: c.id,
            clientId: c.clientId,
            active: String(active.get(c.clientId)),
            offline: '0',
          })),
      );
    }),
  );
  router.delete(
    '/:realm/sessions/:session',
    handle(async (req, res) => {
      const p = await ctx.provider(req);
      keycloakOf(p);
      if (!(await p.store.endSession(String(req.params['session']), 'logout')))
        throw notFound('Sesssion not found');
      res.status(204).end();
    }),
  );
  router.post(
    '/:realm/logout-all',
    handle(async (req, res) => {
      const p = await ctx.provider(req);
      keycloakOf(p);
      for (const s of await p.store.sessions()) await p.store.endSession(s.id, 'logout');
      res.json({});
    }),
  );
}
