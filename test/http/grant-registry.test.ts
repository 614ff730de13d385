// The grant registry is the one list of grants: discovery's grant_types_supported, the fixtures schema's
// `grants` values (zod and the published JSON Schema) and the token endpoint's dispatch all agree with it.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { fixturesSchema } from '../../src/fixtures/schema.js';
import { GRANT_TYPES, GRANTS, TOKEN_GRANTS } from '../../src/oauth/grants/registry.js';
import { basicFor } from '../helpers/flows.js';
import { get, postForm } from '../helpers/http.js';
import { useIdp } from '../helpers/server.js';

const idp = useIdp();

describe('grant registry', () => {
  it('discovery advertises exactly the registered grants, in the interface document order', async () => {
    const { json } = await get<{ grant_types_supported: string[] }>(idp.endpoints.discovery);
    expect(json.grant_types_supported).toEqual([...GRANT_TYPES]);
    expect(json.grant_types_supported).toEqual([
      'authorization_code',
      'implicit',
      'refresh_token',
      'password',
      'client_credentials',
      'urn:ietf:params:oauth:grant-type:token-exchange',
      'urn:ietf:params:oauth:grant-type:jwt-bearer',
      'urn:ietf:params:oauth:grant-type:device_code',
      'urn:openid:params:grant-type:ciba',
    ]);
  });

  it('the fixtures schema accepts exactly the registered grants', async () => {
    const client = (grants: unknown[]): unknown => ({ realm: 'r', clients: { c: { secret: 's', grants } } });
    for (const grant of GRANT_TYPES) expect(fixturesSchema.safeParse(client([grant])).success).toBe(true);
    expect(fixturesSchema.safeParse(client(['device_code'])).success).toBe(false);
    const published = JSON.parse(await readFile('fixtures.schema.json', 'utf8')) as {
      properties: {
        clients: { additionalProperties: { properties: { grants: { items: { enum: string[] } } } } };
      };
    };
    const items = published.properties.clients.additionalProperties.properties.grants.items;
    expect(items.enum).toEqual([...GRANT_TYPES]);
  });

  it('every grant says what it reads and whether it issues an ID token', () => {
    expect(GRANTS.map((g) => [g.type, g.issuesIdToken])).toEqual([
      ['authorization_code', true],
      ['implicit', true],
      ['refresh_token', true],
      ['password', true],
      ['client_credentials', false],
      ['urn:ietf:params:oauth:grant-type:token-exchange', true],
      ['urn:ietf:params:oauth:grant-type:jwt-bearer', true],
      ['urn:ietf:params:oauth:grant-type:device_code', true],
      ['urn:openid:params:grant-type:ciba', true],
    ]);
    for (const g of GRANTS) expect(g.parameters.length).toBeGreaterThan(0);
  });

  it.each([...TOKEN_GRANTS.keys()])(
    'the token endpoint dispatches grant_type=%s to its handler',
    async (type) => {
      // ledger-sync lists only client_credentials and refresh_token: every other grant reaches its handler,
      // which refuses the client (unauthorized_client) or the request, never unsupported_grant_type.
      const { json } = await postForm(
        idp.endpoints.token,
        { grant_type: type },
        { authorization: basicFor('ledger-sync') },
      );
      expect(json['error']).not.toBe('unsupported_grant_type');
    },
  );

  it.each(['implicit', 'device_code', 'urn:ietf:params:oauth:grant-type:saml2-bearer'])(
    'grant_type=%s is not a token-endpoint grant: unsupported_grant_type',
    async (type) => {
      const { status, json } = await postForm(
        idp.endpoints.token,
        { grant_type: type },
        { authorization: basicFor('ledger-sync') },
      );
      expect(status).toBe(400);
      expect(json).toEqual({
        error: 'unsupported_grant_type',
        error_description: `Unsupported grant_type "${type}" (supported: authorization_code, refresh_token, password, client_credentials, urn:ietf:params:oauth:grant-type:token-exchange, urn:ietf:params:oauth:grant-type:jwt-bearer, urn:ietf:params:oauth:grant-type:device_code, urn:openid:params:grant-type:ciba)`,
      });
    },
  );
});
