// grant_type=password (Keycloak's direct access grants): a fixture user's username and password, for a
// client that lists the grant. Wrong, unknown and password-less users get one answer (no enumeration).
import { isDisabled, userByLoginName } from '../../fixtures/realm.js';
import type { RealmContext } from '../../realm/context.js';
import type { Grant } from '../../tokens/claims.js';
import { explained, OAuthError, unauthorizedClient } from '../errors.js';
import { passwordMatches } from '../password-check.js';
import { grantsListed, howToAllow } from './not-allowed.js';
import { versionedGrant } from '../version-rules.js';
import { signedIn, type GrantDefinition, type GrantRequest } from './grant.js';
import { grantScopes, parseScope } from '../scopes.js';

async function grantPassword(p: RealmContext, { client, params, issuer }: GrantRequest): Promise<Grant> {
  // A Keycloak realm's suites check Keycloak's words; YAML fixtures are told how to allow the grant.
  if (!client.grants.includes('password'))
    throw unauthorizedClient(
      p.realm.keycloak !== undefined
        ? 'Client not allowed for direct access grants'
        : `Client not allowed for direct access grants: client "${client.id}" does not list password (${grantsListed(client)}); ${howToAllow(p.realm, client, 'password')}`,
    );
  const username = params.require('username');
  const password = params.require('password');
  const user = userByLoginName(p.realm, username);
  // As Keycloak: 401 invalid_grant, the same for an unknown user, a wrong password and a user without one
  // (its event tells them apart).
  const details = { auth_method: 'openid-connect', grant_type: 'password' };
  if (user === undefined)
    throw explained(new OAuthError('invalid_grant', 'Invalid user credentials', 401), {
      event: { error: 'user_not_found', details: { ...details, username: username.slice(0, 255) } },
    });
  const event = { userId: user.sub, details: { ...details, username: user.username } };
  if (!(await passwordMatches(p, user, password)))
    throw explained(new OAuthError('invalid_grant', 'Invalid user credentials', 401), {
      event: { ...event, error: 'invalid_user_credentials' },
    });
  if (isDisabled(p.realm, user.username))
    throw explained(new OAuthError('invalid_grant', 'Account disabled', 400), {
      event: { ...event, error: 'user_disabled' },
    });
  // A temporary password or another required action: Keycloak's sign-in page would ask for it first.
  if (p.realm.keycloak?.users.get(user.username)?.actionsPending === true)
    throw new OAuthError('invalid_grant', 'Account is not fully set up', 400);
  const granted = versionedGrant(
    p.realm,
    client,
    grantScopes(p.realm, client, parseScope(params.get('scope'))),
  );
  return signedIn(p, { client, issuer }, { user, ...granted });
}

export const passwordGrant = {
  type: 'password',
  parameters: ['username', 'password', 'scope'],
  issuesIdToken: true,
  handle: grantPassword,
} as const satisfies GrantDefinition;
