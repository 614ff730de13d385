// Discovery and JWKS over HTTP: every field of the interface document, headers, the issuer per request or fixed.
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { calculateJwkThumbprint, importSPKI, jwtVerify, type JWK } from 'jose';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/files.js';
import { clientCredentials, introspect } from '../helpers/flows.js';
import { basic, get, getWithHost, postForm } from '../helpers/http.js';
import { decode } from '../helpers/jwt.js';
import { startIdp, type TestIdp, useIdp } from '../helpers/server.js';

/** The discovery document the interface document and PRODUCT.md §2 describe, for a realm base URL. */
function expectedDiscovery(base: string): Record<string, unknown> {
  const oidc = `${base}/protocol/openid-connect`;
  return {
    issuer: base,
    authorization_endpoint: `${oidc}/auth`,
    token_endpoint: `${oidc}/token`,
    token_introspection_endpoint: `${oidc}/token/introspect`,
    introspection_endpoint: `${oidc}/token/introspect`,
    userinfo_endpoint: `${oidc}/userinfo`,
    end_session_endpoint: `${oidc}/logout`,
    revocation_endpoint: `${oidc}/revoke`,
    jwks_uri: `${oidc}/certs`,
    check_session_iframe: `${oidc}/login-status-iframe.html`,
    registration_endpoint: `${base}/clients-registrations/openid-connect`,
    pushed_authorization_request_endpoint: `${oidc}/ext/par/request`,
    require_pushed_authorization_requests: false,
    device_authorization_endpoint: `${oidc}/auth/device`,
    backchannel_authentication_endpoint: `${oidc}/ext/ciba/auth`,
    backchannel_token_delivery_modes_supported: ['poll'],
    backchannel_user_code_parameter_supported: false,
    grant_types_supported: [
      'authorization_code',
      'implicit',
      'refresh_token',
      'password',
      'client_credentials',
      'urn:ietf:params:oauth:grant-type:token-exchange',
      'urn:ietf:params:oauth:grant-type:jwt-bearer',
      'urn:ietf:params:oauth:grant-type:device_code',
      'urn:openid:params:grant-type:ciba',
    ],
    response_types_supported: [
      'code',
      'none',
      'id_token',
      'token',
      'id_token token',
      'code id_token',
      'code token',
      'code id_token token',
    ],
    subject_types_supported: ['public', 'pairwise'],
    id_token_signing_alg_values_supported: ['RS256', 'ES256'],
    userinfo_signing_alg_values_supported: ['RS256', 'ES256'],
    request_object_signing_alg_values_supported: ['none', 'RS256', 'ES256'],
    request_object_encryption_alg_values_supported: ['RSA-OAEP-256', 'RSA-OAEP'],
    request_object_encryption_enc_values_supported: [
      'A128GCM',
      'A192GCM',
      'A256GCM',
      'A128CBC-HS256',
      'A192CBC-HS384',
      'A256CBC-HS512',
    ],
    response_modes_supported: ['query', 'fragment', 'form_post'],
    token_endpoint_auth_methods_supported: [
      'private_key_jwt',
      'client_secret_basic',
      'client_secret_post',
      'client_secret_jwt',
    ],
    token_endpoint_auth_signing_alg_values_supported: ['RS256', 'ES256', 'HS256', 'HS384', 'HS512'],
    claims_supported: [
      'sub',
      'iss',
      'auth_time',
      'name',
      'given_name',
      'family_name',
      'preferred_username',
      'email',
    ],
    claim_types_supported: ['normal'],
    claims_parameter_supported: false,
    // The realm's scopes: built-in ones, then those of test/fixtures-data/fjord.yaml.
    scopes_supported: [
      'openid',
      'profile',
      'email',
      'offline_access',
      'nnin_altsub',
      'idp_proof',
      'ledger.read',
      'ledger.write',
      'statements',
    ],
    request_parameter_supported: true,
    request_uri_parameter_supported: true,
    code_challenge_methods_supported: ['plain', 'S256'],
    frontchannel_logout_supported: true,
    frontchannel_logout_session_supported: true,
    backchannel_logout_supported: true,
    backchannel_logout_session_supported: true,
    dpop_signing_alg_values_supported: [
      'ES256',
      'ES384',
      'ES512',
      'PS256',
      'PS384',
      'PS512',
      'RS256',
      'RS384',
      'RS512',
      'EdDSA',
      'Ed25519',
    ],
  };
}

const idp = useIdp();

