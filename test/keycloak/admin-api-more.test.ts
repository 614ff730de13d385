// Admin REST API endpoints admin-api.test.ts does not call, driven by @keycloak/keycloak-admin-client (plain
// fetch where it has no method) against the acme realm JSON: what each answers, as Keycloak does, and what it
// changes, down to the claims of the next token.
import type KcAdminClient from '@keycloak/keycloak-admin-client';
import { UnmanagedAttributePolicy } from '@keycloak/keycloak-admin-client/lib/defs/userProfileMetadata.js';
import { importSPKI, jwtVerify } from 'jose';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { adminClient, adminRequest, passwordAccessToken } from '../helpers/admin.js';
import { postForm, type Answer } from '../helpers/http.js';
import { decode } from '../helpers/jwt.js';
import { useIdp } from '../helpers/server.js';

const ACME = fileURLToPath(new URL('../fixtures-data/keycloak/acme-realm.json', import.meta.url));
const DEBUG = 'For more on this error consult the server log at the debug level.';
const NO_ID = '0b5c2e8a-0000-4000-8000-000000000000';

const idp = useIdp({ fixtures: ACME, seed: 'admin-api-more' });

let kc: KcAdminClient;
beforeAll(async () => {
  kc = await adminClient(idp, 'acme');
});

/** The id of a user of acme by username. */
async function userId(username: string): Promise<string> {
  const [user] = await kc.users.find({ username, exact: true });
  return user?.id ?? '';
}

/** The id (UUID) of a client of acme by clientId. */
async function clientUuid(clientId: string): Promise<string> {
  const [client] = await kc.clients.find({ clientId });
  return client?.id ?? '';
}

/** The id of a top-level group of acme by name. */
async function groupId(name: string): Promise<string> {
  return (await kc.groups.find()).find((g) => g.name === name)?.id ?? '';
}

/** A request to /admin/realms/acme with the admin token, for what the admin client has no method for. */
const admin = (method: string, path: string, body?: unknown): Promise<Answer<unknown>> =>
  adminRequest(idp, kc, 'acme', method, path, body);

/** The access token claims of a user of acme through web-app (password grant). */
const webAppClaims = (username: string, password: string) =>
  passwordAccessToken(idp, 'acme', 'web-app', 'web-secret', username, password);

const realmRoles = (claims: Record<string, unknown>): string[] =>
  (claims['realm_access'] as { roles: string[] } | undefined)?.roles ?? [];
const clientRoles = (claims: Record<string, unknown>, clientId: string): string[] =>
  (claims['resource_access'] as Record<string, { roles: string[] }> | undefined)?.[clientId]?.roles ?? [];

describe("a group's client role mappings, and the views of a holder's mappings", () => {
  it("POST /groups/{id}/role-mappings/clients/{client}: the members' next token has the client role; GET …/role-mappings, …/composite and …/available show it", async () => {
    const partners = await groupId('partners');
    const reports = await clientUuid('reports');
    const [view] = (await kc.clients.listRoles({ id: reports })).filter((r) => r.name === 'view');
    expect(clientRoles(await webAppClaims('dave', 'dave-pw'), 'reports')).not.toContain('view');

    await kc.groups.addClientRoleMappings({
      id: partners,
      clientUniqueId: reports,
      roles: [{ id: view!.id!, name: 'view' }],
    });
    expect(
      (await kc.groups.listClientRoleMappings({ id: partners, clientUniqueId: reports })).map((r) => r.name),
    ).toEqual(['view']);
    expect(
      (await kc.groups.listCompositeClientRoleMappings({ id: partners, clientUniqueId: reports })).map(
        (r) => r.name,
      ),
    ).toContain('view');
    expect(
      (await kc.groups.listAvailableClientRoleMappings({ id: partners, clientUniqueId: reports })).map(
        (r) => r.name,
      ),
    ).not.toContain('view');
    const all = await kc.groups.listRoleMappings({ id: partners });
    const reportsMappings = (
      all.clientMappings as Record<string, { mappings: { name?: string }[] }> | undefined
    )?.['reports'];
    expect(reportsMappings?.mappings.map((r) => r.name)).toEqual(['view']);
    expect(all.realmMappings?.map((r) => r.name)).toEqual(['loop-a']);
    expect(clientRoles(await webAppClaims('dave', 'dave-pw'), 'reports')).toContain('view');

    await kc.groups.delClientRoleMappings({
      id: partners,
      clientUniqueId: reports,
      roles: [{ id: view!.id!, name: 'view' }],
    });
    expect(clientRoles(await webAppClaims('dave', 'dave-pw'), 'reports')).not.toContain('view');
  });

  it('GET /users/{id}/role-mappings/realm/available: the realm roles not mapped to the user', async () => {
    const dave = await userId('dave');
    const available = (await kc.users.listAvailableRealmRoleMappings({ id: dave })).map((r) => r.name);
    expect(available).toContain('admin');
    expect(available).not.toContain('default-roles-acme');
  });
});

describe('a group by its path', () => {
  it.each([
    ['a top-level group', 'staff', 200],
    ['a subgroup', 'staff/engineering/platform', 200],
    ['no such group', 'staff/nope', 404],
  ])('GET /group-by-path/{path}, %s: %i', async (_what, path, status) => {
    const answer = await admin('GET', `/group-by-path/${path}`);
    expect(answer.status).toBe(status);
    if (status === 200) expect(answer.json).toMatchObject({ path: `/${path}`, name: path.split('/').pop() });
  });

  it("the admin client's getGroupByPath finds it", async () => {
    const group = await kc.realms.getGroupByPath({ realm: 'acme', path: 'staff/engineering' });
    expect(group).toMatchObject({ name: 'engineering', path: '/staff/engineering' });
  });
});

