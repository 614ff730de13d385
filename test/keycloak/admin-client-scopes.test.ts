// Client scopes through the admin API (@keycloak/keycloak-admin-client), as Keycloak's resources answer:
// the realm's scopes (the built-in ones included), made, changed and removed; a client's default and optional
// scopes; the realm's defaults for new clients; a scope's protocol mappers. Each change is in the next token
// (password grant through openid-client, the access token verified with jose).
import type KcAdminClient from '@keycloak/keycloak-admin-client';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { fileURLToPath } from 'node:url';
import * as client from 'openid-client';
import { beforeAll, describe, expect, it } from 'vitest';
import { adminClient, adminRequest, clientConfig } from '../helpers/admin.js';
import { useIdp } from '../helpers/server.js';

const ACME = fileURLToPath(new URL('../fixtures-data/keycloak/acme-realm.json', import.meta.url));
const idp = useIdp({ fixtures: ACME, seed: 'admin-client-scopes' });

let kc: KcAdminClient;
let webApp: string;
beforeAll(async () => {
  kc = await adminClient(idp, 'acme');
  webApp = await clientUuid('web-app');
});

async function clientUuid(clientId: string): Promise<string> {
  const [found] = await kc.clients.find({ clientId });
  return found?.id ?? '';
}

/** bob's access token claims from `clientId` (password grant, `scope` besides openid), verified with jose. */
async function claims(
  scope = '',
  clientId = 'web-app',
  secret = 'web-secret',
): Promise<Record<string, unknown>> {
  const issuer = `${idp.url}/realms/acme`;
  const config = await clientConfig(idp, 'acme', clientId, secret);
  const tokens = await client.genericGrantRequest(config, 'password', {
    username: 'bob',
    password: 'bob-pw',
    scope: `openid ${scope}`.trim(),
  });
  const jwks = createRemoteJWKSet(new URL(`${issuer}/protocol/openid-connect/certs`));
  const { payload } = await jwtVerify(tokens.access_token, jwks, { issuer, currentDate: idp.clock.now() });
  return payload;
}

const hardcoded = (name: string, value: string) => ({
  name,
  protocol: 'openid-connect',
  protocolMapper: 'oidc-hardcoded-claim-mapper',
  config: {
    'claim.name': name,
    'claim.value': value,
    'jsonType.label': 'String',
    'access.token.claim': 'true',
  },
});

const scopeNames = (list: { name?: string }[]) => list.map((s) => s.name);

/** A request under /admin/realms/acme with the admin token, for answers the admin client hides. */
const admin = (method: string, path: string, body?: unknown) =>
  adminRequest(idp, kc, 'acme', method, path, body);

