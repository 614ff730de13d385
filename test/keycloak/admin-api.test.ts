// The admin REST API driven by @keycloak/keycloak-admin-client, as a suite written against Keycloak drives
// it: a realm, clients, roles, groups and users made through it, then their tokens got with openid-client and
// verified with jose, role by role.
import KcAdminClient from '@keycloak/keycloak-admin-client';
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  decodeProtectedHeader,
  jwtVerify,
  type JSONWebKeySet,
} from 'jose';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Claims } from '../helpers/jwt.js';
import { adminClient as adminClientOf, passwordAccessToken, serviceAccessToken } from '../helpers/admin.js';
import { postForm } from '../helpers/http.js';
import { startIdp, useIdp } from '../helpers/server.js';

const ACME = fileURLToPath(new URL('../fixtures-data/keycloak/acme-realm.json', import.meta.url));

const idp = useIdp({ fixtures: [], seed: 'admin-api' });

const adminClient = (realmName = 'shop'): Promise<KcAdminClient> => adminClientOf(idp, realmName);
const accessToken = (
  realm: string,
  clientId: string,
  secret: string,
  username: string,
  password: string,
): Promise<Claims> => passwordAccessToken(idp, realm, clientId, secret, username, password);

describe('a realm made through the admin API', () => {
  let kc: KcAdminClient;
  let clientUuid: string;
  let secret: string;
  let userId: string;

  beforeAll(async () => {
    kc = await adminClient('master');
    await kc.realms.create({ realm: 'shop', enabled: true });
    kc.setConfig({ realmName: 'shop' });
    ({ id: clientUuid } = await kc.clients.create({
      clientId: 'shop-api',
      directAccessGrantsEnabled: true,
      protocolMappers: [
        {
          name: 'groups',
          protocol: 'openid-connect',
          protocolMapper: 'oidc-group-membership-mapper',
          config: { 'full.path': 'true', 'access.token.claim': 'true', 'claim.name': 'groups' },
        },
      ],
    }));
    secret = (await kc.clients.getClientSecret({ id: clientUuid })).value ?? '';
    await kc.roles.create({ name: 'buyer' });
    await kc.roles.create({ name: 'vip' });
    const buyer = await kc.roles.findOneByName({ name: 'buyer' });
    await kc.roles.createComposite({ roleId: (await kc.roles.findOneByName({ name: 'vip' }))?.id ?? '' }, [
      buyer!,
    ]);
    await kc.clients.createRole({ id: clientUuid, name: 'read' });
    const { id: staff } = await kc.groups.create({ name: 'staff' });
    await kc.groups.addRealmRoleMappings({ id: staff, roles: [{ id: buyer!.id!, name: 'buyer' }] });
    await kc.groups.createChildGroup({ id: staff }, { name: 'leads' });
    ({ id: userId } = await kc.users.create({
      username: 'Carol',
      enabled: true,
      email: 'carol@shop.test',
      firstName: 'Carol',
    }));
    await kc.users.resetPassword({
      id: userId,
      credential: { type: 'password', value: 'carol-pw', temporary: false },
    });
  });

  it('answers what it made as Keycloak represents it', async () => {
    const user = await kc.users.findOne({ id: userId });
    expect(user).toMatchObject({
      id: userId,
      username: 'carol',
      email: 'carol@shop.test',
      enabled: true,
      emailVerified: false,
    });
    expect(Object.values(user ?? {})).not.toContain(null);
    expect(await kc.users.find({ search: 'car' })).toHaveLength(1);
    expect(await kc.users.find({ username: 'carol', exact: true })).toHaveLength(1);
    expect(await kc.users.count()).toBe(1);
    const [found] = await kc.clients.find({ clientId: 'shop-api' });
    expect(found).toMatchObject({ id: clientUuid, clientId: 'shop-api', publicClient: false, secret });
    expect(secret).not.toBe('');
    expect(
      (await kc.roles.getCompositeRoles({ id: (await kc.roles.findOneByName({ name: 'vip' }))!.id! })).map(
        (r) => r.name,
      ),
    ).toEqual(['buyer']);
  });

  it('gives the tokens of a new user her roles, client roles and groups at once', async () => {
    const vip = await kc.roles.findOneByName({ name: 'vip' });
    await kc.users.addRealmRoleMappings({ id: userId, roles: [{ id: vip!.id!, name: 'vip' }] });
    const read = await kc.clients.findRole({ id: clientUuid, roleName: 'read' });
    await kc.users.addClientRoleMappings({
      id: userId,
      clientUniqueId: clientUuid,
      roles: [{ id: read!.id!, name: 'read' }],
    });
    // A search answers the top-level group with only the subgroups on the way to a match.
    const [staffTree] = await kc.groups.find({ search: 'leads' });
    expect(staffTree).toMatchObject({
      name: 'staff',
      path: '/staff',
      subGroups: [{ name: 'leads', path: '/staff/leads' }],
    });
    const staff = staffTree?.subGroups?.[0];
    await kc.users.addToGroup({ id: userId, groupId: staff!.id! });

    const claims = await accessToken('shop', 'shop-api', secret, 'Carol', 'carol-pw');
    expect(claims['sub']).toBe(userId);
    expect(claims['preferred_username']).toBe('carol');
    const realmRoles = (claims['realm_access'] as { roles: string[] }).roles;
    expect(realmRoles).toEqual(
      expect.arrayContaining(['vip', 'buyer', 'default-roles-shop', 'offline_access']),
    );
    expect((claims['resource_access'] as Record<string, { roles: string[] }>)['shop-api']?.roles).toEqual([
      'read',
    ]);
    expect(claims['groups']).toEqual(['/staff/leads']);

    const mappings = await kc.users.listRoleMappings({ id: userId });
    expect(mappings.realmMappings?.map((r) => r.name)).toEqual(
      expect.arrayContaining(['vip', 'default-roles-shop']),
    );
    expect(mappings.clientMappings?.['shop-api']?.mappings.map((r: { name?: string }) => r.name)).toEqual([
      'read',
    ]);
    expect((await kc.users.listGroups({ id: userId })).map((g) => g.path)).toEqual(['/staff/leads']);
    expect((await kc.groups.listMembers({ id: staff!.id! })).map((u) => u.username)).toEqual(['carol']);
  });

  it('takes a role away: the next token is without it (and removing it again succeeds)', async () => {
    const vip = await kc.roles.findOneByName({ name: 'vip' });
    await kc.users.delRealmRoleMappings({ id: userId, roles: [{ id: vip!.id!, name: 'vip' }] });
    await kc.users.delRealmRoleMappings({ id: userId, roles: [{ id: vip!.id!, name: 'vip' }] });
    const claims = await accessToken('shop', 'shop-api', secret, 'carol', 'carol-pw');
    expect((claims['realm_access'] as { roles: string[] }).roles).not.toContain('vip');
    // The group still gives buyer (a subgroup inherits its parent's role mappings).
    expect((claims['realm_access'] as { roles: string[] }).roles).toContain('buyer');
  });

  it('updates by merging, and a deleted user gets no token', async () => {
    await kc.users.update({ id: userId }, { lastName: 'Jones' });
    expect(await kc.users.findOne({ id: userId })).toMatchObject({
      firstName: 'Carol',
      lastName: 'Jones',
      email: 'carol@shop.test',
    });
    await kc.users.del({ id: userId });
    expect(await kc.users.findOne({ id: userId })).toBeNull();
    await expect(accessToken('shop', 'shop-api', secret, 'carol', 'carol-pw')).rejects.toMatchObject({
      error: 'invalid_grant',
      error_description: 'Invalid user credentials',
    });
  });

  it('makes the service-account user of a client with service accounts', async () => {
    const { id } = await kc.clients.create({ clientId: 'worker', serviceAccountsEnabled: true });
    const user = await kc.clients.getServiceAccountUser({ id });
    expect(user).toMatchObject({ username: 'service-account-worker' });
  });
});

