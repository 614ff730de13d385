// The admin REST API driven by @keycloak/keycloak-admin-client, as a suite written against Keycloak drives
// it: a realm, clients, roles, groups and users made through it, then their tokens got with openid-client and
// verified with jose, role by role.
import KcAdminClient from '@keycloak/keycloak-admin-client';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as client from 'openid-client';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Claims } from '../helpers/jwt.js';
import { useIdp } from '../helpers/server.js';

const insecure = { execute: [client.allowInsecureRequests] };
const idp = useIdp({ fixtures: [], seed: 'admin-api' });

async function adminClient(realmName = 'shop'): Promise<KcAdminClient> {
  const kc = new KcAdminClient({ baseUrl: idp.url, realmName: 'master' });
  await kc.auth({ username: 'admin', password: 'admin', grantType: 'password', clientId: 'admin-cli' });
  kc.setConfig({ realmName });
  return kc;
}

/** The password grant through openid-client, the access token verified with jose against the realm's JWKS. */
async function accessToken(
  realm: string,
  clientId: string,
  secret: string,
  username: string,
  password: string,
): Promise<Claims> {
  const issuer = `${idp.url}/realms/${realm}`;
  const config = await client.discovery(
    new URL(issuer),
    clientId,
    undefined,
    client.ClientSecretBasic(secret),
    insecure,
  );
  const tokens = await client.genericGrantRequest(config, 'password', {
    username,
    password,
    scope: 'openid',
  });
  const jwks = createRemoteJWKSet(new URL(`${issuer}/protocol/openid-connect/certs`));
  const { payload } = await jwtVerify(tokens.access_token, jwks, { issuer, currentDate: idp.clock.now() });
  return payload as Claims;
}

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
    const [staff] = await kc.groups.find({ search: 'leads' });
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
    await kc.users.create({ username: 'taken', enabled: true });
  });

  const cases: [string, () => RequestInit & { path: string }, number, Record<string, string>][] = [
    ['no token', () => ({ path: '/admin/realms/master/users' }), 401, { error: 'HTTP 401 Unauthorized' }],
    [
      'a bad token',
      () => ({ path: '/admin/realms/master/users', headers: { authorization: 'Bearer nonsense' } }),
      401,
      { error: 'HTTP 401 Unauthorized' },
    ],
    [
      'a token of a user who is not an admin',
      () => ({ path: '/admin/realms/master/users', headers: { authorization: `Bearer ${userToken}` } }),
      403,
      { error: 'HTTP 403 Forbidden' },
    ],
    [
      'an unknown user',
      () => ({
        path: '/admin/realms/master/users/0b5c2e8a-0000-4000-8000-000000000000',
        headers: { authorization: `Bearer ${token}` },
      }),
      404,
      { error: 'User not found' },
    ],
    [
      'an unknown realm',
      () => ({ path: '/admin/realms/nowhere/users', headers: { authorization: `Bearer ${token}` } }),
      404,
      { error: 'Realm not found.' },
    ],
    [
      'a duplicate username',
      () => ({
        path: '/admin/realms/master/users',
        method: 'POST',
        body: JSON.stringify({ username: 'TAKEN' }),
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      }),
      409,
      { errorMessage: 'User exists with same username' },
    ],
    [
      'a body that is not JSON',
      () => ({
        path: '/admin/realms/master/users',
        method: 'POST',
        body: '{"username":',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      }),
      400,
      { errorMessage: 'The body is not JSON: send a JSON representation' },
    ],
    [
      'a field of the wrong type',
      () => ({
        path: '/admin/realms/master/users',
        method: 'POST',
        body: JSON.stringify({ username: 'x', enabled: 'yes' }),
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      }),
      400,
      {
        errorMessage:
          'Invalid user representation: "enabled": Invalid input: expected boolean, received string',
      },
    ],
  ];

  it.each(cases)('%s', async (_name, request, status, body) => {
    const { path, ...init } = request();
    const answer = await fetch(`${idp.url}${path}`, init);
    expect(answer.status).toBe(status);
    expect(await answer.json()).toEqual(body);
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
