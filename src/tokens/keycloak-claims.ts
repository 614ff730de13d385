// Keycloak's claims for a realm read from a Keycloak realm file: the protocol mappers of the client's scopes
// (its default ones, and the optional ones requested) and its own, applied as Keycloak 26 applies them.
import { DEFAULT_CLIENT_SCOPES, OPTIONAL_CLIENT_SCOPES } from '../fixtures/keycloak/builtin-scopes.js';
import type {
  KeycloakClientScope,
  KeycloakMapper,
  KeycloakRealm,
  KeycloakUser,
  RoleSet,
} from '../fixtures/keycloak/model.js';
import { effectiveRoles, groupsWithParents, inScope } from '../fixtures/keycloak/roles.js';
import type { Client, Subject } from '../fixtures/realm.js';

/** Where released claims go: a token, the userinfo answer, or an introspection answer. */
export type ClaimTarget = 'access' | 'id' | 'userinfo' | 'introspection';

/** What the claims are for: the subject, the client (none: the realm's defaults) and the requested scopes. */
interface KeycloakView {
  kc: KeycloakRealm;
  client?: Client | undefined;
  subject: Subject;
  scopes: readonly string[];
}

/** Claims the provider sets itself: a mapper naming one is not let overwrite it. */
export const PROVIDER_CLAIMS: ReadonlySet<string> = new Set([
  'iss',
  'sub',
  'aud',
  'exp',
  'iat',
  'nbf',
  'jti',
  'typ',
  'azp',
  'auth_time',
  'nonce',
  'session_state',
  'sid',
  'scope',
  'acr',
  'at_hash',
  'c_hash',
]);

type Claims = Record<string, unknown>;

/** The client scopes a token gets: the client's default ones, then the optional ones requested. */
function appliedScopes(
  kc: KeycloakRealm,
  client: Client | undefined,
  requested: readonly string[],
): KeycloakClientScope[] {
  const own = client !== undefined ? kc.clients.get(client.id) : undefined;
  const defaults = own?.defaultScopes ?? DEFAULT_CLIENT_SCOPES;
  const optional = own?.optionalScopes ?? OPTIONAL_CLIENT_SCOPES;
  const names = [...defaults, ...requested.filter((s) => optional.includes(s) && !defaults.includes(s))];
  return names.flatMap((n) => kc.clientScopes.get(n) ?? []);
}

/** Every mapper that applies: the applied scopes' in order, then the client's own. */
function mappersOf(view: KeycloakView): KeycloakMapper[] {
  const own = view.client !== undefined ? (view.kc.clients.get(view.client.id)?.mappers ?? []) : [];
  return [...appliedScopes(view.kc, view.client, view.scopes).flatMap((s) => s.mappers), ...own];
}

/** The `scope` claim: `openid` when requested, and each applied scope that is shown in tokens. */
export function keycloakScope(kc: KeycloakRealm, client: Client, requested: readonly string[]): string {
  const shown = appliedScopes(kc, client, requested)
    .filter((s) => s.includeInTokenScope)
    .map((s) => s.name);
  return [...(requested.includes('openid') ? ['openid'] : []), ...shown].join(' ');
}

/** The user's profile and attributes; a subject without one (a service account) gets an empty profile. */
function userOf(kc: KeycloakRealm, subject: Subject): KeycloakUser {
  return (
    kc.users.get(subject.username) ?? {
      id: subject.sub,
      username: subject.username.toLowerCase(),
      enabled: true,
      emailVerified: false,
      attributes: new Map(),
      groups: [],
      actionsPending: false,
      requiredActions: [],
    }
  );
}

/** The subject's roles the token carries: every one, or for a client whose scope is not full, those in it. */
function rolesOf(view: KeycloakView, user: KeycloakUser): RoleSet {
  const { kc, subject, client } = view;
  const roles = effectiveRoles(kc, {
    realmRoles: subject.realmRoles,
    clientRoles: subject.clientRoles,
    groups: user.groups,
  });
  if (client === undefined) return roles;
  return inScope(kc, client.id, appliedScopes(kc, client, view.scopes), roles);
}

const flag = (m: KeycloakMapper, key: string): boolean => m.config.get(key) === 'true';

/** Whether the mapper writes into `target`; userinfo follows the ID token and introspection the access token when unset. */
function writesInto(m: KeycloakMapper, target: ClaimTarget): boolean {
  switch (target) {
    case 'access':
      return flag(m, 'access.token.claim');
    case 'id':
      return flag(m, 'id.token.claim');
    case 'userinfo':
      return m.config.has('userinfo.token.claim')
        ? flag(m, 'userinfo.token.claim')
        : flag(m, 'id.token.claim');
    case 'introspection':
      return m.config.has('introspection.token.claim')
        ? flag(m, 'introspection.token.claim')
        : flag(m, 'access.token.claim');
  }
}