describe('refusals, as Keycloak answers them', () => {
  let token: string;
  let userToken: string;
  let takenId: string;
  let adminCliId: string;

  beforeAll(async () => {
    const kc = await adminClient('master');
    token = kc.accessToken ?? '';
    const { id } = await kc.users.create({ username: 'viewer', enabled: true });
    await kc.users.resetPassword({ id, credential: { type: 'password', value: 'viewer-pw' } });
    const form = new URLSearchParams({
      grant_type: 'password',
      client_id: 'admin-cli',
      username: 'viewer',
      password: 'viewer-pw',
    });
    const answer = await fetch(`${idp.url}/realms/master/protocol/openid-connect/token`, {
      method: 'POST',
      body: form,
    });
    userToken = ((await answer.json()) as { access_token: string }).access_token;
    ({ id: takenId } = await kc.users.create({ username: 'taken', enabled: true }));
    await kc.groups.create({ name: 'ops' });
    adminCliId = (await kc.clients.find({ clientId: 'admin-cli' }))[0]?.id ?? '';
  });

  const DEBUG = 'For more on this error consult the server log at the debug level.';
  const admin = (): Record<string, string> => ({
    authorization: `Bearer ${token}`,
    'content-type': 'application/json',
  });
  const M = '/admin/realms/master';
  const NO_ID = '0b5c2e8a-0000-4000-8000-000000000000';
  type Case = [string, number, Record<string, unknown>, () => RequestInit & { path: string }];
  const cases: Case[] = [
    [
      'no token',
      401,
      { error: 'HTTP 401 Unauthorized', error_description: DEBUG },
      () => ({ path: `${M}/users` }),
    ],
    [
      'a token that is not one',
      401,
      { error: 'HTTP 401 Unauthorized', error_description: DEBUG },
      () => ({ path: `${M}/users`, headers: { authorization: 'Bearer nonsense' } }),
    ],
    [
      'a token of a user without admin rights',
      403,
      { error: 'unknown_error', error_description: DEBUG },
      () => ({ path: `${M}/users`, headers: { authorization: `Bearer ${userToken}` } }),
    ],
    [
      'an unknown user',
      404,
      { error: 'User not found', error_description: DEBUG },
      () => ({ path: `${M}/users/${NO_ID}`, headers: admin() }),
    ],
    [
      'an unknown client',
      404,
      { error: 'Could not find client', error_description: DEBUG },
      () => ({ path: `${M}/clients/${NO_ID}`, headers: admin() }),
    ],
    [
      'the scope of an unknown client, composites expanded',
      404,
      { error: 'Could not find client', error_description: DEBUG },
      () => ({ path: `${M}/clients/${NO_ID}/scope-mappings/realm/composite`, headers: admin() }),
    ],
    [
      "an unknown client's roles in a known client's scope, composites expanded",
      404,
      { error: 'Could not find client', error_description: DEBUG },
      () => ({
        path: `${M}/clients/${adminCliId}/scope-mappings/clients/${NO_ID}/composite`,
        headers: admin(),
      }),
    ],
    [
      'an unknown role',
      404,
      { error: 'Could not find role', error_description: DEBUG },
      () => ({ path: `${M}/roles/nope`, headers: admin() }),
    ],
    [
      'an unknown group',
      404,
      { error: 'Could not find group by id', error_description: DEBUG },
      () => ({ path: `${M}/groups/${NO_ID}`, headers: admin() }),
    ],
    [
      'an unknown realm',
      404,
      { error: 'Realm does not exist', error_description: DEBUG },
      () => ({ path: '/admin/realms/nowhere/users', headers: admin() }),
    ],
    [
      'a role mapping of a role that does not exist',
      404,
      { error: 'Role not found', error_description: DEBUG },
      () => ({
        path: `${M}/users/${takenId}/role-mappings/realm`,
        method: 'POST',
        body: '[{"name":"nope"}]',
        headers: admin(),
      }),
    ],
    [
      'a username taken (in any case)',
      409,
      { errorMessage: 'User exists with same username' },
      () => ({
        path: `${M}/users`,
        method: 'POST',
        body: JSON.stringify({ username: 'TAKEN' }),
        headers: admin(),
      }),
    ],
    [
      'a clientId taken',
      409,
      { errorMessage: 'Client admin-cli already exists' },
      () => ({
        path: `${M}/clients`,
        method: 'POST',
        body: JSON.stringify({ clientId: 'admin-cli' }),
        headers: admin(),
      }),
    ],
    [
      'a role name taken',
      409,
      { errorMessage: 'Role with name admin already exists' },
      () => ({
        path: `${M}/roles`,
        method: 'POST',
        body: JSON.stringify({ name: 'admin' }),
        headers: admin(),
      }),
    ],
    [
      'a top-level group name taken',
      409,
      { errorMessage: "Top level group named 'ops' already exists." },
      () => ({
        path: `${M}/groups`,
        method: 'POST',
        body: JSON.stringify({ name: 'ops' }),
        headers: admin(),
      }),
    ],
    [
      'a body that is not JSON',
      400,
      { error: 'invalid_request', error_description: 'Cannot parse the JSON' },
      () => ({ path: `${M}/users`, method: 'POST', body: '{"username":', headers: admin() }),
    ],
    [
      'a field of the wrong type',
      400,
      {
        error: 'unknown_error',
        error_description:
          'Cannot parse the JSON: "enabled" of the user representation: Invalid input: expected boolean, received string',
      },
      () => ({
        path: `${M}/users`,
        method: 'POST',
        body: JSON.stringify({ username: 'x', enabled: 'yes' }),
        headers: admin(),
      }),
    ],
    [
      'an object where a list goes: the list named once',
      400,
      {
        error: 'unknown_error',
        error_description:
          'Cannot parse the JSON: the list of roles: Invalid input: expected array, received object',
      },
      () => ({
        path: `${M}/roles/admin/composites`,
        method: 'POST',
        body: JSON.stringify({ name: 'x' }),
        headers: admin(),
      }),
    ],
    [
      'a user without a username',
      400,
      { errorMessage: 'User name is missing' },
      () => ({
        path: `${M}/users`,
        method: 'POST',
        body: JSON.stringify({ email: 'x@y.test' }),
        headers: admin(),
      }),
    ],
  ];

  it.each(cases)('%s: %i', async (_name, status, body, request) => {
    const { path, ...init } = request();
    const answer = await fetch(`${idp.url}${path}`, init);
    expect(answer.status).toBe(status);
    expect(await answer.json()).toEqual(body);
  });

  it.each([401, 403, 404, 409, 400])('the admin client rejects with the status %i', async (status) => {
    const byStatus: Record<number, () => Promise<unknown>> = {
      401: () => new KcAdminClient({ baseUrl: idp.url }).users.find(),
      403: async () => {
        const kc = new KcAdminClient({ baseUrl: idp.url, realmName: 'master' });
        kc.setAccessToken(userToken);
        return kc.users.find();
      },
      404: async () => (await adminClient('master')).users.update({ id: NO_ID }, { firstName: 'x' }),
      409: async () => (await adminClient('master')).users.create({ username: 'taken' }),
      400: async () =>
        (await adminClient('master')).users.resetPassword({ id: takenId, credential: { type: 'password' } }),
    };
    await expect(byStatus[status]?.()).rejects.toMatchObject({ response: { status } });
  });

  it('a wrong admin password: 401 invalid_grant', async () => {
    const kc = new KcAdminClient({ baseUrl: idp.url, realmName: 'master' });
    await expect(
      kc.auth({ username: 'admin', password: 'wrong', grantType: 'password', clientId: 'admin-cli' }),
    ).rejects.toMatchObject({
      responseData: { error: 'invalid_grant', error_description: 'Invalid user credentials' },
    });
  });
});

