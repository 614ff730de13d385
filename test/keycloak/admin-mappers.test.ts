// A client's protocol mappers through the admin API (@keycloak/keycloak-admin-client), as Keycloak's
// ProtocolMappersResource answers: listed, added (one, or several), read, changed and removed, each change in
// the claims of the next token (password grant through openid-client, verified with jose).
import type KcAdminClient from '@keycloak/keycloak-admin-client';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { adminClient, adminRequest, passwordAccessToken } from '../helpers/admin.js';
import { useIdp } from '../helpers/server.js';

const ACME = fileURLToPath(new URL('../fixtures-data/keycloak/acme-realm.json', import.meta.url));
const idp = useIdp({ fixtures: ACME, seed: 'admin-mappers' });

let kc: KcAdminClient;
let webApp: string;
beforeAll(async () => {
  kc = await adminClient(idp, 'acme');
  const [client] = await kc.clients.find({ clientId: 'web-app' });
  webApp = client?.id ?? '';
});

const claims = () => passwordAccessToken(idp, 'acme', 'web-app', 'web-secret', 'bob', 'bob-pw');

/** A hardcoded claim mapper (access token only) named `name`, putting `value` in claim `claim`. */
const hardcoded = (name: string, claim: string, value: string) => ({
  name,
  protocol: 'openid-connect',
  protocolMapper: 'oidc-hardcoded-claim-mapper',
  config: {
    'claim.name': claim,
    'claim.value': value,
    'jsonType.label': 'String',
    'access.token.claim': 'true',
  },
});

/** A request to web-app's protocol mappers with the admin token, for answers the admin client hides. */
const admin = (method: string, path: string, body?: unknown) =>
  adminRequest(idp, kc, 'acme', method, `/clients/${webApp}/protocol-mappers${path}`, body);

describe("a client's protocol mappers", () => {
  it('added: 201 with Location, listed and read with an id, and in the next token', async () => {
    expect((await claims())['contract']).toBeUndefined();
    const answer = await admin('POST', '/models', hardcoded('contract', 'contract', 'gold'));
    expect(answer.status).toBe(201);
    const id = answer.headers.get('location')?.split('/').pop() as string;
    expect(answer.headers.get('location')).toBe(
      `${idp.url}/admin/realms/acme/clients/${webApp}/protocol-mappers/models/${id}`,
    );
    const mapper = await kc.clients.findProtocolMapperById({ id: webApp, mapperId: id });
    expect(mapper).toEqual({ id, ...hardcoded('contract', 'contract', 'gold'), consentRequired: false });
    const listed = await kc.clients.listProtocolMappers({ id: webApp });
    expect(listed.map((m) => m.name)).toContain('contract');
    expect(listed.every((m) => typeof m.id === 'string')).toBe(true);
    expect((await claims())['contract']).toBe('gold');
  });

  it('changed by PUT: the next token has the new value; removed: the claim is gone', async () => {
    await kc.clients.addProtocolMapper({ id: webApp }, hardcoded('plan', 'plan', 'basic'));
    const found = await kc.clients.findProtocolMapperByName({ id: webApp, name: 'plan' });
    const mapperId = found?.id as string;
    await kc.clients.updateProtocolMapper(
      { id: webApp, mapperId },
      { ...found, config: { ...found?.config, 'claim.value': 'premium' } },
    );
    expect((await claims())['plan']).toBe('premium');
    await kc.clients.delProtocolMapper({ id: webApp, mapperId });
    expect((await claims())['plan']).toBeUndefined();
    expect(await kc.clients.findProtocolMapperByName({ id: webApp, name: 'plan' })).toBeUndefined();
  });

  it('several at once (add-models): 204, each in the next token; by protocol lists them', async () => {
    await kc.clients.addMultipleProtocolMappers({ id: webApp }, [
      hardcoded('one', 'one', '1'),
      hardcoded('two', 'two', '2'),
    ]);
    const token = await claims();
    expect([token['one'], token['two']]).toEqual(['1', '2']);
    const oidc = await kc.clients.findProtocolMappersByProtocol({ id: webApp, protocol: 'openid-connect' });
    expect(oidc.map((m) => m.name)).toEqual(expect.arrayContaining(['one', 'two']));
    expect(await kc.clients.findProtocolMappersByProtocol({ id: webApp, protocol: 'saml' })).toEqual([]);
  });

  it.each([
    [
      'a name taken',
      'POST',
      '/models',
      hardcoded('phone', 'other', 'x'),
      409,
      { errorMessage: 'Protocol mapper exists with same name' },
    ],
    [
      'two of one add-models list sharing a name',
      'POST',
      '/add-models',
      [hardcoded('twin', 'a', 'x'), hardcoded('twin', 'b', 'y')],
      409,
      { errorMessage: 'Protocol mapper exists with same name' },
    ],
    [
      'no name',
      'POST',
      '/models',
      { protocolMapper: 'oidc-hardcoded-claim-mapper' },
      400,
      { errorMessage: 'Protocol mapper name is missing' },
    ],
    [
      'an unknown mapper id',
      'GET',
      '/models/0b5c2e8a-0000-4000-8000-000000000000',
      undefined,
      404,
      { error: 'Model not found' },
    ],
    [
      'an unknown mapper id (PUT)',
      'PUT',
      '/models/0b5c2e8a-0000-4000-8000-000000000000',
      hardcoded('x', 'x', 'x'),
      404,
      { error: 'Model not found' },
    ],
  ])('%s: %s %s', async (_what, method, path, body, status, expected) => {
    const answer = await admin(method, path, body);
    expect(answer.status).toBe(status);
    expect(answer.json).toMatchObject(expected);
  });

  it('a mapper of the realm file without an id gets one, derived from its name, by which it is read', async () => {
    const [spa] = await kc.clients.find({ clientId: 'spa' });
    const mappers = await kc.clients.listProtocolMappers({ id: spa?.id as string });
    for (const m of mappers) {
      expect(m.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(
        await kc.clients.findProtocolMapperById({ id: spa?.id as string, mapperId: m.id as string }),
      ).toEqual(m);
    }
  });
});