/**
 * The access token's audiences: every other client the user has roles of (the audience resolve mapper of
 * the `roles` scope), then those of audience mappers.
 */
export function keycloakAudience(view: KeycloakView & { client: Client }): string[] {
  const aud: string[] = [];
  const add = (a: string | undefined): void => {
    if (a !== undefined && a !== '' && !aud.includes(a)) aud.push(a);
  };
  const mappers = mappersOf(view);
  // Keycloak's audience resolve mapper is in the access token unless it says otherwise.
  if (
    mappers.some(
      (m) => m.type === 'oidc-audience-resolve-mapper' && m.config.get('access.token.claim') !== 'false',
    )
  ) {
    const roles = rolesOf(view, userOf(view.kc, view.subject));
    for (const [client, names] of roles.client)
      if (names.length > 0 && client !== view.client.id) add(client);
  }
  for (const m of mappers)
    if (m.type === 'oidc-audience-mapper' && writesInto(m, 'access'))
      add(m.config.get('included.client.audience') || m.config.get('included.custom.audience'));
  return aud;
}

/** The ID token's audiences besides the client: those of audience mappers that write into the ID token. */
export function keycloakIdAudience(view: KeycloakView): string[] {
  const aud: string[] = [];
  for (const m of mappersOf(view)) {
    if (m.type !== 'oidc-audience-mapper' || !writesInto(m, 'id')) continue;
    const a = m.config.get('included.client.audience') || m.config.get('included.custom.audience');
    if (a !== undefined && a !== '' && !aud.includes(a) && a !== view.client?.id) aud.push(a);
  }
  return aud;
}

