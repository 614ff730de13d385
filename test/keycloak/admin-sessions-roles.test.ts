// The admin API's session and role-holder endpoints (@keycloak/keycloak-admin-client; fetch where it hides the
// answer), as Keycloak 26 answers them: a client's sessions and their count, the realm's session stats, one
// session ended, every session ended; who has a realm or a client role directly (users, groups).
import type KcAdminClient from '@keycloak/keycloak-admin-client';
import { fileURLToPath } from 'node:url';
import * as client from 'openid-client';
import { beforeAll, describe, expect, it } from 'vitest';
import { adminClient, adminRequest, clientConfig } from '../helpers/admin.js';
import { useIdp } from '../helpers/server.js';

const ACME = fileURLToPath(new URL('../fixtures-data/keycloak/acme-realm.json', import.meta.url));
const idp = useIdp({ fixtures: ACME, seed: 'admin-sessions-roles' });

let kc: KcAdminClient;
let config: client.Configuration;
let webApp: string;
beforeAll(async () => {
  kc = await adminClient(idp, 'acme');
  const [found] = await kc.clients.find({ clientId: 'web-app' });
  webApp = found?.id ?? '';
  config = await clientConfig(idp, 'acme', 'web-app', 'web-secret');
});

const admin = (method: string, path: string, body?: unknown) =>
  adminRequest(idp, kc, 'acme', method, path, body);

/** A password-grant sign-in at web-app: its tokens (the session is the ID token's sid). */
const signIn = (username: string, password: string) =>
  client.genericGrantRequest(config, 'password', { username, password, scope: 'openid' });

async function userId(username: string): Promise<string> {
  const [user] = await kc.users.find({ username, exact: true });
  return user?.id ?? '';
}

describe('sessions', () => {
  it("a client's sessions, their count and the realm's stats; one ended by id (its refresh token no longer works); then all", async () => {
    const bob = await signIn('bob', 'bob-pw');
    const dave = await signIn('dave', 'dave-pw');
    const sessions = await kc.clients.listSessions({ id: webApp });
    const bobSid = bob.claims()?.sid as string;
    expect(sessions.map((s) => s.id)).toEqual(expect.arrayContaining([bobSid, dave.claims()?.sid]));
    const bobs = sessions.find((s) => s.id === bobSid);
    expect(bobs).toMatchObject({
      username: 'bob',
      userId: await userId('bob'),
      clients: { [webApp]: 'web-app' },
    });
    expect((await kc.clients.getSessionCount({ id: webApp })).count).toBe(sessions.length);
    expect(await kc.realms.getClientSessionStats({ realm: 'acme' })).toContainEqual({
      id: webApp,
      clientId: 'web-app',
      active: String(sessions.length),
      offline: '0',
    });

    await kc.realms.deleteSession({ realm: 'acme', session: bobSid, isOffline: false });
    await expect(client.refreshTokenGrant(config, bob.refresh_token as string)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    expect((await kc.clients.listSessions({ id: webApp })).map((s) => s.id)).not.toContain(bobSid);
    const again = await admin('DELETE', `/sessions/${bobSid}`);
    expect([again.status, again.json]).toEqual([
      404,
      expect.objectContaining({ error: 'Sesssion not found' }),
    ]);

    const all = await admin('POST', '/logout-all');
    expect([all.status, all.json]).toEqual([200, {}]);
    expect(await kc.clients.listSessions({ id: webApp })).toEqual([]);
    await expect(client.refreshTokenGrant(config, dave.refresh_token as string)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  });
});

describe('who has a role directly', () => {
  it.each([
    ['realm role admin', '/roles/admin', ['alice'], []],
    [
      'realm role auditor',
      '/roles/auditor',
      ['service-account-billing-job'],
      ['/staff/engineering/platform'],
    ],
    ['realm role user (a group has it)', '/roles/user', [], ['/staff']],
    ["the realm's default role", '/roles/default-roles-acme', ['alice', 'bob', 'carol', 'dave'], []],
  ])('%s: users and groups', async (_what, path, users, groups) => {
    const u = await admin('GET', `${path}/users`);
    expect(u.status).toBe(200);
    expect((u.json as unknown as { username: string }[]).map((x) => x.username).sort()).toEqual(users);
    const g = await admin('GET', `${path}/groups`);
    expect((g.json as unknown as { path: string }[]).map((x) => x.path)).toEqual(groups);
  });

  it('through the admin client: findUsersWithRole for a realm role and a client role', async () => {
    expect((await kc.roles.findUsersWithRole({ name: 'admin' })).map((u) => u.username)).toEqual(['alice']);
    const [billing] = await kc.clients.find({ clientId: 'billing' });
    const holders = await kc.clients.findUsersWithRole({
      id: billing?.id as string,
      roleName: 'invoice-read',
    });
    expect(holders.map((u) => u.username)).toEqual(['bob']);
    const [reports] = await kc.clients.find({ clientId: 'reports' });
    const groups = await admin('GET', `/clients/${reports?.id}/roles/view/groups`);
    expect((groups.json as unknown as { path: string }[]).map((x) => x.path)).toEqual(['/staff/engineering']);
  });

  it.each([['/roles/no-such-role/users'], ['/roles/no-such-role/groups']])(
    'an unknown role: %s answers 404',
    async (path) => {
      const answer = await admin('GET', path);
      expect([answer.status, answer.json]).toEqual([
        404,
        expect.objectContaining({ error: 'Could not find role' }),
      ]);
    },
  );
});