describe('moving groups', () => {
  it('POST /groups/{id}/children with a group of the realm moves it there (204), its members with it; a new child is answered with its representation', async () => {
    const { id: from } = await kc.groups.create({ name: 'mv-from' });
    const { id: to } = await kc.groups.create({ name: 'mv-to' });
    const { id: member } = await kc.users.create({ username: 'mover', enabled: true });
    await kc.users.addToGroup({ id: member, groupId: from });

    await kc.groups.updateChildGroup({ id: to }, { id: from, name: 'mv-from' });
    expect((await kc.groups.find()).map((g) => g.name)).not.toContain('mv-from');
    expect((await kc.groups.findOne({ id: from }))?.path).toBe('/mv-to/mv-from');
    expect((await kc.users.listGroups({ id: member })).map((g) => g.path)).toEqual(['/mv-to/mv-from']);
    // And back to the top level through POST /groups.
    expect((await admin('POST', '/groups', { id: from, name: 'mv-from' })).status).toBe(204);
    expect((await kc.groups.findOne({ id: from }))?.path).toBe('/mv-from');

    const child = await admin('POST', `/groups/${to}/children`, { name: 'fresh' });
    expect(child.status).toBe(201);
    expect(child.json).toMatchObject({ name: 'fresh', path: '/mv-to/fresh', parentId: to, subGroups: [] });
    const freshId = (child.json as { id: string }).id;
    // Already there: 204, nothing changes. Into itself or below itself: 400.
    expect((await admin('POST', `/groups/${to}/children`, { id: freshId })).status).toBe(204);
    expect((await admin('POST', `/groups/${from}/children`, { id: from })).status).toBe(400);
    expect((await admin('POST', `/groups/${freshId}/children`, { id: to })).status).toBe(400);
    await kc.users.del({ id: member });
  });
});

describe("a user's groups", () => {
  it('DELETE /users/{id}/groups/{groupId}: 204, the user leaves it, and the next token is without it and its roles', async () => {
    const bob = await userId('bob');
    const staff = await groupId('staff');
    const before = await webAppClaims('bob', 'bob-pw');
    expect(before['groups']).toEqual(['/staff']);
    expect(realmRoles(before)).toContain('user');

    await kc.users.delFromGroup({ id: bob, groupId: staff });
    expect(await kc.users.listGroups({ id: bob })).toEqual([]);
    expect(await kc.users.countGroups({ id: bob })).toEqual({ count: 0 });
    expect((await kc.groups.listMembers({ id: staff })).map((u) => u.username)).not.toContain('bob');
    const after = await webAppClaims('bob', 'bob-pw');
    expect(after['groups'] ?? []).toEqual([]);
    expect(realmRoles(after)).not.toContain('user');
    // Leaving a group the user is not in answers 204 too, as Keycloak's does.
    const again = await admin('DELETE', `/users/${bob}/groups/${staff}`);
    expect([again.status, again.text]).toEqual([204, '']);
  });

  it.each([
    ['an unknown user', 404, 'user', 'User not found'],
    ['an unknown group', 404, 'group', 'Could not find group by id'],
  ])('DELETE /users/{id}/groups/{groupId} of %s: %i', async (_name, status, unknown, error) => {
    const bob = unknown === 'user' ? NO_ID : await userId('bob');
    const group = unknown === 'group' ? NO_ID : await groupId('staff');
    const answer = await admin('DELETE', `/users/${bob}/groups/${group}`);
    expect(answer.status).toBe(status);
    expect(answer.json).toEqual({ error, error_description: DEBUG });
  });
});

describe("a user's client role mappings", () => {
  it('GET /users/{id}/role-mappings/clients/{client}: the roles of that client mapped to the user', async () => {
    const billing = await clientUuid('billing');
    const roles = await kc.users.listClientRoleMappings({ id: await userId('bob'), clientUniqueId: billing });
    expect(roles).toEqual([
      {
        id: (await kc.clients.findRole({ id: billing, roleName: 'invoice-read' }))?.id,
        name: 'invoice-read',
        composite: false,
        clientRole: true,
        containerId: billing,
        attributes: {},
      },
    ]);
    // A client none of whose roles the user has: an empty list.
    expect(
      await kc.users.listClientRoleMappings({
        id: await userId('bob'),
        clientUniqueId: await clientUuid('reports'),
      }),
    ).toEqual([]);
  });

  it('DELETE /users/{id}/role-mappings/clients/{client}: 204, the mapping and the claims from it are gone', async () => {
    const bob = await userId('bob');
    const billing = await clientUuid('billing');
    const before = await webAppClaims('bob', 'bob-pw');
    expect(clientRoles(before, 'billing')).toEqual(['invoice-read']);
    expect(before['billing_roles']).toEqual(['invoice-read']);
    const [read] = await kc.users.listClientRoleMappings({ id: bob, clientUniqueId: billing });

    await kc.users.delClientRoleMappings({
      id: bob,
      clientUniqueId: billing,
      roles: [{ id: read!.id!, name: 'invoice-read' }],
    });
    expect(await kc.users.listClientRoleMappings({ id: bob, clientUniqueId: billing })).toEqual([]);
    expect((await kc.users.listRoleMappings({ id: bob })).clientMappings).toBeUndefined();
    const after = await webAppClaims('bob', 'bob-pw');
    expect(clientRoles(after, 'billing')).toEqual([]);
    expect(after['billing_roles']).toBeUndefined();
    // Removing a role the user no longer has: 204 again; a role the client does not have: 404.
    const again = await admin('DELETE', `/users/${bob}/role-mappings/clients/${billing}`, [
      { id: read!.id, name: 'invoice-read' },
    ]);
    expect([again.status, again.text]).toEqual([204, '']);
    const unknown = await admin('DELETE', `/users/${bob}/role-mappings/clients/${billing}`, [
      { name: 'nope' },
    ]);
    expect(unknown.status).toBe(404);
    expect(unknown.json).toEqual({ error: 'Role not found', error_description: DEBUG });
  });

  it.each([
    ['GET', 'an unknown client', 404, 'Could not find client'],
    ['DELETE', 'an unknown client', 404, 'Could not find client'],
  ])('%s /users/{id}/role-mappings/clients/{client} of %s: %i', async (method, _name, status, error) => {
    const answer = await admin(method, `/users/${await userId('dave')}/role-mappings/clients/${NO_ID}`, []);
    expect(answer.status).toBe(status);
    expect(answer.json).toEqual({ error, error_description: DEBUG });
  });
});