describe("the realm's client scopes", () => {
  it("lists Keycloak's built-in scopes beside the file's, each with an id, their mappers with ids", async () => {
    const list = await kc.clientScopes.find();
    expect(scopeNames(list)).toEqual(
      expect.arrayContaining(['profile', 'email', 'roles', 'web-origins', 'offline_access', 'acme-extras']),
    );
    const profile = list.find((s) => s.name === 'profile');
    expect(profile?.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(profile?.protocolMappers?.map((m) => m.name)).toContain('username');
    expect(profile?.protocolMappers?.every((m) => typeof m.id === 'string')).toBe(true);
    expect(await kc.clientScopes.findOne({ id: profile?.id as string })).toEqual(profile);
  });

  it('a new scope, optional for web-app: in the token when asked for, its claim and its name in `scope`', async () => {
    const { id } = await kc.clientScopes.create({
      name: 'api.read',
      protocol: 'openid-connect',
      attributes: { 'include.in.token.scope': 'true' },
      protocolMappers: [hardcoded('api_read', 'yes')],
    });
    await kc.clients.addOptionalClientScope({ id: webApp, clientScopeId: id });
    expect(scopeNames(await kc.clients.listOptionalClientScopes({ id: webApp }))).toContain('api.read');
    expect((await claims())['api_read']).toBeUndefined();
    const asked = await claims('api.read');
    expect(asked['api_read']).toBe('yes');
    expect(String(asked['scope']).split(' ')).toContain('api.read');

    // Moved to the defaults: in every token, asked for or not.
    await kc.clients.addDefaultClientScope({ id: webApp, clientScopeId: id });
    expect(scopeNames(await kc.clients.listOptionalClientScopes({ id: webApp }))).not.toContain('api.read');
    expect((await claims())['api_read']).toBe('yes');

    // A mapper added to the scope: in the next token.
    await kc.clientScopes.addProtocolMapper({ id }, hardcoded('api_level', '2'));
    expect((await claims())['api_level']).toBe('2');

    // In use: not removed (400); unlinked, removed (then 404).
    const refused = await admin('DELETE', `/client-scopes/${id}`);
    expect([refused.status, refused.json]).toEqual([
      400,
      { errorMessage: 'Cannot remove client scope, it is currently in use' },
    ]);
    await kc.clients.delDefaultClientScope({ id: webApp, clientScopeId: id });
    expect((await claims())['api_read']).toBeUndefined();
    await kc.clientScopes.del({ id });
    expect((await admin('GET', `/client-scopes/${id}`)).status).toBe(404);
  });

  it('a built-in scope changed (a mapper added to profile) keeps its own mappers, and tokens get both', async () => {
    const profile = (await kc.clientScopes.find()).find((s) => s.name === 'profile');
    const before = profile?.protocolMappers?.length ?? 0;
    await kc.clientScopes.addProtocolMapper({ id: profile?.id as string }, hardcoded('profiled', 'true'));
    const after = await kc.clientScopes.findOne({ id: profile?.id as string });
    expect(after?.protocolMappers?.length).toBe(before + 1);
    const token = await claims();
    expect([token['profiled'], token['preferred_username']]).toEqual(['true', 'bob']);
  });

  it('a scope renamed by PUT: the clients that had it keep it under its new name', async () => {
    const { id } = await kc.clientScopes.create({ name: 'old-name', protocol: 'openid-connect' });
    await kc.clients.addOptionalClientScope({ id: webApp, clientScopeId: id });
    await kc.clientScopes.update({ id }, { name: 'new-name' });
    expect(scopeNames(await kc.clients.listOptionalClientScopes({ id: webApp }))).toContain('new-name');
    expect(String((await claims('new-name'))['scope']).split(' ')).toContain('new-name');
  });

  it("the realm's defaults are for clients made from now on", async () => {
    const before = await kc.clients.create({
      clientId: 'made-before',
      secret: 'b',
      directAccessGrantsEnabled: true,
    });
    const { id } = await kc.clientScopes.create({
      name: 'house',
      protocol: 'openid-connect',
      protocolMappers: [hardcoded('house', 'acme')],
    });
    await kc.clientScopes.addDefaultClientScope({ id });
    expect(scopeNames(await kc.clientScopes.listDefaultClientScopes())).toContain('house');
    const after = await kc.clients.create({
      clientId: 'made-after',
      secret: 'a',
      directAccessGrantsEnabled: true,
    });
    expect(scopeNames(await kc.clients.listDefaultClientScopes({ id: after.id }))).toContain('house');
    expect(scopeNames(await kc.clients.listDefaultClientScopes({ id: before.id }))).not.toContain('house');
    // The client's representation names them too.
    expect((await kc.clients.findOne({ id: after.id }))?.defaultClientScopes).toContain('house');
    expect((await kc.clients.findOne({ id: before.id }))?.defaultClientScopes).not.toContain('house');
    expect((await claims('', 'made-after', 'a'))['house']).toBe('acme');
    expect((await claims('', 'made-before', 'b'))['house']).toBeUndefined();
  });

  it("a SAML scope among the realm's defaults is not an OpenID Connect client's", async () => {
    const { id } = await kc.clientScopes.create({ name: 'saml-extras', protocol: 'saml' });
    await kc.clientScopes.addDefaultClientScope({ id });
    expect(scopeNames(await kc.clientScopes.listDefaultClientScopes())).toContain('saml-extras');
    const made = await kc.clients.create({ clientId: 'oidc-only', secret: 'o' });
    expect((await kc.clients.findOne({ id: made.id }))?.defaultClientScopes).not.toContain('saml-extras');
    expect(scopeNames(await kc.clients.listDefaultClientScopes({ id: made.id }))).not.toContain(
      'saml-extras',
    );
  });

  it.each([
    [
      'a name taken',
      'POST',
      '/client-scopes',
      { name: 'profile' },
      409,
      { errorMessage: 'Client Scope profile already exists' },
    ],
    [
      'a name with a space',
      'POST',
      '/client-scopes',
      { name: 'a b' },
      400,
      { errorMessage: 'Unexpected name "a b" for ClientScope' },
    ],
    [
      'an unknown scope',
      'GET',
      '/client-scopes/0b5c2e8a-0000-4000-8000-000000000000',
      undefined,
      404,
      { error: 'Could not find client scope' },
    ],
    [
      'linking an unknown scope',
      'PUT',
      `/clients/{web-app}/default-client-scopes/0b5c2e8a-0000-4000-8000-000000000000`,
      undefined,
      404,
      { error: 'Client scope not found' },
    ],
  ])('%s: %s %s', async (_what, method, path, body, status, expected) => {
    const answer = await admin(method, path.replace('{web-app}', webApp), body);
    expect(answer.status).toBe(status);
    expect(answer.json).toMatchObject(expected);
  });
});
