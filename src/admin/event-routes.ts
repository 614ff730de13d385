// /admin/realms/{realm}/events, /events/config and /admin-events: the realm's saved events as Keycloak 26
// lists them (filters, newest first, `first`/`max` paging with 100 by default), clears them, and the
// realm's event settings. What is saved is realm/events.ts's; admin events are recorded in admin-events.ts.
import type { Request, Router } from 'express';
import { z } from 'zod';
import { DEFAULT_EVENT_TYPES, EVENT_TYPES } from '../realm/events.js';
import type { Provider } from '../realm/provider.js';
import type { AdminEvent, UserEvent } from '../store/events.js';
import { AdminError } from './errors.js';
import { editing, handle, keycloakOf, page, queryParam, type AdminContext } from './http.js';
import { parseBody } from './input.js';

/** Keycloak's operation types and resource types of admin events. */
const OPERATION_TYPES = new Set(['CREATE', 'UPDATE', 'DELETE', 'ACTION']);
const RESOURCE_TYPES = new Set(
  `REALM REALM_ROLE REALM_ROLE_MAPPING REALM_SCOPE_MAPPING AUTH_FLOW AUTH_EXECUTION_FLOW AUTH_EXECUTION
  AUTHENTICATOR_CONFIG REQUIRED_ACTION IDENTITY_PROVIDER IDENTITY_PROVIDER_MAPPER PROTOCOL_MAPPER USER
  USER_LOGIN_FAILURE USER_SESSION USER_FEDERATION_PROVIDER USER_FEDERATION_MAPPER GROUP GROUP_MEMBERSHIP
  CLIENT CLIENT_INITIAL_ACCESS_MODEL CLIENT_ROLE CLIENT_ROLE_MAPPING CLIENT_SCOPE CLIENT_SCOPE_MAPPING
  CLIENT_SCOPE_CLIENT_MAPPING CLUSTER_NODE COMPONENT AUTHORIZATION_RESOURCE_SERVER AUTHORIZATION_RESOURCE
  AUTHORIZATION_SCOPE AUTHORIZATION_POLICY CUSTOM ORGANIZATION ORGANIZATION_MEMBERSHIP USER_PROFILE`
    .split(/\s+/)
    .filter((t) => t !== ''),
);

/** The event listeners a realm may name (Keycloak's built-in ones). */
const LISTENERS = new Set(['jboss-logging', 'email']);

/** Keycloak's 400 for a bad query value: `{"error": …}`. */
const badQuery = (message: string): AdminError => new AdminError(400, { error: message });

/** Every value of a repeatable query parameter. */
function queryList(req: Request, name: string): string[] {
  const v = req.query[name];
  return (Array.isArray(v) ? v : v === undefined ? [] : [v]).filter(
    (s): s is string => typeof s === 'string',
  );
}

/** Values of a repeatable parameter that must be known names (Keycloak answers 500 for others; here 400). */
function knownValues(
  req: Request,
  name: string,
  known: { has(v: string): boolean },
): Set<string> | undefined {
  const values = queryList(req, name);
  const unknown = values.find((v) => !known.has(v));
  if (unknown !== undefined) throw badQuery(`Invalid value for '${name}': unknown "${unknown.slice(0, 60)}"`);
  return values.length > 0 ? new Set(values) : undefined;
}

/** `dateFrom`/`dateTo` as Keycloak reads them: `yyyy-MM-dd` (the day's start or end, UTC) or epoch ms. */
function dateParam(req: Request, name: 'dateFrom' | 'dateTo'): number | undefined {
  const v = queryParam(req, name);
  if (v === undefined) return undefined;
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
  const ms = day !== null ? Date.parse(`${v}T00:00:00.000Z`) : /^-?\d{1,18}$/.test(v) ? Number(v) : NaN;
  // Date.parse rolls no invalid day over to the next month: a date that does not round-trip is not one.
  const valid = Number.isFinite(ms) && (day === null || new Date(ms).toISOString().startsWith(v));
  if (!valid)
    throw badQuery(`Invalid value for '${name}', expected format is yyyy-MM-dd or an Epoch timestamp`);
  return day !== null && name === 'dateTo' ? ms + 86_400_000 - 1 : ms;
}

/** `direction`: `desc` (newest first, the default) or `asc`. */
function ascending(req: Request): boolean {
  const v = queryParam(req, 'direction');
  if (v === undefined || v === 'desc') return false;
  if (v === 'asc') return true;
  throw badQuery('Invalid value for sortDirection, expected value is asc or desc');
}

/** The events that pass `keep`, in the asked order, paged as Keycloak pages them (100 by default). */
function listed<T extends { time: number }>(
  req: Request,
  p: Provider,
  newestFirst: T[],
  keep: (e: T) => boolean,
): T[] {
  const from = dateParam(req, 'dateFrom');
  const to = dateParam(req, 'dateTo');
  const asc = ascending(req);
  // A realm's eventsExpiration (seconds): older events are gone, as Keycloak's cleanup removes them.
  const expiration = keycloakOf(p).eventsExpiration ?? 0;
  const oldest = expiration > 0 ? p.clock.nowMs() - expiration * 1000 : -Infinity;
  const kept = newestFirst.filter(
    (e) =>
      e.time >= oldest &&
      (from === undefined || e.time >= from) &&
      (to === undefined || e.time <= to) &&
      keep(e),
  );
  return page(req, asc ? kept.reverse() : kept, 100);
}

