// Realm files as projects have them, served side by side with a mock-idp YAML realm: a `kc.sh export` of
// Keycloak 26 (PBKDF2 password hashes, every section an export writes) and a sample project's older
// realm-export.json given in-process as an object. Each user's tokens checked role by role through
// openid-client 6 and verified with jose against the realm's JWKS.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import * as client from 'openid-client';
import { describe, expect, it } from 'vitest';
import { codeFlow } from '../helpers/openid-client.js';
import { FJORD_FIXTURES, useIdp } from '../helpers/server.js';

const NORTHWIND = fileURLToPath(new URL('../fixtures-data/keycloak/northwind-export.json', import.meta.url));
const SPRING_DEMO = JSON.parse(
  readFileSync(new URL('../fixtures-data/keycloak/spring-demo-realm.json', import.meta.url), 'utf8'),
) as { realm: string };
const ACCOUNT = ['manage-account', 'manage-account-links', 'view-profile'];
/** mock-idp listens on http://; openid-client refuses that unless told otherwise. */
const insecure = { execute: [client.allowInsecureRequests] };

const idp = useIdp({ fixtures: [NORTHWIND, SPRING_DEMO, FJORD_FIXTURES] });

function realmOf(name: string): { issuer: string; clock: { now(): Date } } {
  const realm = idp.realms[name];
  if (realm === undefined) throw new Error(`no realm ${name}`);
  return realm;
}

function discover(realm: string, clientId: string, secret: string): Promise<client.Configuration> {
  const auth = client.ClientSecretBasic(secret);
  return client.discovery(new URL(realmOf(realm).issuer), clientId, undefined, auth, insecure);
}

async function verify(realm: string, token: string): Promise<JWTPayload & Record<string, unknown>> {
  const { issuer, clock } = realmOf(realm);
  const jwks = createRemoteJWKSet(new URL(`${issuer}/protocol/openid-connect/certs`));
  const { payload } = await jwtVerify(token, jwks, {
    issuer,
    algorithms: ['RS256'],
    currentDate: clock.now(),
  });
  return payload as JWTPayload & Record<string, unknown>;
}

const sorted = (values: unknown): string[] => [...((values ?? []) as string[])].sort();
function roles(claims: Record<string, unknown>): { realm: string[]; resources: Record<string, string[]> } {
  const access = (claims['resource_access'] ?? {}) as Record<string, { roles: string[] }>;
  return {
    realm: sorted((claims['realm_access'] as { roles?: string[] } | undefined)?.roles),
    resources: Object.fromEntries(Object.entries(access).map(([c, r]) => [c, sorted(r.roles)])),
  };
}

