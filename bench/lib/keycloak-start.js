// The start a suite coming from Keycloak pays: spawn → ready with a realm JSON as fixtures (a full
// `kc.sh export`), then the first admin call as @keycloak/keycloak-admin-client makes it (an admin-cli
// password grant at realm master, then a user search in the imported realm). Keycloak itself cannot be
// started here (no container registry); its published figures are quoted beside ours in docs/keycloak.md.
import { startMockIdp } from './mock-idp.js';
import { FORM, request } from './http.js';
import { kill } from './children.js';
import { median, round } from './stats.js';

const REALM_EXPORT = 'test/fixtures-data/keycloak/northwind-export.json';

/** @param {{ runs: number }} opts */
export async function measureKeycloakStart({ runs }) {
  /** @type {number[]} */ const toReady = [];
  /** @type {number[]} */ const toAdminCall = [];
  for (let i = 0; i < runs; i++) {
    const server = await startMockIdp({ fixtures: REALM_EXPORT });
    try {
      const origin = new URL(server.base).origin;
      const token = await request(`${origin}/realms/master/protocol/openid-connect/token`, {
        method: 'POST',
        headers: { 'content-type': FORM },
        body: 'grant_type=password&client_id=admin-cli&username=admin&password=admin',
      });
      if (token.status !== 200) throw new Error(`admin token: ${token.status} ${token.body}`);
      const { access_token: accessToken } = JSON.parse(token.body);
      const users = await request(`${origin}/admin/realms/northwind/users?max=10`, {
        headers: { authorization: `Bearer ${accessToken}` },
      });
      if (users.status !== 200)
        throw new Error(`GET /admin/realms/northwind/users: ${users.status} ${users.body}`);
      const t = performance.now();
      toReady.push(server.tReady - server.t0);
      toAdminCall.push(t - server.t0);
    } finally {
      await kill(server.child);
    }
  }
  return {
    runs,
    realm: REALM_EXPORT,
    spawnToReadyMs: { median: round(median(toReady)), all: toReady.map((x) => round(x)) },
    spawnToFirstAdminCallMs: { median: round(median(toAdminCall)), all: toAdminCall.map((x) => round(x)) },
  };
}