describe('deleting a client role', () => {
  it("DELETE /clients/{id}/roles/{role}: 204, the role is gone, and so is every user's and group's mapping to it", async () => {
    const reports = await clientUuid('reports');
    const serviceAccount = await kc.clients.getServiceAccountUser({ id: await clientUuid('billing-job') });
    const job = () =>
      postForm(`${idp.url}/realms/acme/protocol/openid-connect/token`, {
        grant_type: 'client_credentials',
        client_id: 'billing-job',
        client_secret: 'job-secret',
      });
    const before = decode(String((await job()).json['access_token'])).claims;
    expect(clientRoles(before, 'reports')).toEqual(['view']);
    expect(
      (await kc.users.listClientRoleMappings({ id: serviceAccount!.id!, clientUniqueId: reports })).map(
        (r) => r.name,
      ),
    ).toEqual(['view']);

    await kc.clients.delRole({ id: reports, roleName: 'view' });
    expect(await kc.clients.listRoles({ id: reports })).toEqual([]);
    expect(await kc.clients.findRole({ id: reports, roleName: 'view' })).toBeNull();
    expect(
      await kc.users.listClientRoleMappings({ id: serviceAccount!.id!, clientUniqueId: reports }),
    ).toEqual([]);
    const [staff] = await kc.groups.find({ search: 'engineering' });
    expect(staff?.subGroups?.[0]).toMatchObject({ name: 'engineering' });
    const engineering = await kc.groups.findOne({ id: staff!.subGroups![0]!.id! });
    // As Keycloak represents a group: a client whose roles it no longer has is not listed.
    expect(engineering?.clientRoles).toEqual({});
    const after = decode(String((await job()).json['access_token'])).claims;
    expect(clientRoles(after, 'reports')).toEqual([]);
  });

  it.each([
    ['a role the client does not have', 'reports', 'nope', 'Could not find role'],
    ['an unknown client', NO_ID, 'view', 'Could not find client'],
  ])('DELETE /clients/{id}/roles/{role} of %s: 404', async (_name, client, role, error) => {
    const id = client === NO_ID ? NO_ID : await clientUuid(client);
    const answer = await admin('DELETE', `/clients/${id}/roles/${role}`);
    expect(answer.status).toBe(404);
    expect(answer.json).toEqual({ error, error_description: DEBUG });
  });
});

describe("removing a role's composites", () => {
  it('DELETE /roles-by-id/{id}/composites (delCompositeRoles): 204, and the next token of a user with the role is without the removed ones', async () => {
    const adminRole = await kc.roles.findOneByName({ name: 'admin' });
    const billing = await clientUuid('billing');
    const write = await kc.clients.findRole({ id: billing, roleName: 'invoice-write' });
    const before = await webAppClaims('alice', 'alice-pw');
    expect(clientRoles(before, 'billing').sort()).toEqual(['invoice-read', 'invoice-write']);

    await kc.roles.delCompositeRoles({ id: adminRole!.id! }, [write!]);
    expect((await kc.roles.getCompositeRoles({ id: adminRole!.id! })).map((r) => r.name).sort()).toEqual([
      'auditor',
      'user',
    ]);
    const after = await webAppClaims('alice', 'alice-pw');
    expect(clientRoles(after, 'billing')).toEqual([]);
    expect(realmRoles(after)).toEqual(expect.arrayContaining(['admin', 'user', 'auditor']));
  });

  it('DELETE /roles/{role}/composites: 204; the role is no longer composite once it has none', async () => {
    const user = await kc.roles.findOneByName({ name: 'user' });
    const auditor = await kc.roles.findOneByName({ name: 'auditor' });
    const answer = await admin('DELETE', '/roles/admin/composites', [{ id: user!.id, name: 'user' }]);
    expect([answer.status, answer.text]).toEqual([204, '']);
    expect(
      (await kc.roles.getCompositeRoles({ id: (await kc.roles.findOneByName({ name: 'admin' }))!.id! })).map(
        (r) => r.name,
      ),
    ).toEqual(['auditor']);
    await admin('DELETE', '/roles/admin/composites', [{ id: auditor!.id, name: 'auditor' }]);
    expect(await kc.roles.findOneByName({ name: 'admin' })).toMatchObject({
      name: 'admin',
      composite: false,
    });
    expect((await admin('GET', '/roles/admin/composites')).json).toEqual([]);
  });

  it.each([
    ['an unknown role', '/roles/nope/composites', 'Could not find role'],
    ['an unknown role id', `/roles-by-id/${NO_ID}/composites`, 'Could not find role with id'],
  ])('DELETE of the composites of %s: 404', async (_name, path, error) => {
    const answer = await admin('DELETE', path, []);
    expect(answer.status).toBe(404);
    expect(answer.json).toEqual({ error, error_description: DEBUG });
  });
});

