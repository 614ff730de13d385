// A realm's own admins, as Keycloak 26 has them: a new realm gets Keycloak's built-in clients (admin-cli,
// realm-management with its roles, account…), and a user or service account of that realm with roles of its
// realm-management client calls the admin API for that realm, within those roles.
import KcAdminClient from '@keycloak/keycloak-admin-client';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { adminClient } from '../helpers/admin.js';
import { basic, postForm } from '../helpers/http.js';
import { useIdp } from '../helpers/server.js';

const ACME = fileURLToPath(new URL('../fixtures-data/keycloak/acme-realm.json', import.meta.url));
const idp = useIdp({ fixtures: ACME, seed: 'admin-realm-admins' });
const BUILT_IN = [
  'account',
  'account-console',
  'admin-cli',
  'broker',
  'realm-management',
  'security-admin-console',
];

let kc: KcAdminClient;
beforeAll(async () => {
  kc = await adminClient(idp);
  await kc.realms.create({ realm: 'shop', enabled: true });
  kc.setConfig({ realmName: 'shop' });
});

/** Gives user `id` of shop these roles of shop's realm-management client. */
async function grantRealmManagement(id: string, names: string[]): Promise<void> {
  const [rm] = await kc.clients.find({ clientId: 'realm-management' });
  const roles = await kc.clients.listRoles({ id: rm?.id as string });
  await kc.users.addClientRoleMappings({
    id,
    clientUniqueId: rm?.id as string,
    roles: roles.filter((r) => names.includes(r.name as string)).map((r) => ({ id: r.id!, name: r.name! })),
  });
}

/** An admin client of realm shop with the access token of a user of shop (admin-cli, password grant). */
async function shopAdmin(username: string, roles: string[]): Promise<KcAdminClient> {
  const { id } = await kc.users.create({
    username,
    enabled: true,
    credentials: [{ type: 'password', value: `${username}-pw` }],
  });
  if (roles.length > 0) await grantRealmManagement(id, roles);
  const own = new KcAdminClient({ baseUrl: idp.url, realmName: 'shop' });
  await own.auth({ username, password: `${username}-pw`, grantType: 'password', clientId: 'admin-cli' });
  return own;
}

/** An admin API answer's status, with `token` as the bearer. */
async function status(token: string, method: string, path: string, body?: unknown): Promise<number> {
  const response = await fetch(`${idp.url}/admin/realms${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  await response.arrayBuffer();
  return response.status;
}

describe('a realm made through the admin API', () => {
  it("has Keycloak's built-in clients, realm-management with its roles, and admin-cli signs its users in", async () => {
    const clientIds = (await kc.clients.find()).map((c) => c.clientId);
    expect(clientIds).toEqual(expect.arrayContaining(BUILT_IN));
    const [rm] = await kc.clients.find({ clientId: 'realm-management' });
    expect(rm).toMatchObject({ bearerOnly: true });
    const roles = (await kc.clients.listRoles({ id: rm?.id as string })).map((r) => r.name);
    expect(roles).toEqual(
      expect.arrayContaining(['realm-admin', 'manage-users', 'view-users', 'view-clients']),
    );
    await kc.users.create({
      username: 'plain',
      enabled: true,
      credentials: [{ type: 'password', value: 'p' }],
    });
    const answer = await postForm(`${idp.url}/realms/shop/protocol/openid-connect/token`, {
      grant_type: 'password',
      client_id: 'admin-cli',
      username: 'plain',
      password: 'p',
    });
    expect(answer.status).toBe(200);
  });
});

describe("a realm's own admins", () => {
  /** The table's row: each its own user. */
  let row = 0;
  it.each([
    ['no role', [], 'GET', '/shop/users', 403],
    ['view-users', ['view-users'], 'GET', '/shop/users', 200],
    ['view-users', ['view-users'], 'POST', '/shop/users', 403],
    ['manage-users', ['manage-users'], 'POST', '/shop/users', 201],
    ['manage-users', ['manage-users'], 'GET', '/shop/groups', 200],
    ['manage-users', ['manage-users'], 'GET', '/shop/clients', 403],
    ['view-clients', ['view-clients'], 'GET', '/shop/clients', 200],
    ['manage-users', ['manage-users'], 'PUT', '/shop', 403],
    ['manage-realm', ['manage-realm'], 'PUT', '/shop', 204],
    ['manage-users', ['manage-users'], 'GET', '/shop', 200],
    ['realm-admin', ['realm-admin'], 'POST', '/shop/roles', 201],
    ['realm-admin', ['realm-admin'], 'GET', '/acme/users', 403],
    ['realm-admin', ['realm-admin'], 'POST', '/', 403],
  ])('with %s (%j): %s %s answers %i', async (_name, roles, method, path, expected) => {
    row += 1;
    const own = await shopAdmin(`admin-${row}`, roles);
    const body =
      method === 'POST' && path.endsWith('/users')
        ? { username: `made-${row}`, enabled: true }
        : method === 'POST' && path.endsWith('/roles')
          ? { name: 'made-by-realm-admin' }
          : method === 'POST'
            ? { realm: 'other', enabled: true }
            : method === 'PUT'
              ? { displayName: 'The Shop' }
              : undefined;
    expect(await status(own.accessToken as string, method, path, body)).toBe(expected);
  });

  it('a service account of the realm with manage-users creates users through the admin client, and the realm list shows it that realm', async () => {
    const { id } = await kc.clients.create({
      clientId: 'provisioner',
      secret: 'prov-secret',
      serviceAccountsEnabled: true,
    });
    const sa = await kc.clients.getServiceAccountUser({ id });
    await grantRealmManagement(sa.id as string, ['manage-users']);
    const tokens = await postForm(
      `${idp.url}/realms/shop/protocol/openid-connect/token`,
      { grant_type: 'client_credentials' },
      basic('provisioner', 'prov-secret'),
    );
    const own = new KcAdminClient({ baseUrl: idp.url, realmName: 'shop' });
    own.setAccessToken(String(tokens.json['access_token']));
    const made = await own.users.create({ username: 'provisioned', enabled: true });
    expect((await own.users.findOne({ id: made.id }))?.username).toBe('provisioned');
    expect((await own.realms.find()).map((r) => r.realm)).toEqual(['shop']);
  });

  it('a user of the realm without any admin role: 403 on the realm list too', async () => {
    const own = await shopAdmin('nobody', []);
    expect(await status(own.accessToken as string, 'GET', '/')).toBe(403);
  });
});
