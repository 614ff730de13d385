// Starts and stops real mock-idp servers on 127.0.0.1:0 for tests, from a fixtures file or object.
import { fileURLToPath } from 'node:url';
import { startMockIdp, type MockIdp, type MockIdpOptions } from '../../src/server.js';

/** The realm most tests use: written for these tests in the PRODUCT.md §3 format, not the bundled one. */
export const FJORD_FIXTURES = fileURLToPath(new URL('../fixtures-data/fjord.yaml', import.meta.url));
/** Private JWK of the fixture client `vault-signer` (private_key_jwt). */
export const VAULT_SIGNER_KEY = fileURLToPath(
  new URL('../fixtures-data/vault-signer.private.jwk.json', import.meta.url),
);

/** The 2030-01-01T00:00:00Z instant tests freeze the clock at, in epoch seconds. */
export const Y2030 = 1_893_456_000;

export interface Endpoints {
  discovery: string;
  token: string;
  introspect: string;
  certs: string;
  auth: string;
  userinfo: string;
  logout: string;
  revoke: string;
}

export interface TestIdp extends MockIdp {
  endpoints: Endpoints;
}

export function endpointsOf(issuer: string): Endpoints {
  const oidc = `${issuer}/protocol/openid-connect`;
  return {
    discovery: `${issuer}/.well-known/openid-configuration`,
    token: `${oidc}/token`,
    introspect: `${oidc}/token/introspect`,
    certs: `${oidc}/certs`,
    auth: `${oidc}/auth`,
    userinfo: `${oidc}/userinfo`,
    logout: `${oidc}/logout`,
    revoke: `${oidc}/revoke`,
  };
}

/** Starts a server (default: the fjord fixtures, 127.0.0.1, port 0). The caller closes it. */
export async function startIdp(options: MockIdpOptions = {}): Promise<TestIdp> {
  const idp = await startMockIdp({ fixtures: FJORD_FIXTURES, host: '127.0.0.1', port: 0, ...options });
  return Object.assign(idp, { endpoints: endpointsOf(idp.issuer) });
}