describe('the realm representation', () => {
  it("GET /{realm}: Keycloak's settings (its defaults where the file sets none) and the default role a suite adds roles to", async () => {
    const realm = await kc.realms.findOne({ realm: 'acme' });
    const role = await kc.roles.findOneByName({ name: 'default-roles-acme' });
    expect(realm).toMatchObject({
      realm: 'acme',
      enabled: true,
      sslRequired: 'external',
      loginWithEmailAllowed: true,
      duplicateEmailsAllowed: false,
      registrationAllowed: false,
      defaultSignatureAlgorithm: 'RS256',
      accessCodeLifespan: 30, // the file's
      accessCodeLifespanUserAction: 300,
      browserFlow: 'browser',
      defaultRole: {
        id: role?.id,
        name: 'default-roles-acme',
        composite: true,
        clientRole: false,
        containerId: realm?.id,
      },
    });
    expect(JSON.stringify(realm)).not.toContain('null');
    // What a suite does with it: a role added to the default role reaches every user's next token.
    await kc.roles.create({ name: 'everyone' });
    const everyone = await kc.roles.findOneByName({ name: 'everyone' });
    await kc.roles.createComposite({ roleId: realm?.defaultRole?.id as string }, [
      everyone as { id: string; name: string },
    ]);
    expect(realmRoles(await webAppClaims('dave', 'dave-pw'))).toContain('everyone');
  });
});

describe("a group's realm role mappings", () => {
  it('GET /groups/{id}/role-mappings/realm: the realm roles mapped to the group', async () => {
    const partners = await groupId('partners');
    const realm = await kc.realms.findOne({ realm: 'acme' });
    expect(await kc.groups.listRealmRoleMappings({ id: partners })).toEqual([
      {
        id: (await kc.roles.findOneByName({ name: 'loop-a' }))?.id,
        name: 'loop-a',
        composite: true,
        clientRole: false,
        containerId: realm?.id,
        attributes: {},
      },
    ]);
  });

  it("DELETE /groups/{id}/role-mappings/realm: 204, and a member's next token is without the role and its composites", async () => {
    const partners = await groupId('partners');
    const before = await webAppClaims('dave', 'dave-pw');
    expect(realmRoles(before)).toEqual(expect.arrayContaining(['loop-a', 'loop-b']));
    const [loopA] = await kc.groups.listRealmRoleMappings({ id: partners });

    await kc.groups.delRealmRoleMappings({ id: partners, roles: [{ id: loopA!.id!, name: 'loop-a' }] });
    expect(await kc.groups.listRealmRoleMappings({ id: partners })).toEqual([]);
    expect((await kc.groups.findOne({ id: partners }))?.realmRoles).toEqual([]);
    const after = await webAppClaims('dave', 'dave-pw');
    expect(realmRoles(after)).not.toContain('loop-a');
    expect(realmRoles(after)).not.toContain('loop-b');
    expect(after['groups']).toEqual(['/partners']);
  });

  it.each([
    ['GET', 'an unknown group', 404, NO_ID, undefined, 'Could not find group by id'],
    ['DELETE', 'an unknown group', 404, NO_ID, [], 'Could not find group by id'],
    ['DELETE', 'a role that does not exist', 404, 'partners', [{ name: 'nope' }], 'Role not found'],
  ])('%s /groups/{id}/role-mappings/realm of %s: %i', async (method, _name, status, group, body, error) => {
    const id = group === NO_ID ? NO_ID : await groupId(group);
    const answer = await admin(method, `/groups/${id}/role-mappings/realm`, body);
    expect(answer.status).toBe(status);
    expect(answer.json).toEqual({ error, error_description: DEBUG });
  });
});

