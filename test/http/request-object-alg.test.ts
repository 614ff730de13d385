// A client's one request-object alg (fixtures `requestObjectSigningAlg`, Keycloak's client attribute
// `request.object.signature.alg`): an object with another alg is invalid_request_object; `any` (the
// default) takes none, RS256 and ES256.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { FixturesInput } from '../../src/fixtures/schema.js';
import { tempDir } from '../helpers/files.js';
import { authorizeWith, redirectParams } from '../helpers/flows.js';
import { fjordRequestObject, TELLER_CB, VAULT_CB } from '../helpers/jwt.js';
import { FJORD_FIXTURES, useIdp } from '../helpers/server.js';

function fixtures(): FixturesInput {
  const f = parse(readFileSync(FJORD_FIXTURES, 'utf8')) as FixturesInput;
  const clients = f.clients as Record<string, Record<string, unknown>>;
  clients['vault-signer'] = { ...clients['vault-signer'], requestObjectSigningAlg: 'RS256' };
  clients['teller-web'] = { ...clients['teller-web'], requestObjectSigningAlg: 'none' };
  return f;
}

const idp = useIdp(() => ({ fixtures: fixtures() }));

/** A request object of `client`, unsigned or RS256 with vault-signer's key. */
const requestObject = (client: string, alg: 'none' | 'RS256'): Promise<string> =>
  fjordRequestObject(idp, { client, alg });

describe("a client's one request-object alg", () => {
  it.each<[string, string, 'none' | 'RS256', string | null]>([
    ['vault-signer', VAULT_CB, 'RS256', null],
    [
      'vault-signer',
      VAULT_CB,
      'none',
      'Invalid request object: alg "none": client "vault-signer" requires request objects with alg RS256',
    ],
    ['teller-web', TELLER_CB, 'none', null],
    [
      'teller-web',
      TELLER_CB,
      'RS256',
      'Invalid request object: alg "RS256": client "teller-web" requires request objects with alg none',
    ],
  ])('%s (redirect %s), an object with alg %s: refused with %j', async (client, cb, alg, refusal) => {
    const response = await authorizeWith(idp, {
      client_id: client,
      response_type: 'code',
      redirect_uri: cb,
      state: 'query-state',
      request: await requestObject(client, alg),
    });
    const params = await redirectParams(response, cb);
    if (refusal === null) {
      expect(params.get('error'), params.get('error_description') ?? '').toBeNull();
      expect(params.get('code')).toBeTruthy();
    } else {
      expect(params.get('error')).toBe('invalid_request_object');
      expect(params.get('error_description')).toBe(refusal);
      expect(params.get('code')).toBeNull();
    }
  });
});

describe("a Keycloak realm's request.object.signature.alg", () => {
  const dir = tempDir();
  afterAll(() => dir.remove());
  const file = join(dir.dir, 'objects-realm.json');
  const client = (clientId: string, alg?: string) => ({
    clientId,
    secret: `${clientId}-secret`,
    redirectUris: ['http://127.0.0.1/cb'],
    ...(alg !== undefined ? { attributes: { 'request.object.signature.alg': alg } } : {}),
  });
  writeFileSync(
    file,
    JSON.stringify({
      realm: 'objects',
      enabled: true,
      clients: [client('signed', 'RS256'), client('unsigned', 'none'), client('any', 'any'), client('plain')],
    }),
  );
  const kc = useIdp({ fixtures: file });

  it('is the client\'s one alg; "any" or nothing leaves every alg', () => {
    const alg = (id: string) => kc.provider.realm.clients.get(id)?.requestObjectSigningAlg;
    expect([alg('signed'), alg('unsigned'), alg('any'), alg('plain')]).toEqual([
      'RS256',
      'none',
      undefined,
      undefined,
    ]);
  });
});
