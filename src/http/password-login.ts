// A Keycloak realm's username and password form on the login page: what its POST says (the user it signs in, or
// Keycloak's words for why not) and what the page shows of it.
import { isDisabled, userByLoginName, type Realm, type Subject } from '../fixtures/realm.js';
import type { Params } from '../oauth/params.js';
import { passwordMatches } from '../oauth/password-check.js';
import type { RealmContext } from '../realm/context.js';
import type { PasswordForm } from './pages.js';

/** A Keycloak realm's login form as posted: the user it signs in, or Keycloak's words for why not. */
interface PostedLogin {
  username: string;
  user?: Subject;
  error?: NonNullable<PasswordForm['error']>;
}

/**
 * The username and password of a Keycloak realm's login form, checked as Keycloak checks them: the password
 * first (the same answer for an unknown user), then whether the user may sign in. Undefined when no form was
 * posted.
 */
export async function postedLogin(
  p: RealmContext,
  method: string,
  params: Params,
): Promise<PostedLogin | undefined> {
  if (method !== 'POST' || p.realm.keycloak === undefined) return undefined;
  if (!params.has('username') && !params.has('password')) return undefined;
  const username = params.get('username') ?? '';
  const password = params.get('password');
  const user = userByLoginName(p.realm, username);
  if (user === undefined || password === undefined || !(await passwordMatches(p, user, password)))
    return { username, error: { message: 'Invalid username or password.', beside: true } };
  if (isDisabled(p.realm, user.username))
    return {
      username,
      error: { message: 'Account is disabled, contact your administrator.', beside: false },
    };
  return { username, user };
}

/** A Keycloak realm's login page has its username and password form; with what was posted, if anything. */
export function passwordForm(realm: Realm, posted: PostedLogin | undefined): PasswordForm | undefined {
  const representation = realm.keycloak?.representation;
  if (representation === undefined) return undefined;
  return {
    realm: representation.displayName || realm.name,
    email: representation.loginWithEmailAllowed !== false,
    ...(posted !== undefined ? { username: posted.username } : {}),
    ...(posted?.error !== undefined ? { error: posted.error } : {}),
  };
}
