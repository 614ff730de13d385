// The admin events of changes made through the admin API, as Keycloak records them: a change that
// succeeded (POST, PUT, DELETE answered 2xx) is an event of the realm it changed, with the operation, the
// resource's type and path (a creation's with the new id), who made it (the admin token's realm, client and
// user, and the request's address), and with adminEventsDetailsEnabled the body, its secrets masked.
import type { Request, Response } from 'express';
import { addressOf, saveAdminEvent, savesAdminEvents } from '../realm/events.js';
import type { AdminEvent } from '../store/events.js';
import type { AdminRealms } from './http.js';

/** Who makes an admin request. */
export type AdminCaller = Omit<AdminEvent['authDetails'], 'ipAddress'>;

const OPERATIONS: Readonly<Record<string, string>> = { POST: 'CREATE', PUT: 'UPDATE', DELETE: 'DELETE' };

/** Paths whose changes Keycloak records as an ACTION, by their last segment. */
const ACTIONS = new Set([
  'logout',
  'logout-all',
  'reset-password',
  'send-verify-email',
  'execute-actions-email',
  'push-revocation',
  'client-secret',
  'clear-user-cache',
  'clear-realm-cache',
  'clear-keys-cache',
]);

/** A resource's type by the path's first segment. */
const RESOURCES: Readonly<Record<string, string>> = {
  users: 'USER',
  groups: 'GROUP',
  clients: 'CLIENT',
  'client-scopes': 'CLIENT_SCOPE',
  roles: 'REALM_ROLE',
  'roles-by-id': 'REALM_ROLE',
  sessions: 'USER_SESSION',
  'attack-detection': 'USER_LOGIN_FAILURE',
  components: 'COMPONENT',
  'default-groups': 'GROUP',
  'default-default-client-scopes': 'CLIENT_SCOPE',
  'default-optional-client-scopes': 'CLIENT_SCOPE',
};

/** Keycloak's resource type of a path under the realm (`users/{id}/role-mappings/realm`, …). */
function resourceTypeOf(segments: readonly string[]): string {
  const [first = '', , third, fourth] = segments;
  if (third === 'role-mappings') return fourth === 'realm' ? 'REALM_ROLE_MAPPING' : 'CLIENT_ROLE_MAPPING';
  if (third === 'scope-mappings') return fourth === 'realm' ? 'REALM_SCOPE_MAPPING' : 'CLIENT_SCOPE_MAPPING';
  if (third === 'protocol-mappers') return 'PROTOCOL_MAPPER';
  if (first === 'users' && third === 'groups') return 'GROUP_MEMBERSHIP';
  if (first === 'clients' && third === 'roles') return 'CLIENT_ROLE';
  return RESOURCES[first] ?? 'REALM';
}

const MASK = '**********';
const SECRET_KEYS = new Set([
  'secret',
  'password',
  'clientSecret',
  'secretData',
  'hashedSaltedValue',
  'salt',
]);

/** A body with its secrets masked, as Keycloak strips them: secrets, and a password credential's value. */
function stripSecrets(value: unknown, credential = false): unknown {
  if (Array.isArray(value)) return value.map((v) => stripSecrets(v, credential));
  if (value === null || typeof value !== 'object') return value;
  const object = value as Record<string, unknown>;
  const password = credential || object['type'] === 'password';
  return Object.fromEntries(
    Object.entries(object).map(([k, v]) => [
      k,
      SECRET_KEYS.has(k) || (password && k === 'value') ? MASK : stripSecrets(v, k === 'credentials'),
    ]),
  );
}

/** Records the admin request's event when it has finished, if it changed a realm that saves admin events. */
export function recordAdminEvent(
  realms: AdminRealms,
  req: Request,
  res: Response,
  caller: AdminCaller,
): void {
  const operation = OPERATIONS[req.method];
  if (operation === undefined) return;
  res.on('finish', () => {
    if (res.statusCode < 200 || res.statusCode >= 300) return;
    const [realm, ...segments] = req.path
      .split('/')
      .filter((s) => s !== '')
      .map((s) => decodeURIComponent(s));
    const p = realm !== undefined ? realms.get(realm) : undefined;
    if (p === undefined || !savesAdminEvents(p)) return;
    // Clearing the events is not a change of the realm.
    if (req.method === 'DELETE' && segments.length === 1 && /^(admin-)?events$/.test(segments[0] ?? ''))
      return;
    const location = res.getHeader('Location');
    const created =
      typeof location === 'string'
        ? decodeURIComponent(location.slice(location.lastIndexOf('/') + 1))
        : undefined;
    const path = [...segments, ...(created !== undefined ? [created] : [])];
    const body: unknown = req.body;
    const hasBody =
      body !== undefined && body !== null && (typeof body !== 'object' || Object.keys(body).length > 0);
    saveAdminEvent(p, {
      authDetails: { ...caller, ipAddress: addressOf(req.ip) },
      operationType: ACTIONS.has(segments.at(-1) ?? '') ? 'ACTION' : operation,
      resourceType: resourceTypeOf(segments),
      resourcePath: path.join('/'),
      ...(hasBody ? { representation: JSON.stringify(stripSecrets(body)) } : {}),
    });
  });
}