describe('Keycloak realm files beside a YAML realm', () => {
  it('serves every realm, the first file first', () => {
    expect(Object.keys(idp.realms).sort()).toEqual(['fjord', 'northwind', 'spring-demo']);
    expect(idp.issuer).toBe(realmOf('northwind').issuer);
  });

  describe('a kc.sh export (Keycloak 26)', () => {
    it.each([
      [
        'anna: a composite realm role with a client composite, a group two levels down',
        'anna',
        'anna-password',
        [
          'auditor',
          'default-roles-northwind',
          'offline_access',
          'sales',
          'sales-manager',
          'uma_authorization',
        ],
        { account: ACCOUNT, 'orders-api': ['read', 'write'] },
        { groups: ['nordics'], region: 'nordics', locale: 'nb', name: 'Anna Berg' },
      ],
      [
        'ben: a top-level group and a direct client role',
        'ben',
        'ben-password',
        ['default-roles-northwind', 'offline_access', 'sales', 'uma_authorization'],
        { account: ACCOUNT, 'orders-api': ['read'] },
        { groups: ['regions'], name: 'Ben Olsen' },
      ],
    ] as const)(
      '%s (password grant against the hash)',
      async (_name, username, password, realmRoles, resources, extra) => {
        const config = await discover('northwind', 'storefront', 'storefront-secret');
        const tokens = await client.genericGrantRequest(config, 'password', {
          username,
          password,
          scope: 'openid',
        });
        const access = await verify('northwind', tokens.access_token);
        expect(roles(access)).toEqual({ realm: [...realmRoles], resources });
        expect(sorted(access['aud'])).toEqual(['account', 'orders-api']);
        expect(access).toMatchObject({
          ...extra,
          preferred_username: username,
          email: `${username}@northwind.test`,
          email_verified: true,
          typ: 'Bearer',
          azp: 'storefront',
          scope: 'openid profile email',
          'allowed-origins': ['http://localhost:8081'],
        });
        expect(tokens.expires_in).toBe(600);
        const id = await verify('northwind', tokens.id_token as string);
        expect(id).toMatchObject({ ...extra, typ: 'ID', aud: 'storefront' });
      },
    );

    it('refuses a wrong password against the hash as Keycloak does', async () => {
      const config = await discover('northwind', 'storefront', 'storefront-secret');
      const error = await client
        .genericGrantRequest(config, 'password', { username: 'anna', password: 'ben-password' })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(client.ResponseBodyError);
      expect((error as client.ResponseBodyError).status).toBe(401);
      expect((error as client.ResponseBodyError).error).toBe('invalid_grant');
      expect((error as client.ResponseBodyError).error_description).toBe('Invalid user credentials');
    });

    it('gives the service account of the export its roles', async () => {
      const config = await discover('northwind', 'orders-worker', 'orders-worker-secret');
      const tokens = await client.clientCredentialsGrant(config);
      const access = await verify('northwind', tokens.access_token);
      expect(roles(access)).toEqual({
        realm: ['auditor', 'default-roles-northwind', 'offline_access', 'uma_authorization'],
        resources: { account: ACCOUNT, 'orders-api': ['read', 'write'] },
      });
      expect(access).toMatchObject({
        preferred_username: 'service-account-orders-worker',
        client_id: 'orders-worker',
      });
    });

    it('signs anna in through the code flow (a redirect URI from the export)', async () => {
      const config = await discover('northwind', 'storefront', 'storefront-secret');
      const tokens = await codeFlow(config, {
        redirect_uri: 'http://localhost:8081/login/oauth2/code/keycloak',
        scope: 'openid microprofile-jwt',
        login_hint: 'anna',
      });
      const access = await verify('northwind', tokens.access_token);
      // microprofile-jwt, asked for: upn, and the realm roles as `groups` (the client's own mapper names groups too).
      expect(access['upn']).toBe('anna');
      expect(access['scope']).toBe('openid profile email microprofile-jwt');
      expect(roles(access).realm).toContain('sales-manager');
    });
  });

  describe("a sample project's realm-export.json, given as an object", () => {
    it.each([
      [
        'user',
        'password',
        ['ROLE_USER', 'offline_access', 'uma_authorization'],
        { 'demo-api': ['todo:read'] },
        true,
      ],
      [
        'admin',
        'admin',
        ['ROLE_ADMIN', 'ROLE_USER', 'offline_access', 'uma_authorization'],
        { 'demo-api': ['todo:read', 'todo:write'] },
        false,
      ],
    ] as const)(
      '%s: roles, the old defaultRoles list and the client mapper',
      async (username, password, realmRoles, resources, verified) => {
        const config = await discover('spring-demo', 'demo-app', 'demo-app-secret');
        const tokens = await client.genericGrantRequest(config, 'password', {
          username,
          password,
          scope: 'openid',
        });
        const access = await verify('spring-demo', tokens.access_token);
        const realm = [...realmRoles, 'default-roles-spring-demo'].sort();
        // The old list holds realm roles only, and the file has no account client with default roles of its own.
        expect(roles(access)).toEqual({ realm, resources });
        expect(sorted(access['roles'])).toEqual(realm);
        expect(access['aud']).toBe('demo-api');
        expect(access['email_verified']).toBe(verified);
        const id = await verify('spring-demo', tokens.id_token as string);
        expect(sorted(id['roles'])).toEqual(realm);
      },
    );
  });

  it('leaves the YAML realm as it was: no Keycloak claims there', () => {
    expect(idp.realms['fjord']?.provider.realm.keycloak).toBeUndefined();
  });
});