describe('discovery document', () => {
  it('has every field and value of the interface document, and nothing else', async () => {
    const answer = await get(idp.endpoints.discovery);
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual(expectedDiscovery(`${idp.url}/realms/fjord`));
    expect(idp.issuer).toBe(`${idp.url}/realms/fjord`);
  });

  it('carries Cache-Control: no-cache and application/json', async () => {
    const answer = await get(idp.endpoints.discovery);
    expect(answer.headers.get('cache-control')).toBe('no-cache');
    expect(answer.headers.get('content-type')).toBe('application/json');
  });

  it('is also served with a trailing slash', async () => {
    expect((await get(`${idp.endpoints.discovery}/`)).json).toEqual(expectedDiscovery(idp.issuer));
  });

  it.each<[string, Record<string, string>, string]>([
    ['Host', { host: 'sso.fjord.test' }, 'http://sso.fjord.test'],
    ['Host with port', { host: 'sso.fjord.test:8081' }, 'http://sso.fjord.test:8081'],
    ['Host with the default port', { host: 'sso.fjord.test:80' }, 'http://sso.fjord.test'],
    ['IPv6 Host', { host: '[::1]:8081' }, 'http://[::1]:8081'],
    [
      'X-Forwarded-Proto',
      { host: 'sso.fjord.test:8443', 'x-forwarded-proto': 'https' },
      'https://sso.fjord.test:8443',
    ],
    [
      'X-Forwarded-Host',
      { host: 'internal:8080', 'x-forwarded-host': 'id.fjord.test', 'x-forwarded-proto': 'https' },
      'https://id.fjord.test',
    ],
    [
      'X-Forwarded-Host with :443',
      { 'x-forwarded-host': 'id.fjord.test:443', 'x-forwarded-proto': 'https' },
      'https://id.fjord.test',
    ],
    [
      'X-Forwarded-Port',
      { 'x-forwarded-host': 'id.fjord.test', 'x-forwarded-proto': 'https', 'x-forwarded-port': '9443' },
      'https://id.fjord.test:9443',
    ],
    [
      'X-Forwarded-Port replacing a Host port',
      { host: 'localhost:8080', 'x-forwarded-port': '32768' },
      'http://localhost:32768',
    ],
    [
      'a list of proxies (first wins)',
      { 'x-forwarded-host': 'edge.fjord.test, inner.fjord.test', 'x-forwarded-proto': 'https, http' },
      'https://edge.fjord.test',
    ],
  ])('derives the issuer from %s', async (_name, headers, origin) => {
    const answer = await getWithHost(idp.endpoints.discovery, headers);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual(expectedDiscovery(`${origin}/realms/fjord`));
  });

  it('ignores a malformed Host and uses the listening address', async () => {
    const answer = await getWithHost(idp.endpoints.discovery, { host: 'evil.test/"><script>' });
    expect(answer.status).toBe(200);
    expect((JSON.parse(answer.body) as { issuer: string }).issuer).toBe(idp.issuer);
  });

  it('ignores an unknown X-Forwarded-Proto', async () => {
    const answer = await getWithHost(idp.endpoints.discovery, {
      host: 'sso.fjord.test',
      'x-forwarded-proto': 'gopher',
    });
    expect((JSON.parse(answer.body) as { issuer: string }).issuer).toBe('http://sso.fjord.test/realms/fjord');
  });

  it('stamps tokens with the issuer of the request, and still knows them from another origin', async () => {
    const response = await fetch(idp.endpoints.token, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`ledger-sync:${encodeURIComponent('sync:pa ss+w%rd/ø')}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
        'x-forwarded-host': 'id.fjord.test',
        'x-forwarded-proto': 'https',
      },
      body: 'grant_type=client_credentials&scope=ledger.read',
    });
    expect(response.status).toBe(200);
    const { access_token } = (await response.json()) as { access_token: string };
    expect(decode(access_token).claims.iss).toBe('https://id.fjord.test/realms/fjord');
    expect((await introspect(idp, access_token)).json.active).toBe(true);
  });
});

describe('a fixed issuer', () => {
  it.each<[string, () => Promise<TestIdp>]>([
    ['the issuer option (--issuer)', () => startIdp({ issuer: 'https://login.fjord.test/realms/fjord/' })],
    [
      'the fixtures key issuer',
      () =>
        startIdp({
          fixtures: {
            realm: 'fjord',
            issuer: 'https://login.fjord.test/realms/fjord',
            clients: { 'ledger-sync': { secret: 'sync:pa ss+w%rd/ø', grants: ['client_credentials'] } },
          },
        }),
    ],
  ])('from %s wins over Host and X-Forwarded-*, in discovery and tokens', async (_name, start) => {
    const fixed = await start();
    try {
      const base = 'https://login.fjord.test/realms/fjord';
      expect(fixed.issuer).toBe(base);
      const discovery = `${fixed.url}/realms/fjord/.well-known/openid-configuration`;
      // scopes_supported follows each realm's fixtures (tested above); here the URLs matter.
      const expected = { ...expectedDiscovery(base), scopes_supported: expect.any(Array) };
      expect((await get(discovery)).json).toEqual(expected);
      const proxied = await getWithHost(discovery, {
        host: 'other.test',
        'x-forwarded-proto': 'http',
        'x-forwarded-host': 'x.test',
      });
      expect(JSON.parse(proxied.body)).toEqual(expected);
      const local = {
        ...fixed,
        endpoints: { ...fixed.endpoints, token: `${fixed.url}/realms/fjord/protocol/openid-connect/token` },
      };
      const { json } = await clientCredentials(local);
      expect(decode(json.access_token).claims.iss).toBe(base);
    } finally {
      await fixed.close();
    }
  });
});

describe('JWKS (/certs)', () => {
  it('publishes the RSA key that signs tokens, the EC key, then the encryption key, and nothing private', async () => {
    const answer = await get<{ keys: Record<string, unknown>[] }>(idp.endpoints.certs);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('no-cache');
    expect(answer.json.keys).toHaveLength(3);
    const [key, ec, enc] = answer.json.keys;
    expect(ec).toMatchObject({ kty: 'EC', use: 'sig', alg: 'ES256', crv: 'P-256' });
    expect(ec).not.toHaveProperty('d');
    expect(Object.keys(key ?? {}).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
    expect(key).toMatchObject({ kty: 'RSA', use: 'sig', alg: 'RS256', e: 'AQAB' });
    expect(Object.keys(enc ?? {}).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
    expect(enc).toMatchObject({ kty: 'RSA', use: 'enc', alg: 'RSA-OAEP-256', e: 'AQAB' });
    expect(enc?.['kid']).not.toBe(key?.['kid']);
    const { json } = await clientCredentials(idp);
    expect(decode(json.access_token).header.kid).toBe(key?.['kid']);
  });

  it('publishes every fixtures key once (file relative to the fixtures, PEM, JWK); the first signs', async () => {
    const { dir, remove } = tempDir();
    try {
      const first = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
      const second = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
      await writeFile(join(dir, 'first.pem'), first.export({ format: 'pem', type: 'pkcs1' }));
      const pem = second.export({ format: 'pem', type: 'pkcs8' }) as string;
      await writeFile(
        join(dir, 'fixtures.yaml'),
        [
          'realm: fjord',
          'keys:',
          '  - file: first.pem',
          `  - pem: ${JSON.stringify(pem)}`,
          `  - jwk: ${JSON.stringify(second.export({ format: 'jwk' }))}`,
          'clients:',
          '  ledger-sync: { secret: s, grants: [client_credentials] }',
        ].join('\n'),
      );
      const keyed = await startIdp({ fixtures: join(dir, 'fixtures.yaml') });
      try {
        const kid = async (k: typeof first): Promise<string> =>
          calculateJwkThumbprint(createPublicKey(k).export({ format: 'jwk' }) as JWK, 'sha256');
        const jwks = await get<{ keys: { kid: string; use: string }[] }>(keyed.endpoints.certs);
        expect(jwks.json.keys.map((k) => [k.use, k.kid])).toEqual([
          ['sig', await kid(first)],
          ['sig', await kid(second)],
          ['sig', expect.any(String)],
          ['enc', expect.any(String)],
        ]);
        const answer = await postForm<{ access_token: string }>(
          keyed.endpoints.token,
          { grant_type: 'client_credentials' },
          { authorization: basic('ledger-sync', 's') },
        );
        expect(decode(answer.json.access_token).header.kid).toBe(await kid(first));
      } finally {
        await keyed.close();
      }
    } finally {
      remove();
    }
  });
});

describe("the realm's public information (GET /realms/{realm}), as Keycloak's", () => {
  it.each(['', '/'])(
    'answers at the realm base%s: the RS256 key that signs tokens, the service URLs',
    async (end) => {
      const answer = await get(idp.issuer + end);
      expect(answer.status, answer.text).toBe(200);
      expect(answer.headers.get('cache-control')).toBe('no-cache');
      expect(answer.json).toEqual({
        realm: 'fjord',
        public_key: expect.stringMatching(/^MII[A-Za-z0-9+/=]+$/),
        'token-service': `${idp.issuer}/protocol/openid-connect`,
        'account-service': `${idp.issuer}/account`,
        'tokens-not-before': 0,
      });
      // A client that verifies with this key (python-keycloak's public_key()) accepts the realm's tokens.
      const pem = `-----BEGIN PUBLIC KEY-----\n${String(answer.json['public_key'])}\n-----END PUBLIC KEY-----`;
      const token = (await clientCredentials(idp)).json.access_token;
      const { payload } = await jwtVerify(token, await importSPKI(pem, 'RS256'), {
        issuer: idp.issuer,
        currentDate: idp.clock.now(),
      });
      expect(payload.azp).toBe('ledger-sync');
    },
  );
});
