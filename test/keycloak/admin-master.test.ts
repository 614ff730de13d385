// Realm master beside the fixtures' realms: its admin user (flags, Keycloak's environment variables, library
// options, admin/admin), admin-cli and the password grant, off the ready line and never first.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/files.js';
import { startIdp, useCliPerTest, useIdp } from '../helpers/server.js';

/** The password grant of admin-cli at realm master of `origin`: the status and the body. */
async function adminToken(
  origin: string,
  username: string,
  password: string,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const form = new URLSearchParams({ grant_type: 'password', client_id: 'admin-cli', username, password });
  const answer = await fetch(`${origin}/realms/master/protocol/openid-connect/token`, {
    method: 'POST',
    body: form,
  });
  return { status: answer.status, body: (await answer.json()) as Record<string, unknown> };
}

/** Whether the admin API takes the token (GET /admin/realms answers 200). */
async function adminApiTakes(origin: string, token: unknown): Promise<number> {
  const answer = await fetch(`${origin}/admin/realms`, {
    headers: { authorization: `Bearer ${String(token)}` },
  });
  return answer.status;
}

describe('realm master with the default admin', () => {
  const idp = useIdp();

  it('is served beside the fixtures realm, which stays the first; admin/admin gets a verified admin-cli token', async () => {
    expect(Object.keys(idp.realms)).toEqual(['fjord']);
    expect(idp.issuer).toBe(idp.realms['fjord']?.issuer);
    const { status, body } = await adminToken(idp.url, 'admin', 'admin');
    expect(status).toBe(200);
    const issuer = `${idp.url}/realms/master`;
    const jwks = createRemoteJWKSet(new URL(`${issuer}/protocol/openid-connect/certs`));
    const { payload } = await jwtVerify(String(body['access_token']), jwks, {
      issuer,
      currentDate: idp.clock.now(),
    });
    expect(payload).toMatchObject({ azp: 'admin-cli', preferred_username: 'admin', typ: 'Bearer' });
    expect(await adminApiTakes(idp.url, body['access_token'])).toBe(200);
  });

  it('refuses a wrong password as Keycloak does', async () => {
    expect(await adminToken(idp.url, 'admin', 'nope')).toEqual({
      status: 401,
      body: { error: 'invalid_grant', error_description: 'Invalid user credentials' },
    });
  });

  it('lists every realm through the admin API', async () => {
    const { body } = await adminToken(idp.url, 'admin', 'admin');
    const answer = await fetch(`${idp.url}/admin/realms/`, {
      headers: { authorization: `Bearer ${String(body['access_token'])}` },
    });
    const realms = (await answer.json()) as { realm: string }[];
    expect(realms.map((r) => r.realm)).toEqual(['fjord', 'master']);
  });
});

describe('the admin user from the library options', () => {
  it('takes adminUser and adminPassword', async () => {
    const idp = await startIdp({ adminUser: 'Boss', adminPassword: 'boss-pw' });
    try {
      expect((await adminToken(idp.url, 'boss', 'boss-pw')).status).toBe(200);
      expect((await adminToken(idp.url, 'admin', 'admin')).status).toBe(401);
    } finally {
      await idp.close();
    }
  });

  it('adds the admin user and admin-cli to a Keycloak file of realm master', async () => {
    const dir = tempDir();
    const file = join(dir.dir, 'master.json');
    writeFileSync(
      file,
      JSON.stringify({
        realm: 'master',
        users: [{ username: 'ops', enabled: true, credentials: [{ type: 'password', value: 'ops-pw' }] }],
      }),
    );
    const idp = await startIdp({ fixtures: file });
    try {
      expect(Object.keys(idp.realms)).toEqual(['master']);
      expect(idp.issuer).toBe(`${idp.url}/realms/master`);
      expect((await adminToken(idp.url, 'admin', 'admin')).status).toBe(200);
      expect((await adminToken(idp.url, 'ops', 'ops-pw')).status).toBe(200);
      // ops is a user of master, not an admin.
      expect(
        await adminApiTakes(idp.url, (await adminToken(idp.url, 'ops', 'ops-pw')).body['access_token']),
      ).toBe(403);
    } finally {
      await idp.close();
      dir.remove();
    }
  });
});