describe('the user search query parameters', () => {
  beforeAll(async () => {
    await kc.users.create({
      username: 'erin',
      enabled: true,
      firstName: 'Erin',
      lastName: 'Stone',
      email: 'erin@acme.test',
      attributes: { tags: ['Green'] },
    });
    await kc.users.create({
      username: 'frank',
      enabled: true,
      firstName: 'Frank',
      lastName: 'Stoneman',
      email: 'frank@example.test',
      attributes: { note: ['two words'] },
    });
  });

  const usernames = async (query: Record<string, string | number | boolean>): Promise<string[]> =>
    (await kc.users.find(query)).map((u) => u.username ?? '');

  it.each<[string, Record<string, string | number | boolean>, string[]]>([
    [
      'no parameter: every user but the service accounts, by username',
      {},
      ['alice', 'bob', 'carol', 'dave', 'erin', 'frank'],
    ],
    ['email: a part, in any case', { email: 'ACME.TEST' }, ['alice', 'erin']],
    ['firstName: a part, in any case', { firstName: 'rI' }, ['erin']],
    ['lastName: a part', { lastName: 'stone' }, ['erin', 'frank']],
    ['lastName with exact=true: the whole name, in any case', { lastName: 'stone', exact: true }, ['erin']],
    ['email and firstName: both', { email: 'acme', firstName: 'ali' }, ['alice']],
    ['q, one attribute', { q: 'tags:red' }, ['alice']],
    ['q, an attribute value in another case', { q: 'tags:RED' }, ['alice']],
    ['q, a part of a value: none', { q: 'tags:re' }, []],
    ['q with exact=false: a part of a value', { q: 'tags:re', exact: false }, ['alice', 'erin']],
    ['q, two attributes: both', { q: 'tags:red level:3' }, ['alice']],
    ['q, two attributes, one not held', { q: 'tags:red level:4' }, []],
    ['q, a quoted value with a space', { q: 'note:"two words"' }, ['frank']],
    ['q and lastName together', { q: 'tags:green', lastName: 'stone' }, ['erin']],
    ['username: the service accounts too', { username: 'service-account' }, ['service-account-billing-job']],
    ['search: never the service accounts', { search: 'service-account' }, []],
    ['search: the start of a name, in any case', { search: 'STO' }, ['erin', 'frank']],
    ['search: not a part inside a name', { search: 'rin' }, []],
    ['search: * for anything', { search: '*man' }, ['frank']],
    ['search: * inside a term (the start still counts)', { search: 'a*e' }, ['alice']],
    ['search: a quoted term is the whole value', { search: '"stone"' }, ['erin']],
    ['search: every term matches', { search: 'frank sto' }, ['frank']],
    ['search: the field filters beside it are not read', { search: 'erin', lastName: 'nobody' }, ['erin']],
    ['first and max: a page', { first: 1, max: 2 }, ['bob', 'carol']],
    ['first alone: the rest', { first: 4 }, ['erin', 'frank']],
    ['max alone: the first ones', { max: 3 }, ['alice', 'bob', 'carol']],
    ['first past the end: none', { first: 6 }, []],
    ['a negative first: from the start', { first: -1, max: 2 }, ['alice', 'bob']],
    ['first with a filter: a page of the matches', { lastName: 'stone', first: 1, max: 5 }, ['frank']],
  ])('%s', async (_name, query, expected) => {
    expect(await usernames(query)).toEqual(expected);
  });

  it('search id: the users of those ids, service accounts too', async () => {
    const [erin] = await kc.users.find({ username: 'erin', exact: true });
    const [account] = await kc.users.find({ username: 'service-account-billing-job', exact: true });
    expect(await usernames({ search: `id:${account?.id ?? ''} ${erin?.id ?? ''}` })).toEqual([
      'erin',
      'service-account-billing-job',
    ]);
  });

  it.each<[string, Record<string, string>, number]>([
    ['username, service accounts counted', { username: 'service-account' }, 1],
    ['q', { q: 'tags:RED' }, 1],
    ['lastName', { lastName: 'stone' }, 2],
    ['nothing: service accounts not counted', {}, 6],
  ])('GET /users/count with %s', async (_name, query, count) => {
    const answer = await admin('GET', `/users/count?${new URLSearchParams(query)}`);
    expect(answer.status).toBe(200);
    expect(answer.json).toBe(count);
  });

  it('briefRepresentation=true: the names, email, flags, creation time and access only', async () => {
    const [brief] = await kc.users.find({ username: 'erin', exact: true, briefRepresentation: true });
    expect(brief).toEqual({
      id: await userId('erin'),
      username: 'erin',
      firstName: 'Erin',
      lastName: 'Stone',
      email: 'erin@acme.test',
      emailVerified: false,
      enabled: true,
      createdTimestamp: expect.any(Number),
      access: expect.objectContaining({ view: true, manage: true }),
    });
    const [full] = await kc.users.find({ username: 'erin', exact: true, briefRepresentation: false });
    expect(full).toMatchObject({
      ...brief,
      attributes: { tags: ['Green'] },
      totp: false,
      disableableCredentialTypes: [],
      requiredActions: [],
      notBefore: 0,
    });
  });
});

describe('first and max on GET /clients', () => {
  const clientIds = async (query: Record<string, string | number | boolean> = {}): Promise<string[]> =>
    (await kc.clients.find(query)).map((c) => c.clientId ?? '');

  it('lists the clients in clientId order, as Keycloak does', async () => {
    const all = await clientIds();
    expect(all).toEqual(
      expect.arrayContaining(['billing', 'billing-job', 'narrow', 'reports', 'spa', 'web-app']),
    );
    expect(all).toEqual([...all].sort());
  });

  it.each<[string, Record<string, string | number | boolean>, (all: string[]) => string[]]>([
    ['first and max: a page', { first: 1, max: 2 }, (all) => all.slice(1, 3)],
    ['first alone: the rest', { first: 3 }, (all) => all.slice(3)],
    ['max alone: the first ones', { max: 2 }, (all) => all.slice(0, 2)],
    ['first past the end: none', { first: 1000 }, () => []],
    ['a clientId search, paged', { clientId: 'bill', search: true, first: 1, max: 1 }, () => ['billing-job']],
    ['a clientId search', { clientId: 'BILL', search: true }, () => ['billing', 'billing-job']],
  ])('%s', async (_name, query, expected) => {
    expect(await clientIds(query)).toEqual(expected(await clientIds()));
  });
});