describe('clients, roles, groups, realms and sessions through the admin client', () => {
  let kc: KcAdminClient;

  beforeAll(async () => {
    kc = await adminClient('master');
    await kc.realms.create({
      realm: 'depot',
      enabled: true,
      users: [{ username: 'dan', enabled: true, credentials: [{ type: 'password', value: 'dan-pw' }] }],
      clients: [{ clientId: 'depot-web', secret: 'depot-secret', directAccessGrantsEnabled: true }],
    });
    kc.setConfig({ realmName: 'depot' });
  });

  it('a new client is confidential with a secret that works; regenerating it retires the old one', async () => {
    const { id } = await kc.clients.create({ clientId: 'robot', serviceAccountsEnabled: true });
    const { value: first } = await kc.clients.getClientSecret({ id });
    const grant = (secret: string) =>
      fetch(`${idp.url}/realms/depot/protocol/openid-connect/token`, {
        method: 'POST',
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: 'robot',
          client_secret: secret,
        }),
      });
    expect((await grant(first ?? '')).status).toBe(200);
    const { value: second } = await kc.clients.generateNewClientSecret({ id });
    expect(second).not.toBe(first);
    expect((await grant(first ?? '')).status).toBe(401);
    expect((await grant(second ?? '')).status).toBe(200);
  });

  it('updates a client by merging and deletes it (its roles and service account with it)', async () => {
    const { id } = await kc.clients.create({
      clientId: 'temp',
      publicClient: true,
      redirectUris: ['http://a.test/cb'],
    });
    expect(await kc.clients.findOne({ id })).not.toHaveProperty('secret');
    await kc.clients.update({ id }, { name: 'Temporary' });
    expect(await kc.clients.findOne({ id })).toMatchObject({
      name: 'Temporary',
      publicClient: true,
      redirectUris: ['http://a.test/cb'],
    });
    await kc.clients.createRole({ id, name: 'temp-role' });
    expect((await kc.clients.listRoles({ id })).map((r) => r.name)).toEqual(['temp-role']);
    await kc.clients.del({ id });
    expect(await kc.clients.findOne({ id })).toBeNull();
    expect(await kc.clients.find({ clientId: 'temp' })).toEqual([]);
  });

  it('a client whose scope is not full: scope mappings made through the admin client limit its tokens, and follow a rename', async () => {
    await kc.roles.create({ name: 'packer' });
    await kc.roles.create({ name: 'driver' });
    const { id: stock } = await kc.clients.create({ clientId: 'stock', bearerOnly: true });
    await kc.clients.createRole({ id: stock, name: 'count' });
    await kc.clients.createRole({ id: stock, name: 'order' });
    const { id: narrow } = await kc.clients.create({
      clientId: 'narrow-web',
      secret: 'narrow-secret',
      directAccessGrantsEnabled: true,
      fullScopeAllowed: false,
    });
    // A user of its own: nia's sessions are counted below.
    const { id: danId } = await kc.users.create({
      username: 'nia',
      enabled: true,
      credentials: [{ type: 'password', value: 'nia-pw', temporary: false }],
    });
    const realmRole = async (name: string) => ({
      id: (await kc.roles.findOneByName({ name }))?.id ?? '',
      name,
    });
    const stockRole = async (roleName: string) => {
      const role = await kc.clients.findRole({ id: stock, roleName });
      return { id: role?.id ?? '', name: roleName };
    };
    await kc.users.addRealmRoleMappings({
      id: danId,
      roles: [await realmRole('packer'), await realmRole('driver')],
    });
    await kc.users.addClientRoleMappings({
      id: danId,
      clientUniqueId: stock,
      roles: [await stockRole('count'), await stockRole('order')],
    });
    const roles = async (): Promise<{ realm: unknown; stock: unknown }> => {
      const claims = await accessToken('depot', 'narrow-web', 'narrow-secret', 'nia', 'nia-pw');
      const resources = (claims['resource_access'] ?? {}) as Record<string, { roles: string[] }>;
      return {
        realm: (claims['realm_access'] as { roles: string[] } | undefined)?.roles ?? [],
        stock: resources['stock']?.roles ?? [],
      };
    };
    // Nothing in scope yet: none of nia's roles.
    expect(await roles()).toEqual({ realm: [], stock: [] });
    await kc.clients.addRealmScopeMappings({ id: narrow }, [await realmRole('packer')]);
    await kc.clients.addClientScopeMappings({ id: narrow, client: stock }, [await stockRole('count')]);
    expect(await roles()).toEqual({ realm: ['packer'], stock: ['count'] });
    expect((await kc.clients.listRealmScopeMappings({ id: narrow })).map((r) => r.name)).toEqual(['packer']);
    expect(
      (await kc.clients.listClientScopeMappings({ id: narrow, client: stock })).map((r) => r.name),
    ).toEqual(['count']);
    expect(
      (await kc.clients.listAvailableClientScopeMappings({ id: narrow, client: stock })).map((r) => r.name),
    ).toEqual(['order']);
    const all = await kc.clients.listScopeMappings({ id: narrow });
    expect(all.realmMappings?.map((r: { name?: string }) => r.name)).toEqual(['packer']);
    expect(
      (all.clientMappings?.['stock'] as { mappings?: { name?: string }[] } | undefined)?.mappings?.map(
        (r) => r.name,
      ),
    ).toEqual(['count']);
    // The composite views: what the scope reaches, composites expanded (a composite in scope brings its
    // roles), its own client roles included.
    await kc.roles.create({ name: 'lead' });
    await kc.roles.createComposite({ roleId: (await realmRole('lead')).id }, [await realmRole('driver')]);
    expect((await kc.clients.listCompositeRealmScopeMappings({ id: narrow })).map((r) => r.name)).toEqual([
      'packer',
    ]);
    await kc.clients.addRealmScopeMappings({ id: narrow }, [await realmRole('lead')]);
    expect(
      (await kc.clients.listCompositeRealmScopeMappings({ id: narrow })).map((r) => r.name).sort(),
    ).toEqual(['driver', 'lead', 'packer']);
    expect(await roles()).toEqual({ realm: ['packer', 'driver'], stock: ['count'] });
    await kc.clients.delRealmScopeMappings({ id: narrow }, [await realmRole('lead')]);
    expect(
      (await kc.clients.listCompositeClientScopeMappings({ id: narrow, client: stock })).map((r) => r.name),
    ).toEqual(['count']);
    // A client with a full scope reaches every role.
    const { id: wide } = await kc.clients.create({ clientId: 'wide-web', fullScopeAllowed: true });
    expect(
      (await kc.clients.listCompositeClientScopeMappings({ id: wide, client: stock })).map((r) => r.name),
    ).toEqual(['count', 'order']);
    await kc.clients.del({ id: wide });
    // A renamed role stays in scope under its new name; one taken out of scope leaves the tokens.
    await kc.roles.updateByName({ name: 'packer' }, { name: 'boxer' });
    expect(await roles()).toEqual({ realm: ['boxer'], stock: ['count'] });
    await kc.clients.delClientScopeMappings({ id: narrow, client: stock }, [await stockRole('count')]);
    expect(await roles()).toEqual({ realm: ['boxer'], stock: [] });
    // With a full scope again, every role of nia's.
    await kc.clients.update({ id: narrow }, { fullScopeAllowed: true });
    const full = await roles();
    expect(full.realm).toEqual(expect.arrayContaining(['boxer', 'driver', 'default-roles-depot']));
    expect(full.stock).toEqual(['count', 'order']);
  });

  it('lists the roles every realm has, updates and deletes a role (mappings of it go too)', async () => {
    const names = (await kc.roles.find()).map((r) => r.name);
    expect(names).toEqual(
      expect.arrayContaining(['default-roles-depot', 'offline_access', 'uma_authorization']),
    );
    await kc.roles.create({ name: 'picker' });
    await kc.roles.updateByName({ name: 'picker' }, { name: 'picker', description: 'Picks orders' });
    expect(await kc.roles.findOneByName({ name: 'picker' })).toMatchObject({
      description: 'Picks orders',
      composite: false,
    });
    const [dan] = await kc.users.find({ username: 'dan', exact: true });
    await kc.users.addRealmRoleMappings({ id: dan!.id!, roles: [{ name: 'picker', id: '' }] });
    await kc.roles.delByName({ name: 'picker' });
    expect((await kc.users.listRealmRoleMappings({ id: dan!.id! })).map((r) => r.name)).not.toContain(
      'picker',
    );
  });

  it('renames a group (its members follow) and deletes it', async () => {
    const { id } = await kc.groups.create({ name: 'night' });
    const { id: child } = await kc.groups.createChildGroup({ id }, { name: 'shift' });
    const [dan] = await kc.users.find({ username: 'dan', exact: true });
    await kc.users.addToGroup({ id: dan!.id!, groupId: child });
    await kc.groups.update({ id }, { name: 'late' });
    expect((await kc.users.listGroups({ id: dan!.id! })).map((g) => g.path)).toEqual(['/late/shift']);
    expect(await kc.groups.findOne({ id })).toMatchObject({ name: 'late', path: '/late', subGroupCount: 1 });
    await kc.groups.del({ id });
    expect(await kc.users.listGroups({ id: dan!.id! })).toEqual([]);
  });

  it('takes a trailing slash, and a DELETE with a JSON body', async () => {
    const headers = { authorization: `Bearer ${kc.accessToken ?? ''}`, 'content-type': 'application/json' };
    const list = await fetch(`${idp.url}/admin/realms/depot/users/`, { headers });
    expect(list.status).toBe(200);
    const { id } = await kc.users.create({ username: 'gone', enabled: true });
    const deleted = await fetch(`${idp.url}/admin/realms/depot/users/${id}/`, {
      method: 'DELETE',
      headers,
      body: '{}',
    });
    expect(deleted.status).toBe(204);
  });

  it('partialImport adds, skips and overwrites', async () => {
    const first = await kc.realms.partialImport({
      realm: 'depot',
      rep: { ifResourceExists: 'SKIP', users: [{ username: 'dan' }, { username: 'eve', enabled: true }] },
    });
    expect(first).toMatchObject({ added: 1, skipped: 1, overwritten: 0 });
    const again = await kc.realms.partialImport({
      realm: 'depot',
      rep: { ifResourceExists: 'OVERWRITE', users: [{ username: 'eve', enabled: true, firstName: 'Eve' }] },
    });
    expect(again).toMatchObject({ added: 0, skipped: 0, overwritten: 1 });
    expect((await kc.users.find({ username: 'eve', exact: true }))[0]).toMatchObject({ firstName: 'Eve' });
  });

  it('lists sessions and logs a user out: her refresh token stops working', async () => {
    const token = await fetch(`${idp.url}/realms/depot/protocol/openid-connect/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'password',
        client_id: 'depot-web',
        client_secret: 'depot-secret',
        username: 'dan',
        password: 'dan-pw',
      }),
    });
    const { refresh_token: refresh } = (await token.json()) as { refresh_token: string };
    const [dan] = await kc.users.find({ username: 'dan', exact: true });
    const sessions = await kc.users.listSessions({ id: dan!.id! });
    expect(sessions).toHaveLength(1);
    expect(sessions[0]).toMatchObject({ userId: dan!.id, username: 'dan' });
    await kc.users.logout({ id: dan!.id! });
    expect(await kc.users.listSessions({ id: dan!.id! })).toEqual([]);
    const refreshed = await fetch(`${idp.url}/realms/depot/protocol/openid-connect/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        client_id: 'depot-web',
        client_secret: 'depot-secret',
        refresh_token: refresh,
      }),
    });
    expect(refreshed.status).toBe(400);
  });

  it('reads and updates the realm, lists it, and deletes it', async () => {
    await kc.realms.update({ realm: 'depot' }, { displayName: 'The Depot' });
    expect(await kc.realms.findOne({ realm: 'depot' })).toMatchObject({
      realm: 'depot',
      displayName: 'The Depot',
      enabled: true,
    });
    expect((await kc.realms.find()).map((r) => r.realm)).toContain('depot');
    await kc.realms.del({ realm: 'depot' });
    expect((await kc.realms.find()).map((r) => r.realm)).not.toContain('depot');
    expect((await fetch(`${idp.url}/realms/depot/.well-known/openid-configuration`)).status).toBe(404);
  });
});