/** A resource path filter as Keycloak's: `*` matches anything. */
function pathMatcher(pattern: string | undefined): (path: string) => boolean {
  if (pattern === undefined) return () => true;
  const re = new RegExp(
    `^${pattern
      .split('*')
      .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
  return (path) => re.test(path);
}

const configInput = z.strictObject({
  eventsEnabled: z.boolean().optional(),
  eventsExpiration: z.number().int().nullable().optional(),
  eventsListeners: z.array(z.string()).nullable().optional(),
  enabledEventTypes: z.array(z.string()).nullable().optional(),
  adminEventsEnabled: z.boolean().nullable().optional(),
  adminEventsDetailsEnabled: z.boolean().nullable().optional(),
});

export function eventRoutes(router: Router, ctx: AdminContext): void {
  router.get(
    '/:realm/events',
    handle(async (req, res) => {
      const p = await ctx.provider(req);
      keycloakOf(p);
      const types = knownValues(req, 'type', EVENT_TYPES);
      const [client, user, ip] = ['client', 'user', 'ipAddress'].map((n) => queryParam(req, n));
      const keep = (e: UserEvent): boolean =>
        (types === undefined || types.has(e.type)) &&
        (client === undefined || e.clientId === client) &&
        (user === undefined || e.userId === user) &&
        (ip === undefined || e.ipAddress === ip);
      res.json(listed(req, p, await p.store.events.user.newestFirst(), keep));
    }),
  );
  router.delete(
    '/:realm/events',
    handle(async (req, res) => {
      const p = await ctx.provider(req);
      keycloakOf(p);
      await p.store.events.user.clear();
      res.status(204).end();
    }),
  );
  router.get(
    '/:realm/admin-events',
    handle(async (req, res) => {
      const p = await ctx.provider(req);
      keycloakOf(p);
      const operations = knownValues(req, 'operationTypes', OPERATION_TYPES);
      const resources = knownValues(req, 'resourceTypes', RESOURCE_TYPES);
      const path = pathMatcher(queryParam(req, 'resourcePath'));
      const [realm, client, user, ip] = ['authRealm', 'authClient', 'authUser', 'authIpAddress'].map((n) =>
        queryParam(req, n),
      );
      const keep = (e: AdminEvent): boolean =>
        (operations === undefined || operations.has(e.operationType)) &&
        (resources === undefined || resources.has(e.resourceType)) &&
        path(e.resourcePath) &&
        (realm === undefined || e.authDetails.realmId === realm) &&
        (client === undefined || e.authDetails.clientId === client) &&
        (user === undefined || e.authDetails.userId === user) &&
        (ip === undefined || e.authDetails.ipAddress === ip);
      res.json(listed(req, p, await p.store.events.admin.newestFirst(), keep));
    }),
  );
  router.delete(
    '/:realm/admin-events',
    handle(async (req, res) => {
      const p = await ctx.provider(req);
      keycloakOf(p);
      await p.store.events.admin.clear();
      res.status(204).end();
    }),
  );
  router.get(
    '/:realm/events/config',
    handle(async (req, res) => {
      const rep = keycloakOf(await ctx.provider(req));
      const enabled = rep.enabledEventTypes ?? [];
      res.json({
        eventsEnabled: rep.eventsEnabled ?? false,
        ...(rep.eventsExpiration !== undefined && rep.eventsExpiration !== 0
          ? { eventsExpiration: rep.eventsExpiration }
          : {}),
        eventsListeners: rep.eventsListeners ?? ['jboss-logging'],
        enabledEventTypes: enabled.length > 0 ? enabled : DEFAULT_EVENT_TYPES,
        adminEventsEnabled: rep.adminEventsEnabled ?? false,
        adminEventsDetailsEnabled: rep.adminEventsDetailsEnabled ?? false,
      });
    }),
  );
  router.put(
    '/:realm/events/config',
    editing(ctx, (req) => {
      const body = parseBody(configInput, req.body, 'events config');
      const unknown = body.eventsListeners?.find((l) => !LISTENERS.has(l));
      if (unknown !== undefined) throw badQuery('Unknown event listener');
      // As Keycloak: eventsEnabled and eventsExpiration are set whether sent or not; the others when sent.
      return (rep) => {
        rep.eventsEnabled = body.eventsEnabled ?? false;
        if (body.eventsExpiration != null && body.eventsExpiration !== 0)
          rep.eventsExpiration = body.eventsExpiration;
        else delete rep.eventsExpiration;
        if (body.eventsListeners != null) rep.eventsListeners = body.eventsListeners;
        if (body.enabledEventTypes != null) rep.enabledEventTypes = body.enabledEventTypes;
        if (body.adminEventsEnabled != null) rep.adminEventsEnabled = body.adminEventsEnabled;
        if (body.adminEventsDetailsEnabled != null)
          rep.adminEventsDetailsEnabled = body.adminEventsDetailsEnabled;
      };
    }),
  );
}
