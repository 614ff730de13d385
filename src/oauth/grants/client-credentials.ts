// grant_type=client_credentials: the client's service account, no ID token.
import type { RealmContext } from '../../realm/context.js';
import type { Grant } from '../../tokens/claims.js';
import type { Client } from '../../fixtures/realm.js';
import type { AuthMethod } from '../../fixtures/schema.js';
import { explained, unauthorizedClient, type OAuthError } from '../errors.js';
import { grantsListed, howToAllow } from './not-allowed.js';
import { versionedGrant } from '../version-rules.js';
import { signedIn, type GrantDefinition, type GrantRequest, type TokenResponseShape } from './grant.js';
import { clientCredentialsScopes, parseScope } from '../scopes.js';

/**
 * Keycloak's refusal of a client that may not use the grant (its ClientCredentialsGrantType): 401
 * unauthorized_client, a public client before one without service accounts. The mock's own advice goes to
 * the debug log.
 */
function keycloakRefusal(client: Client, method: AuthMethod, advice: string): OAuthError | undefined {
  const isPublic = method === 'none' || client.authMethods.every((m) => m === 'none');
  const description = isPublic
    ? 'Public client not allowed to retrieve service account'
    : !client.grants.includes('client_credentials')
      ? 'Client not enabled to retrieve service account'
      : undefined;
  return description !== undefined
    ? explained(unauthorizedClient(description, 401), { why: advice })
    : undefined;
}

async function grantClientCredentials(
  p: RealmContext,
  { client, params, method, issuer }: GrantRequest,
): Promise<Grant> {
  const advice = `Client "${client.id}" is not allowed the client_credentials grant (${grantsListed(client)}); ${howToAllow(p.realm, client, 'client_credentials')}`;
  // A Keycloak realm's suites check Keycloak's status and words; YAML fixtures are told how to allow the grant.
  if (p.realm.keycloak !== undefined) {
    const refusal = keycloakRefusal(client, method, advice);
    if (refusal !== undefined) throw refusal;
  }
  if (!client.grants.includes('client_credentials')) throw unauthorizedClient(advice);
  // RFC 6749 §4.4: only a confidential client may use it (Keycloak: a public client has no service account).
  if (method === 'none') {
    throw unauthorizedClient(
      `Public client "${client.id}" is not allowed to retrieve a service account: client_credentials needs client credentials`,
    );
  }
  const scopes = clientCredentialsScopes(p.realm, client, parseScope(params.get('scope')));
  return signedIn(p, { client, issuer }, versionedGrant(p.realm, client, scopes));
}

export const clientCredentialsGrant = {
  type: 'client_credentials',
  parameters: ['scope'],
  issuesIdToken: false,
  handle: grantClientCredentials,
  // A Keycloak realm's client gets a refresh token only where it turned one on, as Keycloak's does.
  shape: (_params, client, realm): TokenResponseShape => ({
    refreshToken: realm.keycloak?.clients.get(client.id)?.refreshForClientCredentials ?? true,
    idToken: false,
  }),
} as const satisfies GrantDefinition;