describe('what an admin change keeps, and what a realm made again does not', () => {
  let kc: KcAdminClient;

  beforeAll(async () => {
    kc = await adminClient('master');
  });

  /** A client registered by RFC 7591 at the realm (open registration), for client_credentials. */
  async function registerClient(
    realm: string,
  ): Promise<{ id: string; secret: string; uri: string; rat: string }> {
    const response = await fetch(`${idp.url}/realms/${realm}/clients-registrations/openid-connect`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'registered', grant_types: ['client_credentials'] }),
    });
    expect(response.status).toBe(201);
    const body = (await response.json()) as Record<string, string>;
    return {
      id: body['client_id'] ?? '',
      secret: body['client_secret'] ?? '',
      uri: body['registration_client_uri'] ?? '',
      rat: body['registration_access_token'] ?? '',
    };
  }

  const serviceToken = (realm: string, clientId: string, secret: string): Promise<Claims> =>
    serviceAccessToken(idp, realm, clientId, secret);

  it('a client made by dynamic registration still gets tokens after admin changes to its realm', async () => {
    await kc.realms.create({ realm: 'registry', enabled: true });
    const registered = await registerClient('registry');
    expect((await serviceToken('registry', registered.id, registered.secret))['azp']).toBe(registered.id);
    // Changes of every kind through the admin API: a user, the realm's settings, a role, a client.
    await kc.users.create({ realm: 'registry', username: 'newcomer', enabled: true });
    await kc.realms.update({ realm: 'registry' }, { displayName: 'The Registry' });
    await kc.roles.create({ realm: 'registry', name: 'auditor' });
    await kc.clients.create({ realm: 'registry', clientId: 'admin-made', publicClient: true });
    expect((await serviceToken('registry', registered.id, registered.secret))['azp']).toBe(registered.id);
    // Its registration stays readable with its registration access token.
    const read = await fetch(registered.uri, { headers: { authorization: `Bearer ${registered.rat}` } });
    expect(read.status).toBe(200);
  });

  it('a realm deleted and made again has a new signing key and new client secrets', async () => {
    const phoenix = {
      realm: 'phoenix',
      enabled: true,
      clients: [{ clientId: 'rising', serviceAccountsEnabled: true, publicClient: false }],
    };
    await kc.realms.create(phoenix);
    const clientSecret = async (): Promise<string> => {
      const [found] = await kc.clients.find({ realm: 'phoenix', clientId: 'rising' });
      return (await kc.clients.getClientSecret({ realm: 'phoenix', id: found!.id! })).value ?? '';
    };
    const before = await clientSecret();
    const response = await fetch(`${idp.url}/realms/phoenix/protocol/openid-connect/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: 'rising',
        client_secret: before,
      }),
    });
    expect(response.status).toBe(200);
    const oldToken = ((await response.json()) as { access_token: string }).access_token;
    const oldKid = decodeProtectedHeader(oldToken).kid;

    await kc.realms.del({ realm: 'phoenix' });
    await kc.realms.create(phoenix);
    const issuer = `${idp.url}/realms/phoenix`;
    const jwks = createRemoteJWKSet(new URL(`${issuer}/protocol/openid-connect/certs`));
    await expect(jwtVerify(oldToken, jwks, { issuer, currentDate: idp.clock.now() })).rejects.toThrow();
    const after = await clientSecret();
    expect(after).not.toBe(before);
    const claims = await serviceToken('phoenix', 'rising', after);
    expect(claims['azp']).toBe('rising');
    const fresh = await fetch(`${issuer}/protocol/openid-connect/certs`);
    const kids = ((await fresh.json()) as { keys: { kid: string }[] }).keys.map((k) => k.kid);
    expect(kids).not.toContain(oldKid);
  });

  it('a fixture realm deleted and made again has a new signing key and new generated client secrets', async () => {
    const own = await startIdp({ fixtures: ACME });
    try {
      const atOwn = new KcAdminClient({ baseUrl: own.url, realmName: 'master' });
      await atOwn.auth({
        username: 'admin',
        password: 'admin',
        grantType: 'password',
        clientId: 'admin-cli',
      });
      atOwn.setConfig({ realmName: 'acme' });
      /** The secret generated for `legacy-saml`, a confidential client the file gives none. */
      const madeSecret = async (): Promise<string> => {
        const [legacy] = await atOwn.clients.find({ clientId: 'legacy-saml' });
        return (await atOwn.clients.getClientSecret({ id: legacy!.id! })).value ?? '';
      };
      const before = await madeSecret();
      const answer = await postForm(`${own.url}/realms/acme/protocol/openid-connect/token`, {
        grant_type: 'client_credentials',
        client_id: 'billing-job',
        client_secret: 'job-secret',
      });
      expect(answer.status).toBe(200);
      const old = String(answer.json['access_token']);
      await atOwn.realms.del({ realm: 'acme' });
      await atOwn.realms.create(JSON.parse(readFileSync(ACME, 'utf8')) as Record<string, unknown>);
      const jwks = (await (
        await fetch(`${own.url}/realms/acme/protocol/openid-connect/certs`)
      ).json()) as JSONWebKeySet;
      expect(jwks.keys.map((k) => k.kid)).not.toContain(decodeProtectedHeader(old).kid);
      await expect(jwtVerify(old, createLocalJWKSet(jwks))).rejects.toThrow();
      expect(await madeSecret()).not.toBe(before);
    } finally {
      await own.close();
    }
  });

  it('renames a realm role and a client role, as Keycloak does: mappings and composites follow', async () => {
    await kc.realms.create({
      realm: 'renames',
      enabled: true,
      clients: [{ clientId: 'shelf', secret: 'shelf-secret', directAccessGrantsEnabled: true }],
      users: [{ username: 'rita', enabled: true, credentials: [{ type: 'password', value: 'rita-pw' }] }],
    });
    kc.setConfig({ realmName: 'renames' });
    try {
      const [shelf] = await kc.clients.find({ clientId: 'shelf' });
      const shelfId = shelf!.id!;
      const [rita] = await kc.users.find({ username: 'rita', exact: true });
      await kc.roles.create({ name: 'clerk' });
      await kc.roles.create({ name: 'manager' });
      await kc.roles.create({ name: 'taken' });
      const clerk = await kc.roles.findOneByName({ name: 'clerk' });
      const manager = await kc.roles.findOneByName({ name: 'manager' });
      await kc.roles.createComposite({ roleId: manager!.id! }, [clerk!]);
      await kc.users.addRealmRoleMappings({ id: rita!.id!, roles: [{ id: manager!.id!, name: 'manager' }] });
      await kc.clients.createRole({ id: shelfId, name: 'stock' });
      const stock = await kc.clients.findRole({ id: shelfId, roleName: 'stock' });
      await kc.users.addClientRoleMappings({
        id: rita!.id!,
        clientUniqueId: shelfId,
        roles: [{ id: stock!.id!, name: 'stock' }],
      });

      await kc.roles.updateByName({ name: 'clerk' }, { name: 'cashier', description: 'Takes payments' });
      await kc.roles.updateById({ id: manager!.id! }, { name: 'head-cashier' });
      await kc.clients.updateRole({ id: shelfId, roleName: 'stock' }, { name: 'inventory' });

      expect(await kc.roles.findOneByName({ name: 'clerk' })).toBeNull();
      expect(await kc.roles.findOneByName({ name: 'cashier' })).toMatchObject({
        id: clerk!.id,
        description: 'Takes payments',
      });
      expect((await kc.roles.getCompositeRoles({ id: manager!.id! })).map((r) => r.name)).toEqual([
        'cashier',
      ]);
      expect((await kc.users.listRealmRoleMappings({ id: rita!.id! })).map((r) => r.name)).toContain(
        'head-cashier',
      );
      expect((await kc.clients.listRoles({ id: shelfId })).map((r) => r.name)).toEqual(['inventory']);
      const claims = await accessToken('renames', 'shelf', 'shelf-secret', 'rita', 'rita-pw');
      const realmRoles = (claims['realm_access'] as { roles: string[] }).roles;
      expect(realmRoles).toEqual(expect.arrayContaining(['head-cashier', 'cashier']));
      expect(realmRoles).not.toContain('manager');
      expect(realmRoles).not.toContain('clerk');
      expect((claims['resource_access'] as Record<string, { roles: string[] }>)['shelf']?.roles).toEqual([
        'inventory',
      ]);
    } finally {
      kc.setConfig({ realmName: 'master' });
    }
  });

  it.each([
    ['a realm role, to a name another role has', 409, 'Role with same name exists'],
    ['the realm default role', 400, "The realm's default role cannot be renamed here"],
  ])('refuses to rename %s', async (what, status, errorMessage) => {
    const from = what.startsWith('the realm default') ? 'default-roles-renames' : 'cashier';
    const to = what.startsWith('the realm default') ? 'everyone' : 'taken';
    const token = kc.accessToken ?? '';
    const answer = await fetch(`${idp.url}/admin/realms/renames/roles/${from}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: to }),
    });
    expect(answer.status).toBe(status);
    expect(await answer.json()).toEqual({ errorMessage });
  });

  it('refuses to rename a client role to a name the client has: 409', async () => {
    kc.setConfig({ realmName: 'renames' });
    try {
      const [shelf] = await kc.clients.find({ clientId: 'shelf' });
      await kc.clients.createRole({ id: shelf!.id!, name: 'audit' });
      await expect(
        kc.clients.updateRole({ id: shelf!.id!, roleName: 'audit' }, { name: 'inventory' }),
      ).rejects.toMatchObject({ response: { status: 409 } });
    } finally {
      kc.setConfig({ realmName: 'master' });
    }
  });
});