describe("paging where Keycloak's resource has no default max", () => {
  const names = (list: { name?: string; clientId?: string }[]): string[] =>
    list.map((x) => x.clientId ?? x.name ?? '');

  it('GET /clients without max: every client, past 100', async () => {
    const clients = Array.from({ length: 101 }, (_, i) => ({
      clientId: `bulk-${String(i).padStart(3, '0')}`,
    }));
    const imported = await kc.realms.partialImport({
      realm: 'acme',
      rep: { ifResourceExists: 'FAIL', clients },
    });
    expect(imported).toMatchObject({ added: 101 });
    const all = names(await kc.clients.find());
    expect(all.filter((id) => id.startsWith('bulk-'))).toHaveLength(101);
    expect(names(await kc.clients.find({ max: 100 }))).toHaveLength(100);
  });

  it.each<[string, Record<string, string | number>, (all: string[]) => string[]]>([
    ['first alone: every role (Keycloak pages roles only with both)', { first: 1 }, (all) => all],
    ['max alone: every role', { max: 1 }, (all) => all],
    ['first and max: a page', { first: 1, max: 2 }, (all) => all.slice(1, 3)],
  ])('GET /roles, %s', async (_name, query, expected) => {
    const all = names(await kc.roles.find());
    expect(all.length).toBeGreaterThan(3);
    expect(names(await kc.roles.find(query))).toEqual(expected(all));
  });
});

describe('the composite role-mapping views: effective roles, as Keycloak lists them', () => {
  const names = (list: { name?: string }[]): string[] => list.map((r) => r.name ?? '').sort();
  let userId = '';
  let subId = '';
  let appId = '';

  beforeAll(async () => {
    // cx-lead is made of cx-base; /cx-team maps cx-lead; cx-user is in its subgroup /cx-team/cx-sub.
    await kc.roles.create({ name: 'cx-base' });
    await kc.roles.create({ name: 'cx-lead' });
    const base = await kc.roles.findOneByName({ name: 'cx-base' });
    const lead = await kc.roles.findOneByName({ name: 'cx-lead' });
    await kc.roles.createComposite({ roleId: lead?.id ?? '' }, [{ id: base?.id ?? '', name: 'cx-base' }]);
    const { id: teamId } = await kc.groups.create({ name: 'cx-team' });
    await kc.groups.addRealmRoleMappings({ id: teamId, roles: [{ id: lead?.id ?? '', name: 'cx-lead' }] });
    ({ id: subId } = await kc.groups.createChildGroup({ id: teamId }, { name: 'cx-sub' }));
    ({ id: userId } = await kc.users.create({ username: 'cx-user', enabled: true }));
    await kc.users.addToGroup({ id: userId, groupId: subId });
    // cx-app's r2 is made of its r1; cx-user has r2.
    ({ id: appId } = await kc.clients.create({ clientId: 'cx-app' }));
    await kc.clients.createRole({ id: appId, name: 'r1' });
    await kc.clients.createRole({ id: appId, name: 'r2' });
    const r1 = await kc.clients.findRole({ id: appId, roleName: 'r1' });
    const r2 = await kc.clients.findRole({ id: appId, roleName: 'r2' });
    await kc.roles.createComposite({ roleId: r2?.id ?? '' }, [{ id: r1?.id ?? '', name: 'r1' }]);
    await kc.users.addClientRoleMappings({
      id: userId,
      clientUniqueId: appId,
      roles: [{ id: r2?.id ?? '', name: 'r2' }],
    });
  });

  it("a user's realm roles through her groups (their parents too), the default role and composites", async () => {
    const direct = names(await kc.users.listRealmRoleMappings({ id: userId }));
    const effective = names(await kc.users.listCompositeRealmRoleMappings({ id: userId }));
    expect(direct).toEqual(['default-roles-acme']);
    expect(effective).toEqual(expect.arrayContaining(['cx-base', 'cx-lead', 'default-roles-acme']));
  });

  it("a user's client roles, composites expanded", async () => {
    const query = { id: userId, clientUniqueId: appId };
    expect(names(await kc.users.listClientRoleMappings(query))).toEqual(['r2']);
    expect(names(await kc.users.listCompositeClientRoleMappings(query))).toEqual(['r1', 'r2']);
  });

  it("a group's realm roles with its parents', composites expanded, no default role", async () => {
    expect(names(await kc.groups.listRealmRoleMappings({ id: subId }))).toEqual([]);
    expect(names(await kc.groups.listCompositeRealmRoleMappings({ id: subId }))).toEqual([
      'cx-base',
      'cx-lead',
    ]);
  });
});

describe("where Keycloak's user representation carries no access map", () => {
  it("a group's members (brief or not) and a client's service-account user", async () => {
    const { id: groupId } = await kc.groups.create({ name: 'access-check' });
    const { id: userId } = await kc.users.create({ username: 'access-member', enabled: true });
    await kc.users.addToGroup({ id: userId, groupId });
    for (const briefRepresentation of [true, false]) {
      const [member] = await kc.groups.listMembers({ id: groupId, briefRepresentation });
      expect(member?.username).toBe('access-member');
      expect(member).not.toHaveProperty('access');
    }
    const [job] = await kc.clients.find({ clientId: 'billing-job' });
    const account = await kc.clients.getServiceAccountUser({ id: job?.id ?? '' });
    expect(account.username).toBe('service-account-billing-job');
    expect(account).not.toHaveProperty('access');
    // The user listing and a user read carry it.
    expect((await kc.users.findOne({ id: userId }))?.access).toMatchObject({ view: true });
  });
});

