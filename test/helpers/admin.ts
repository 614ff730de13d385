// The Keycloak admin REST API as a suite written against Keycloak drives it: an admin client logged in at
// realm master as admin/admin, and access tokens from the password and client_credentials grants, verified
// with jose.
import KcAdminClient from '@keycloak/keycloak-admin-client';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as client from 'openid-client';
import { readAnswer, type Answer } from './http.js';
import type { Claims } from './jwt.js';
import type { TestIdp } from './server.js';

const insecure = { execute: [client.allowInsecureRequests] };

/** An admin client of `idp` with admin/admin's admin-cli token from realm master, pointed at `realmName`. */
export async function adminClient(idp: Pick<TestIdp, 'url'>, realmName = 'master'): Promise<KcAdminClient> {
  const kc = new KcAdminClient({ baseUrl: idp.url, realmName: 'master' });
  await kc.auth({ username: 'admin', password: 'admin', grantType: 'password', clientId: 'admin-cli' });
  kc.setConfig({ realmName });
  return kc;
}

/** openid-client's configuration of confidential client `clientId` (client_secret_basic), from discovery. */
export function clientConfig(
  idp: Pick<TestIdp, 'url'>,
  realm: string,
  clientId: string,
  secret: string,
): Promise<client.Configuration> {
  const issuer = new URL(`${idp.url}/realms/${realm}`);
  return client.discovery(issuer, clientId, undefined, client.ClientSecretBasic(secret), insecure);
}

/** A grant of `clientId` (client_secret_basic) through openid-client, its access token verified with jose. */
async function grantClaims(
  idp: Pick<TestIdp, 'url' | 'clock'>,
  realm: string,
  clientId: string,
  secret: string,
  grant: (config: client.Configuration) => Promise<client.TokenEndpointResponse>,
): Promise<Claims> {
  const issuer = `${idp.url}/realms/${realm}`;
  const tokens = await grant(await clientConfig(idp, realm, clientId, secret));
  const jwks = createRemoteJWKSet(new URL(`${issuer}/protocol/openid-connect/certs`));
  const { payload } = await jwtVerify(tokens.access_token, jwks, { issuer, currentDate: idp.clock.now() });
  return payload as Claims;
}

/** The password grant through openid-client, the access token verified with jose against the realm's JWKS. */
export function passwordAccessToken(
  idp: Pick<TestIdp, 'url' | 'clock'>,
  realm: string,
  clientId: string,
  secret: string,
  username: string,
  password: string,
): Promise<Claims> {
  return grantClaims(idp, realm, clientId, secret, (config) =>
    client.genericGrantRequest(config, 'password', { username, password, scope: 'openid' }),
  );
}

/** A client_credentials token through openid-client, verified with jose against the realm's JWKS. */
export function serviceAccessToken(
  idp: Pick<TestIdp, 'url' | 'clock'>,
  realm: string,
  clientId: string,
  secret: string,
): Promise<Claims> {
  return grantClaims(idp, realm, clientId, secret, (config) => client.clientCredentialsGrant(config));
}

/**
 * A request to `/admin/realms/{realm}{path}` with `kc`'s admin token and a JSON body, for the answers (status,
 * headers, error bodies) the admin client does not show.
 */
export async function adminRequest(
  idp: Pick<TestIdp, 'url'>,
  kc: KcAdminClient,
  realm: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<Answer<Record<string, unknown>>> {
  const response = await fetch(`${idp.url}/admin/realms/${realm}${path}`, {
    method,
    headers: { authorization: `Bearer ${kc.accessToken ?? ''}`, 'content-type': 'application/json' },
    ...(body !== undefined && method !== 'GET' ? { body: JSON.stringify(body) } : {}),
  });
  return readAnswer<Record<string, unknown>>(response);
}