/** A claim path split at unescaped dots (`a.b` nests, `a\.b` is one name). */
function claimPath(name: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < name.length; i++) {
    const ch = name[i] as string;
    if (ch === '\\' && i + 1 < name.length) current += name[++i];
    else if (ch === '.') {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  parts.push(current);
  return parts;
}

/** One value as the mapper's JSON type says; undefined when it cannot be one. */
function typed(value: unknown, type: string | undefined): unknown {
  switch (type) {
    case 'boolean':
      return typeof value === 'boolean' ? value : String(value).toLowerCase() === 'true';
    case 'long':
    case 'int': {
      const n = typeof value === 'number' ? value : Number(String(value));
      return Number.isFinite(n) && String(value).trim() !== '' ? Math.trunc(n) : undefined;
    }
    case 'JSON':
      if (typeof value !== 'string') return value;
      try {
        return JSON.parse(value) as unknown;
      } catch {
        return undefined;
      }
    case 'String':
      return typeof value === 'string' ? value : String(value);
    default:
      return value;
  }
}

/** The claim value of `values` for a mapper: all of them when multivalued, else the first, typed. */
function valueOf(
  m: KeycloakMapper,
  values: readonly unknown[],
  multivalued = flag(m, 'multivalued'),
): unknown {
  const type = m.config.get('jsonType.label');
  if (multivalued) {
    const all = values.map((v) => typed(v, type)).filter((v) => v !== undefined);
    return all.length > 0 ? all : undefined;
  }
  return values.length > 0 ? typed(values[0], type) : undefined;
}

/** Sets `value` at the mapper's claim path; a role list joins one already there (two role mappers, one claim). */
function setClaim(out: Claims, name: string | undefined, value: unknown, merge = false): void {
  if (name === undefined || name === '' || value === undefined) return;
  const path = claimPath(name);
  if (path.length === 1 && PROVIDER_CLAIMS.has(path[0] as string)) return;
  let at = out;
  for (const part of path.slice(0, -1)) {
    const next = at[part];
    if (typeof next === 'object' && next !== null && !Array.isArray(next)) at = next as Claims;
    else at = at[part] = {};
  }
  const leaf = path[path.length - 1] as string;
  const existing = at[leaf];
  if (merge && Array.isArray(existing) && Array.isArray(value))
    at[leaf] = [...existing, ...value.filter((v: unknown) => !existing.includes(v))];
  else at[leaf] = value;
}

/** A user property as Keycloak's user model has it. */
function property(user: KeycloakUser, name: string | undefined): unknown[] {
  const value: unknown = {
    username: user.username,
    email: user.email,
    firstName: user.firstName,
    lastName: user.lastName,
    emailVerified: user.emailVerified,
    enabled: user.enabled,
    id: user.id,
    createdTimestamp: user.createdTimestamp,
  }[name ?? ''];
  return value === undefined ? [] : [value];
}

/**
 * A user attribute: the profile fields by name, else the user's own values, else the first group's (its
 * parents' too) that has it; with `aggregate.attrs` the user's and every group's values together.
 */
function attribute(
  kc: KeycloakRealm,
  user: KeycloakUser,
  name: string | undefined,
  aggregate: boolean,
): unknown[] {
  if (name === undefined) return [];
  if (['username', 'email', 'firstName', 'lastName'].includes(name)) return property(user, name);
  const out: string[] = [...(user.attributes.get(name) ?? [])];
  if (out.length > 0 && !aggregate) return out;
  for (const path of groupsWithParents(kc, user.groups)) {
    const values = kc.groups.get(path)?.attributes.get(name) ?? [];
    if (values.length === 0) continue;
    if (!aggregate) return values;
    for (const v of values) if (!out.includes(v)) out.push(v);
  }
  return out;
}

/** The OIDC `address` claim from the user's address attributes. */
function address(kc: KeycloakRealm, user: KeycloakUser): Claims | undefined {
  const out: Claims = {};
  const fields: [string, string][] = [
    ['formatted', 'formatted'],
    ['street_address', 'street'],
    ['locality', 'locality'],
    ['region', 'region'],
    ['postal_code', 'postal_code'],
    ['country', 'country'],
  ];
  for (const [claim, attr] of fields) {
    const [value] = attribute(kc, user, attr, false);
    if (value !== undefined) out[claim] = value;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Role names with the mapper's prefix. */
const prefixed = (m: KeycloakMapper, key: string, names: readonly string[]): string[] =>
  names.map((n) => `${m.config.get(key) ?? ''}${n}`);

/** The subject's claims for `target`, mapper by mapper. */
export function keycloakClaims(view: KeycloakView, target: ClaimTarget): Claims {
  const { kc } = view;
  const out: Claims = {};
  const user = userOf(kc, view.subject);
  let roles: RoleSet | undefined;
  const effective = (): RoleSet => (roles ??= rolesOf(view, user));
  for (const m of mappersOf(view)) {
    if (!writesInto(m, target)) continue;
    const claim = m.config.get('claim.name');
    switch (m.type) {
      case 'oidc-usermodel-attribute-mapper':
        setClaim(
          out,
          claim,
          valueOf(m, attribute(kc, user, m.config.get('user.attribute'), flag(m, 'aggregate.attrs'))),
        );
        break;
      case 'oidc-usermodel-property-mapper':
        setClaim(out, claim, valueOf(m, property(user, m.config.get('user.attribute')), false));
        break;
      case 'oidc-full-name-mapper': {
        const name = [user.firstName, user.lastName].filter((n) => n !== undefined && n !== '').join(' ');
        if (name !== '') out['name'] = name;
        break;
      }
      case 'oidc-address-mapper':
        setClaim(out, 'address', address(kc, user));
        break;
      case 'oidc-group-membership-mapper': {
        const full = m.config.get('full.path') !== 'false';
        const names = user.groups.map((p) =>
          full ? p : (kc.groups.get(p)?.name ?? p.slice(p.lastIndexOf('/') + 1)),
        );
        // Keycloak lists the groups whether or not the mapper says multivalued, unless it says false.
        setClaim(out, claim, valueOf(m, names, m.config.get('multivalued') !== 'false'));
        break;
      }
      case 'oidc-hardcoded-claim-mapper':
        setClaim(out, claim, valueOf(m, [m.config.get('claim.value') ?? ''], false));
        break;
      case 'oidc-usermodel-realm-role-mapper':
        setClaim(
          out,
          claim,
          valueOf(m, prefixed(m, 'usermodel.realmRoleMapping.rolePrefix', effective().realm)),
          true,
        );
        break;
      case 'oidc-usermodel-client-role-mapper': {
        const only = m.config.get('usermodel.clientRoleMapping.clientId');
        for (const [client, names] of effective().client) {
          if (only !== undefined && only !== '' && client !== only) continue;
          const value = valueOf(m, prefixed(m, 'usermodel.clientRoleMapping.rolePrefix', names));
          setClaim(out, claim?.replaceAll('${client_id}', client), value, true);
        }
        break;
      }
      default:
        // Audiences are the skeleton's `aud`; the implied mappers' claims every token has.
        break;
    }
  }
  return out;
}