describe('the admin user of `mock-idp serve`', () => {
  const serve = useCliPerTest(['--host', '127.0.0.1', '--port', '0']);

  it.each([
    ['--admin-user and --admin-password', ['--admin-user', 'root', '--admin-password', 'root-pw'], {}],
    [
      'KC_BOOTSTRAP_ADMIN_USERNAME/PASSWORD',
      [],
      { KC_BOOTSTRAP_ADMIN_USERNAME: 'root', KC_BOOTSTRAP_ADMIN_PASSWORD: 'root-pw' },
    ],
    [
      'KEYCLOAK_ADMIN/KEYCLOAK_ADMIN_PASSWORD',
      [],
      { KEYCLOAK_ADMIN: 'root', KEYCLOAK_ADMIN_PASSWORD: 'root-pw' },
    ],
  ])('%s', async (_name, args, env) => {
    const server = await serve(args, env);
    expect(server.stdout()).not.toContain('/realms/master');
    const origin = new URL(server.base).origin;
    const { status, body } = await adminToken(origin, 'root', 'root-pw');
    expect(status).toBe(200);
    expect(await adminApiTakes(origin, body['access_token'])).toBe(200);
  });
});

describe('ids under a seed', () => {
  it('two servers of one seed give a new user the same id, the last segment of its Location', async () => {
    const ids: string[] = [];
    for (const _ of [1, 2]) {
      const idp = await startIdp({ seed: 'same-ids' });
      try {
        const { body } = await adminToken(idp.url, 'admin', 'admin');
        const created = await fetch(`${idp.url}/admin/realms/master/users`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${String(body['access_token'])}`,
            'content-type': 'application/json',
          },
          body: JSON.stringify({ username: 'seeded' }),
        });
        expect(created.status).toBe(201);
        const location = created.headers.get('location') ?? '';
        expect(location).toMatch(new RegExp(`^${idp.url}/admin/realms/master/users/[0-9a-f-]{36}$`));
        ids.push(location.split('/').pop() ?? '');
      } finally {
        await idp.close();
      }
    }
    expect(ids[0]).toBe(ids[1]);
  });
});

describe('admin rights as Keycloak resolves them', () => {
  const dir = tempDir();
  const file = join(dir.dir, 'master.json');
  const user = (username: string, more: Record<string, unknown>) => ({
    username,
    enabled: true,
    credentials: [{ type: 'password', value: `${username}-pw` }],
    ...more,
  });
  writeFileSync(
    file,
    JSON.stringify({
      realm: 'master',
      roles: {
        realm: [
          { name: 'super', composite: true, composites: { realm: ['admin'] } },
          { name: 'outer', composite: true, composites: { realm: ['super'] } },
          { name: 'viewer' },
        ],
      },
      groups: [
        { name: 'admins', realmRoles: ['admin'] },
        { name: 'staff', realmRoles: ['outer'], subGroups: [{ name: 'ops' }] },
        { name: 'readers', realmRoles: ['viewer'] },
      ],
      clients: [
        { clientId: 'robot', secret: 'robot-secret', serviceAccountsEnabled: true },
        { clientId: 'bystander', secret: 'bystander-secret', serviceAccountsEnabled: true },
      ],
      users: [
        user('direct', { realmRoles: ['admin'] }),
        user('grouped', { groups: ['/admins'] }),
        user('subgrouped', { groups: ['/staff/ops'] }),
        user('composite', { realmRoles: ['outer'] }),
        user('reader', { realmRoles: ['viewer'], groups: ['/readers'] }),
        user('plain', {}),
        {
          username: 'service-account-robot',
          enabled: true,
          serviceAccountClientId: 'robot',
          realmRoles: ['super'],
        },
      ],
    }),
  );
  const idp = useIdp({ fixtures: file });
  afterAll(() => dir.remove());

  const clientToken = async (clientId: string): Promise<unknown> => {
    const answer = await fetch(`${idp.url}/realms/master/protocol/openid-connect/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: clientId,
        client_secret: `${clientId}-secret`,
      }),
    });
    const body = (await answer.json()) as Record<string, unknown>;
    expect(answer.status, JSON.stringify(body)).toBe(200);
    return body['access_token'];
  };

  it.each([
    ['the role mapped directly', 'direct', 200],
    ['the role through a group', 'grouped', 200],
    ["the role through a parent group's composite", 'subgrouped', 200],
    ['a composite of a composite holding the role', 'composite', 200],
    ['other roles only, directly and through a group', 'reader', 403],
    ['no role at all', 'plain', 403],
  ])('a user with %s: %i', async (_what, username, status) => {
    const { status: got, body } = await adminToken(idp.url, username, `${username}-pw`);
    expect(got, JSON.stringify(body)).toBe(200);
    expect(await adminApiTakes(idp.url, body['access_token'])).toBe(status);
  });

  it.each([
    ['a composite holding the role', 'robot', 200],
    ['no role', 'bystander', 403],
  ])("a client's service account with %s (client_credentials): %i", async (_what, clientId, status) => {
    expect(await adminApiTakes(idp.url, await clientToken(clientId))).toBe(status);
  });
});
