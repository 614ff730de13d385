// A realm's client scopes as the admin API finds and edits them: Keycloak's built-in ones (every realm here
// has them, as every realm Keycloak makes does), overridden and joined by the representation's own. A built-in
// scope is copied into the representation the first time it is changed. Which scopes a client gets by default
// or may ask for: its own lists, else the realm's defaults at the time (frozen into each client before the
// realm's defaults change, as Keycloak gives a client the defaults of the day it was made).
import {
  builtInClientScopes,
  DEFAULT_CLIENT_SCOPES,
  OPTIONAL_CLIENT_SCOPES,
} from '../fixtures/keycloak/builtin-scopes.js';
import { clientScopeIdOf } from '../fixtures/keycloak/ids.js';
import type {
  ClientRepresentation,
  ClientScopeRepresentation,
  KeycloakRealmRepresentation,
} from '../fixtures/keycloak/schema.js';
import { notFound } from './errors.js';

type Rep = KeycloakRealmRepresentation;

export const OIDC = 'openid-connect';

/** Keycloak's built-in client scopes as representations (ids derived from their names). */
function builtIns(realm: string): ClientScopeRepresentation[] {
  return builtInClientScopes().map((s) => ({
    id: clientScopeIdOf(realm, s.name),
    name: s.name,
    protocol: OIDC,
    attributes: {
      'include.in.token.scope': String(s.includeInTokenScope),
      'display.on.consent.screen': 'true',
    },
    protocolMappers: s.mappers.map((m) => ({
      name: m.name,
      protocol: OIDC,
      protocolMapper: m.type,
      config: Object.fromEntries(m.config),
    })),
  }));
}

