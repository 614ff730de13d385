// grant_type=client_credentials: the client's service account, no ID token.
import type { RealmContext } from '../../realm/context.js';
import type { Grant } from '../../tokens/claims.js';
import { unauthorizedClient } from '../errors.js';
import { grantsListed, howToAllow } from './not-allowed.js';
import { versionedGrant } from '../version-rules.js';
import { signedIn, type GrantDefinition, type GrantRequest, type TokenResponseShape } from './grant.js';
import { clientCredentialsScopes, parseScope } from '../scopes.js';

async function grantClientCredentials(
  p: RealmContext,
  { client, params, method, issuer }: GrantRequest,
): Promise<Grant> {
  if (!client.grants.includes('client_credentials')) {
    throw unauthorizedClient(
      `Client "${client.id}" is not allowed the client_credentials grant (${grantsListed(client)}); ${howToAllow(p.realm, client, 'client_credentials')}`,
    );
  }
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
