// grant_type=password (Keycloak's direct access grants): a fixture user's username and password, for a
// client that lists the grant. Wrong, unknown and password-less users get one answer (no enumeration).
import { createHash, timingSafeEqual } from 'node:crypto';
import { matchesHash } from '../../fixtures/keycloak/credentials.js';
import { isDisabled, type Subject } from '../../fixtures/realm.js';
import type { RealmContext } from '../../realm/context.js';
import type { Grant } from '../../tokens/claims.js';
import { OAuthError, unauthorizedClient } from '../errors.js';
import { versionedGrant } from '../version-rules.js';
import { signedIn, type GrantDefinition, type GrantRequest } from './grant.js';
import { grantScopes, parseScope } from '../scopes.js';

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/** Compared as digests: constant time whatever the lengths. */
function samePassword(given: string, expected: string | undefined): boolean {
  return expected !== undefined && timingSafeEqual(digest(given), digest(expected));
}

/** A Keycloak export's user: the password checked against the hash the export holds. */
async function matchesStoredHash(p: RealmContext, username: string, password: string): Promise<boolean> {
  const hash = p.realm.keycloak?.users.get(username)?.passwordHash;
  return hash !== undefined && (await matchesHash(password, hash));
}

/**
 * The user a sign-in names. A Keycloak realm stores usernames lower-case, and so finds them whatever their
 * case, and takes a user's email in place of the username as Keycloak does by default.
 */
function loginUser(p: RealmContext, name: string): Subject | undefined {
  const kc = p.realm.keycloak;
  if (kc === undefined) return p.realm.users.get(name);
  const lower = name.toLowerCase();
  const username = kc.users.has(lower) ? lower : (kc.loginEmails.get(lower) ?? lower);
  return p.realm.users.get(username);
}

async function grantPassword(p: RealmContext, { client, params, issuer }: GrantRequest): Promise<Grant> {
  if (!client.grants.includes('password'))
    throw unauthorizedClient('Client not allowed for direct access grants');
  const username = params.require('username');
  const password = params.require('password');
  const user = loginUser(p, username);
  // As Keycloak: 401 invalid_grant, the same for an unknown user, a wrong password and a user without one.
  if (
    user === undefined ||
    !(samePassword(password, user.password) || (await matchesStoredHash(p, user.username, password)))
  )
    throw new OAuthError('invalid_grant', 'Invalid user credentials', 401);
  if (isDisabled(p.realm, user.username)) throw new OAuthError('invalid_grant', 'Account disabled', 400);
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