/** Every client scope of the realm, by name: the representation's own, and the built-in ones it does not hold. */
export function clientScopeList(rep: Rep): ClientScopeRepresentation[] {
  const own = rep.clientScopes ?? [];
  const names = new Set(own.map((s) => s.name));
  const all = [...builtIns(rep.realm).filter((s) => !names.has(s.name)), ...own];
  return all.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The id a scope is known by (its own, else derived from its name). */
export const scopeIdOf = (rep: Rep, s: ClientScopeRepresentation): string =>
  s.id ?? clientScopeIdOf(rep.realm, s.name);

/**
 * The client scope `id`, to read; 404 for an unknown one, with Keycloak's words (its client scope resource
 * says `missing`'s default; linking one to a client or the realm says "Client scope not found").
 */
export function findClientScope(
  rep: Rep,
  id: string,
  missing = 'Could not find client scope',
): ClientScopeRepresentation {
  const scope = clientScopeList(rep).find((s) => scopeIdOf(rep, s) === id);
  if (scope === undefined) throw notFound(missing);
  return scope;
}

/** The client scope `id`, to change: a built-in one is copied into the representation first. */
export function ownClientScope(rep: Rep, id: string): ClientScopeRepresentation {
  const own = (rep.clientScopes ??= []);
  const held = own.find((s) => scopeIdOf(rep, s) === id);
  if (held !== undefined) return held;
  const scope = findClientScope(rep, id);
  own.push(scope);
  // The built-in offline_access scope lets the offline_access role into tokens; held, its scope mapping says so.
  if (scope.name === 'offline_access')
    (rep.scopeMappings ??= []).push({ clientScope: 'offline_access', roles: ['offline_access'] });
  return scope;
}

export type ScopeKind = 'default' | 'optional';

const REALM_LIST = {
  default: 'defaultDefaultClientScopes',
  optional: 'defaultOptionalClientScopes',
} as const;
const CLIENT_LIST = { default: 'defaultClientScopes', optional: 'optionalClientScopes' } as const;

/** The realm's default (or optional) client scopes for new clients, by name. */
export function realmScopes(rep: Rep, kind: ScopeKind): string[] {
  return rep[REALM_LIST[kind]] ?? (kind === 'default' ? DEFAULT_CLIENT_SCOPES : OPTIONAL_CLIENT_SCOPES);
}

/** Keycloak's built-in SAML client scopes, which an export lists among the realm's defaults. */
const SAML_BUILT_INS = new Set(['role_list', 'saml_organization']);

/** The realm's default (or optional) client scopes of one protocol, by name: one pass over its scopes. */
function realmScopesOf(rep: Rep, kind: ScopeKind, protocol: string): string[] {
  const protocols = new Map<string, string | undefined>();
  for (const s of rep.clientScopes ?? []) if (!protocols.has(s.name)) protocols.set(s.name, s.protocol);
  const protocolOf = (name: string): string =>
    protocols.get(name) ?? (SAML_BUILT_INS.has(name) ? 'saml' : 'openid-connect');
  return realmScopes(rep, kind).filter((name) => protocolOf(name) === protocol);
}

/**
 * A client's default (or optional) client scopes, by name: its own list, else the realm's of the client's
 * protocol (an OpenID Connect client does not get the SAML scopes an export lists among the realm's).
 */
export function clientScopes(rep: Rep, client: ClientRepresentation, kind: ScopeKind): string[] {
  return client[CLIENT_LIST[kind]] ?? realmScopesOf(rep, kind, client.protocol ?? 'openid-connect');
}

export function setClientScopes(client: ClientRepresentation, kind: ScopeKind, names: string[]): void {
  client[CLIENT_LIST[kind]] = names;
}

/** Sets the realm's list; every client that followed it keeps what it had. */
export function setRealmScopes(rep: Rep, kind: ScopeKind, names: string[]): void {
  for (const c of rep.clients ?? []) c[CLIENT_LIST[kind]] ??= [...realmScopes(rep, kind)];
  rep[REALM_LIST[kind]] = names;
}

/** Renames scope `from` in every list that names it (clients', the realm's, scope mappings). */
export function renameScope(rep: Rep, from: string, to: string): void {
  const swap = (names: string[] | undefined): string[] | undefined =>
    names?.map((n) => (n === from ? to : n));
  for (const kind of ['default', 'optional'] as const) {
    const realm = rep[REALM_LIST[kind]];
    if (realm !== undefined) rep[REALM_LIST[kind]] = swap(realm) as string[];
    for (const c of rep.clients ?? []) {
      const list = c[CLIENT_LIST[kind]];
      if (list !== undefined) c[CLIENT_LIST[kind]] = swap(list) as string[];
    }
  }
  for (const m of rep.scopeMappings ?? []) if (m.clientScope === from) m.clientScope = to;
  for (const mappings of Object.values(rep.clientScopeMappings ?? {}))
    for (const m of mappings) if (m.clientScope === from) m.clientScope = to;
}

/** Whether a client gets or may ask for scope `name` (Keycloak then refuses to remove it). */
export function scopeInUse(rep: Rep, name: string): boolean {
  // The realm's lists per kind and protocol, worked out once: a client without its own list follows them.
  const followed = new Map<string, boolean>();
  const inRealmList = (kind: ScopeKind, protocol: string): boolean => {
    const key = `${kind} ${protocol}`;
    let found = followed.get(key);
    if (found === undefined) {
      found = realmScopesOf(rep, kind, protocol).includes(name);
      followed.set(key, found);
    }
    return found;
  };
  return (rep.clients ?? []).some((c) =>
    (['default', 'optional'] as const).some(
      (kind) => c[CLIENT_LIST[kind]]?.includes(name) ?? inRealmList(kind, c.protocol ?? 'openid-connect'),
    ),
  );
}

/** Removes scope `name` from the realm's lists and its scope mappings (after it was checked unused). */
export function forgetScope(rep: Rep, name: string): void {
  for (const kind of ['default', 'optional'] as const) {
    const realm = rep[REALM_LIST[kind]];
    if (realm !== undefined) rep[REALM_LIST[kind]] = realm.filter((n) => n !== name);
  }
  rep.scopeMappings = (rep.scopeMappings ?? []).filter((m) => m.clientScope !== name);
  for (const [container, mappings] of Object.entries(rep.clientScopeMappings ?? {}))
    (rep.clientScopeMappings ??= {})[container] = mappings.filter((m) => m.clientScope !== name);
}
