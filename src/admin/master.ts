// Realm `master`, as every Keycloak has it: the admin user (who may use the admin REST API) and the public
// client `admin-cli` (password grant), served beside the fixtures' realms.
import { fixturesFromObject, type LoadedFixtures } from '../fixtures/load.js';
import type { KeycloakRealmInput, KeycloakRealmRepresentation } from '../fixtures/keycloak/schema.js';

export const MASTER = 'master';
const ADMIN_CLI = 'admin-cli';
/** The realm role of master that opens the admin REST API. */
export const ADMIN_ROLE = 'admin';

/** The admin user of realm master. */
export interface AdminUser {
  username: string;
  password: string;
}

const DEFAULT_ADMIN: AdminUser = { username: 'admin', password: 'admin' };

/** The admin user from the options, else Keycloak's environment variables (new names first), else admin/admin. */
export function adminUserOf(
  given: { adminUser?: string | undefined; adminPassword?: string | undefined },
  env: Readonly<Record<string, string | undefined>>,
): AdminUser {
  const pick = (...values: (string | undefined)[]): string | undefined =>
    values.find((v) => v !== undefined && v !== '');
  return {
    username:
      pick(given.adminUser, env['KC_BOOTSTRAP_ADMIN_USERNAME'], env['KEYCLOAK_ADMIN']) ??
      DEFAULT_ADMIN.username,
    password:
      pick(given.adminPassword, env['KC_BOOTSTRAP_ADMIN_PASSWORD'], env['KEYCLOAK_ADMIN_PASSWORD']) ??
      DEFAULT_ADMIN.password,
  };
}

/** Adds the admin user, `admin-cli` and the admin roles to a representation of realm master, where missing. */
function withAdmin(rep: KeycloakRealmInput, admin: AdminUser): KeycloakRealmInput {
  const username = admin.username.toLowerCase();
  const users = [...(rep.users ?? [])];
  if (!users.some((u) => u.username.toLowerCase() === username))
    users.push({
      username,
      enabled: true,
      credentials: [{ type: 'password', value: admin.password, temporary: false }],
      realmRoles: [ADMIN_ROLE, 'create-realm'],
    });
  const clients = [...(rep.clients ?? [])];
  if (!clients.some((c) => c.clientId === ADMIN_CLI))
    clients.push({
      clientId: ADMIN_CLI,
      name: '${client_admin-cli}',
      publicClient: true,
      standardFlowEnabled: false,
      directAccessGrantsEnabled: true,
    });
  const realmRoles = [...(rep.roles?.realm ?? [])];
  for (const name of [ADMIN_ROLE, 'create-realm'])
    if (!realmRoles.some((r) => r.name === name)) realmRoles.push({ name });
  return { ...rep, users, clients, roles: { ...rep.roles, realm: realmRoles } };
}

/** Realm master as Keycloak starts it: the admin user and `admin-cli`. */
export function masterFixtures(admin: AdminUser): LoadedFixtures {
  return fixturesFromObject(withAdmin({ realm: MASTER, enabled: true }, admin), 'realm master');
}

/** A fixtures file of realm master, given the admin user and `admin-cli` (a Keycloak realm; others as they are). */
export function addAdmin(loaded: LoadedFixtures, admin: AdminUser): LoadedFixtures {
  const rep: KeycloakRealmRepresentation | undefined = loaded.keycloak?.representation;
  if (rep === undefined) return loaded;
  const added = fixturesFromObject(withAdmin(rep, admin), loaded.source);
  return { ...loaded, fixtures: added.fixtures, ...(added.keycloak ? { keycloak: added.keycloak } : {}) };
}