describe("a user's credentials", () => {
  it('listed without their secrets, the password reset as a new credential, and removed: the password no longer signs in', async () => {
    const { id } = await kc.users.create({
      username: 'cred-user',
      enabled: true,
      credentials: [{ type: 'password', value: 'first-pw', temporary: false }],
    });
    const [first] = await kc.users.getCredentials({ id });
    expect(first).toMatchObject({ type: 'password', id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(first).not.toHaveProperty('value');
    expect(first).not.toHaveProperty('secretData');
    expect(JSON.parse(first?.credentialData ?? '{}')).toMatchObject({ algorithm: 'argon2' });

    const before = idp.clock.now().getTime();
    await kc.users.resetPassword({
      id,
      credential: { type: 'password', value: 'second-pw', temporary: false },
    });
    const [second, ...rest] = await kc.users.getCredentials({ id });
    expect(rest).toEqual([]);
    expect(second?.id).not.toBe(first?.id);
    expect(second?.createdDate).toBeGreaterThanOrEqual(before);
    expect(second?.createdDate).toBeLessThanOrEqual(idp.clock.now().getTime());
    expect((await webAppClaims('cred-user', 'second-pw'))['preferred_username']).toBe('cred-user');

    await kc.users.deleteCredential({ id, credentialId: second?.id as string });
    expect(await kc.users.getCredentials({ id })).toEqual([]);
    const refused = await postForm(`${idp.url}/realms/acme/protocol/openid-connect/token`, {
      grant_type: 'password',
      client_id: 'web-app',
      client_secret: 'web-secret',
      username: 'cred-user',
      password: 'second-pw',
    });
    expect([refused.status, refused.json['error']]).toEqual([401, 'invalid_grant']);
    const again = await adminRequest(idp, kc, 'acme', 'DELETE', `/users/${id}/credentials/${second?.id}`);
    expect([again.status, again.json]).toEqual([
      404,
      expect.objectContaining({ error: 'Credential not found' }),
    ]);
  });

  it("a realm file's credential without an id is listed with one, by which it is removed", async () => {
    const [dave] = await kc.users.find({ username: 'dave', exact: true });
    const [cred] = await kc.users.getCredentials({ id: dave?.id as string });
    expect(cred?.type).toBe('password');
    await kc.users.deleteCredential({ id: dave?.id as string, credentialId: cred?.id as string });
    expect(await kc.users.getCredentials({ id: dave?.id as string })).toEqual([]);
  });
});

describe('required actions', () => {
  it.each([
    ['a temporary password', { credentials: [{ type: 'password', value: 'tmp-pw', temporary: true }] }],
    [
      'a required action',
      { credentials: [{ type: 'password', value: 'tmp-pw' }], requiredActions: ['VERIFY_EMAIL'] },
    ],
  ])('a user with %s: the password grant answers 400 "Account is not fully set up"', async (what, fields) => {
    const username = `pending-${what.split(' ').pop() ?? ''}`;
    await kc.users.create({ username, enabled: true, ...fields });
    const refused = await postForm(`${idp.url}/realms/acme/protocol/openid-connect/token`, {
      grant_type: 'password',
      client_id: 'web-app',
      client_secret: 'web-secret',
      username,
      password: 'tmp-pw',
    });
    expect([refused.status, refused.json]).toEqual([
      400,
      { error: 'invalid_grant', error_description: 'Account is not fully set up' },
    ]);
  });

  it.each([
    ['created with a temporary password', { temporary: true }, ['UPDATE_PASSWORD']],
    ['created with a lasting password', { temporary: false }, []],
  ])(
    'a user %s: its representation lists the required actions Keycloak adds',
    async (what, credential, actions) => {
      const { id } = await kc.users.create({
        username: `listed-${String(credential.temporary)}`,
        enabled: true,
        credentials: [{ type: 'password', value: 'pw', ...credential }],
      });
      expect((await kc.users.findOne({ id }))?.requiredActions, what).toEqual(actions);
    },
  );

  it('PUT /users/{id} with a temporary password: UPDATE_PASSWORD is listed and the password grant waits for it', async () => {
    const { id } = await kc.users.create({
      username: 'put-temporary',
      enabled: true,
      credentials: [{ type: 'password', value: 'first-pw' }],
    });
    expect((await webAppClaims('put-temporary', 'first-pw'))['preferred_username']).toBe('put-temporary');
    await kc.users.update({ id }, { credentials: [{ type: 'password', value: 'tmp-pw', temporary: true }] });
    expect((await kc.users.findOne({ id }))?.requiredActions).toEqual(['UPDATE_PASSWORD']);
    expect((await kc.users.getCredentials({ id })).map((c) => c.type)).toEqual(['password']);
    const refused = await postForm(`${idp.url}/realms/acme/protocol/openid-connect/token`, {
      grant_type: 'password',
      client_id: 'web-app',
      client_secret: 'web-secret',
      username: 'put-temporary',
      password: 'tmp-pw',
    });
    expect([refused.status, refused.json]).toEqual([
      400,
      { error: 'invalid_grant', error_description: 'Account is not fully set up' },
    ]);
  });

  it.each([
    ['created with a temporary password', 'users'],
    ['imported with a temporary password (partialImport)', 'partialImport'],
  ])(
    'a user %s, its UPDATE_PASSWORD then removed by PUT: the password grant signs it in',
    async (_what, how) => {
      const username = `cleared-${how.toLowerCase()}`;
      const user = {
        username,
        enabled: true,
        credentials: [{ type: 'password', value: 'tmp-pw', temporary: true }],
      };
      if (how === 'users') await kc.users.create(user);
      else
        expect(
          (await admin('POST', '/partialImport', { ifResourceExists: 'FAIL', users: [user] })).status,
        ).toBe(200);
      const id = await userId(username);
      expect((await kc.users.findOne({ id }))?.requiredActions).toEqual(['UPDATE_PASSWORD']);
      await kc.users.update({ id }, { requiredActions: [] });
      expect((await kc.users.findOne({ id }))?.requiredActions).toEqual([]);
      expect((await webAppClaims(username, 'tmp-pw'))['preferred_username']).toBe(username);
    },
  );

  it('done by resetting the password for good: the user signs in', async () => {
    const { id } = await kc.users.create({
      username: 'pending-reset',
      enabled: true,
      credentials: [{ type: 'password', value: 'tmp-pw', temporary: true }],
    });
    await kc.users.resetPassword({
      id,
      credential: { type: 'password', value: 'final-pw', temporary: false },
    });
    expect((await webAppClaims('pending-reset', 'final-pw'))['preferred_username']).toBe('pending-reset');
  });
});

describe('the user profile configuration', () => {
  it("Keycloak's default, replaced by PUT (unmanaged attributes enabled, an attribute added), and its metadata", async () => {
    const initial = await kc.users.getProfile();
    expect(initial.attributes?.map((a) => a.name)).toEqual(['username', 'email', 'firstName', 'lastName']);
    expect(initial.unmanagedAttributePolicy).toBeUndefined();
    const wanted = {
      ...initial,
      unmanagedAttributePolicy: UnmanagedAttributePolicy.Enabled,
      attributes: [...(initial.attributes ?? []), { name: 'department', displayName: 'Department' }],
    };
    expect(await kc.users.updateProfile(wanted)).toEqual(wanted);
    expect(await kc.users.getProfile()).toEqual(wanted);
    const metadata = await kc.users.getProfileMetadata();
    expect(metadata.attributes?.find((a) => a.name === 'department')).toMatchObject({
      displayName: 'Department',
      required: false,
    });
    expect(metadata.attributes?.find((a) => a.name === 'email')?.required).toBe(true);
  });

  it('an attribute defined twice: 400, nothing changed', async () => {
    const before = await kc.users.getProfile();
    const answer = await adminRequest(idp, kc, 'acme', 'PUT', '/users/profile', {
      attributes: [{ name: 'x' }, { name: 'x' }],
    });
    expect(answer.status).toBe(400);
    expect(await kc.users.getProfile()).toEqual(before);
  });
});

describe("the realm's keys", () => {
  it('GET /keys: the active kid per algorithm, each key published in the JWKS, its public half verifying tokens', async () => {
    const keys = await kc.realms.getKeys({ realm: 'acme' });
    const { keys: jwks } = (await (
      await fetch(`${idp.url}/realms/acme/protocol/openid-connect/certs`)
    ).json()) as {
      keys: { kid: string }[];
    };
    expect(Object.keys(keys.active ?? {}).sort()).toEqual(['ES256', 'RS256', 'RSA-OAEP']);
    for (const k of keys.keys ?? []) expect(jwks.map((j) => j.kid)).toContain(k.kid);
    const rs = keys.keys?.find((k) => k.kid === keys.active?.['RS256']);
    const token = (
      await postForm(`${idp.url}/realms/acme/protocol/openid-connect/token`, {
        grant_type: 'client_credentials',
        client_id: 'billing-job',
        client_secret: 'job-secret',
      })
    ).json['access_token'] as string;
    const pem = `-----BEGIN PUBLIC KEY-----\n${rs?.publicKey ?? ''}\n-----END PUBLIC KEY-----`;
    const { payload } = await jwtVerify(token, await importSPKI(pem, 'RS256'), {
      currentDate: idp.clock.now(),
    });
    expect(payload['azp']).toBe('billing-job');
    const es = keys.keys?.find((k) => k.algorithm === 'ES256');
    expect(es?.certificate).toMatch(/^MII/);
  });
});

describe('a known admin path asked with another method', () => {
  it.each([
    ['PATCH', '/users', 'GET or POST'],
    ['DELETE', '/roles', 'GET or POST'],
    ['PATCH', '/clients', 'GET or POST'],
  ])('%s %s: 405 with Allow, as Keycloak answers', async (method, path, use) => {
    const answer = await admin(method, path);
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe(use.replace(' or ', ', '));
    expect(answer.json).toEqual({
      error: 'HTTP 405 Method Not Allowed',
      error_description: `${method} is not allowed on /admin/realms/acme${path}: use ${use}`,
    });
  });

  it('an unknown path is still a 404', async () => {
    const answer = await admin('GET', '/nothing');
    expect(answer.status).toBe(404);
    expect(answer.json).toMatchObject({ error: 'HTTP 404 Not Found' });
  });
});
