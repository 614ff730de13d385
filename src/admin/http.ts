// What every admin resource's routes share: the realms, the realm of a request, handlers that throw
// AdminErrors, a change answered with 204, Keycloak's 201 with Location, query parameters and paging.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { KeycloakRealm } from '../fixtures/keycloak/model.js';
import type { KeycloakRealmRepresentation } from '../fixtures/keycloak/schema.js';
import type { Provider } from '../realm/provider.js';
import { changeRealm } from './edit.js';
import { badRequest } from './errors.js';

/** The realms the API may reach, found by name (the served ones, and those it made). */
export interface AdminRealms {
  list(): Provider[];
  get(name: string): Provider | undefined;
  /** Serves a new realm made from a representation; false when the name is taken. */
  create?(rep: KeycloakRealmRepresentation): Promise<boolean>;
  /** Stops serving a realm. */
  remove?(name: string): Promise<boolean>;
}

/** What each resource's routes get: the realm of the request's path. */
export interface AdminContext {
  realms: AdminRealms;
  /** The provider of `:realm`, caught up with the other replicas; 404 when none is served. */
  provider(req: Request): Promise<Provider>;
}

/** The realm's Keycloak model (its representation, roles and groups); a realm read from mock-idp's own fixtures has none. */
export function keycloakRealmOf(p: Provider): KeycloakRealm {
  const kc = p.realm.keycloak;
  if (kc === undefined)
    throw badRequest(
      `Realm "${p.realm.name}" is read from mock-idp fixtures, not a Keycloak realm: the admin API changes Keycloak realms only`,
    );
  return kc;
}

/** The realm's Keycloak representation (see {@link keycloakRealmOf}). */
export function keycloakOf(p: Provider): KeycloakRealmRepresentation {
  return keycloakRealmOf(p).representation;
}

/** A handler that may be async and throw an AdminError. */
type Handler = (req: Request, res: Response) => Promise<void> | void;

export const handle =
  (fn: Handler) =>
  (req: Request, res: Response, next: NextFunction): void => {
    Promise.resolve()
      .then(() => fn(req, res))
      .catch(next);
  };

/**
 * A change to the realm answered as Keycloak answers one: 204 No Content. `prepare` runs once, before the
 * change (read and check the body there: bad input is answered before the realm is touched); the edit it
 * returns works on a copy of the realm's representation (see {@link changeRealm}), runs again when another
 * replica changed the realm first, and throws an AdminError to change nothing.
 */
export function editing(
  ctx: AdminContext,
  prepare: (req: Request, p: Provider) => (rep: KeycloakRealmRepresentation) => void,
): RequestHandler {
  return handle(async (req, res) => {
    const p = await ctx.provider(req);
    await changeRealm(p, prepare(req, p));
    res.status(204).end();
  });
}

/** 201 with the new resource's URL (its last segment the new id), as Keycloak answers a creation. */
export function created(req: Request, res: Response, id: string, body?: unknown): void {
  const base = `${req.protocol}://${req.get('host') ?? 'localhost'}${req.baseUrl}${req.path.replace(/\/+$/, '')}`;
  res.status(201).location(`${base}/${encodeURIComponent(id)}`);
  if (body === undefined) res.end();
  else res.json(body);
}

/** A query parameter as a string (the first when repeated). */
export function queryParam(req: Request, name: string): string | undefined {
  const v = req.query[name];
  const first = Array.isArray(v) ? v[0] : v;
  return typeof first === 'string' ? first : undefined;
}

/**
 * Roles as Keycloak's RoleContainerResource pages them: a search by `first` and `max`, the whole list only
 * when both are given, each with no default.
 */
export function rolesPage<T>(req: Request, list: T[], searching: boolean): T[] {
  if (!searching && (queryParam(req, 'first') === undefined || queryParam(req, 'max') === undefined))
    return list;
  return page(req, list, -1);
}

/**
 * `first` and `max` as Keycloak pages with them: `max` defaults to 100 where Keycloak's resource does (users,
 * a group's members), to everything (-1) where it has no default (clients, groups, a user's groups).
 */
export function page<T>(req: Request, list: T[], defaultMax = 100): T[] {
  const number = (name: string): number | undefined => {
    const v = queryParam(req, name);
    if (v === undefined || v === '') return undefined;
    if (!/^-?\d+$/.test(v)) throw badRequest(`Query parameter "${name}" must be a whole number`);
    return Number(v);
  };
  const first = number('first') ?? 0;
  const max = number('max') ?? defaultMax;
  if (first < 0) return list.slice(0, max < 0 ? undefined : max);
  return list.slice(first, max < 0 ? undefined : first + max);
}
