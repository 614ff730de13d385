// Admin API changes in the inspector: a request about a realm goes into that realm's request journal (what
// /mock/ui and GET /mock/requests list), one about no realm in particular into master's.
import KcAdminClient from '@keycloak/keycloak-admin-client';
import { describe, expect, it } from 'vitest';
import { get } from '../helpers/http.js';
import { useIdp } from '../helpers/server.js';

const idp = useIdp({ fixtures: [], seed: 'admin-journal' });

interface Recorded {
  method: string;
  path: string;
  status: number;
}

const journal = async (realm: string): Promise<Recorded[]> => {
  const answer = await get<{ requests: Recorded[] }>(`${idp.url}/realms/${realm}/mock/requests`);
  expect(answer.status, answer.text).toBe(200);
  // The admin client writes some paths with a trailing slash (`/users/`), which Keycloak takes as without.
  return answer.json.requests.map(({ method, path, status }) => ({
    method,
    path: path.replace(/\/$/, ''),
    status,
  }));
};

describe('the admin API in the request journal', () => {
  it("a change to a realm is listed in that realm's journal, the realm's making in master's", async () => {
    const kc = new KcAdminClient({ baseUrl: idp.url, realmName: 'master' });
    await kc.auth({ username: 'admin', password: 'admin', grantType: 'password', clientId: 'admin-cli' });
    await kc.realms.create({ realm: 'ledger', enabled: true });
    kc.setConfig({ realmName: 'ledger' });
    const { id } = await kc.users.create({ username: 'nora', enabled: true });
    await kc.users.update({ id }, { firstName: 'Nora' });

    expect(await journal('ledger')).toEqual(
      expect.arrayContaining([
        { method: 'POST', path: '/admin/realms/ledger/users', status: 201 },
        { method: 'PUT', path: `/admin/realms/ledger/users/${id}`, status: 204 },
      ]),
    );
    const master = await journal('master');
    expect(master).toEqual(expect.arrayContaining([{ method: 'POST', path: '/admin/realms', status: 201 }]));
    expect(master.filter((r) => r.path.startsWith('/admin/realms/ledger'))).toEqual([]);
  });
});
