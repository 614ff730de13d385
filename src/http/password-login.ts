// A Keycloak realm's username and password form on the login page: what its POST says (the user it signs in,
// Keycloak's words for why not, or the page of a required action the user must do first) and what the page
// shows of it.
import { isDisabled, userByLoginName, type Realm, type Subject } from '../fixtures/realm.js';
import type { Params } from '../oauth/params.js';
import { passwordMatches } from '../oauth/password-check.js';
import type { RealmContext } from '../realm/context.js';
import type { ActionStage, PasswordForm } from './pages.js';
import { firstStep, postedStep, type CompleteAction, type StepOutcome } from './required-actions.js';

/**
 * A Keycloak realm's login form as posted: the user it signs in, Keycloak's words for why not, the page of a
 * required action to show (see required-actions.ts), or a Decline on one (the client hears access_denied).
 */
interface PostedLogin {
  username: string;
  user?: Subject;
  error?: NonNullable<PasswordForm['error']>;
  step?: ActionStage;
  declined?: true;
  /** A refusal's event: Keycloak's error string and the user it names. */
  event?: { error: string; userId?: string };
}

const TIMED_OUT: PostedLogin = {
  username: '',
  error: { message: 'Your login attempt timed out. Login will start from the beginning.', beside: false },
};

/**
 * The username and password of a Keycloak realm's login form, checked as Keycloak checks them: the password
 * first (the same answer for an unknown user), then whether the user may sign in, then the user's required
 * actions (with `complete` to save them). Or a required action's page as posted (its `session_code`).
 * Undefined when no form was posted.
 */
export async function postedLogin(
  p: RealmContext,
  method: string,
  params: Params,
  complete?: CompleteAction,
): Promise<PostedLogin | undefined> {
  if (method !== 'POST' || p.realm.keycloak === undefined) return undefined;
  if (params.has('session_code') && complete !== undefined)
    return outcome(p, await postedStep(p, params.get('session_code') ?? '', params, complete));
  if (!params.has('username') && !params.has('password')) return undefined;
  const username = params.get('username') ?? '';
  const password = params.get('password');
  const user = userByLoginName(p.realm, username);
  const invalid = { message: 'Invalid username or password.', beside: true };
  if (user === undefined) return { username, error: invalid, event: { error: 'user_not_found' } };
  if (password === undefined || !(await passwordMatches(p, user, password)))
    return { username, error: invalid, event: { error: 'invalid_user_credentials', userId: user.sub } };
  if (isDisabled(p.realm, user.username))
    return {
      username,
      error: { message: 'Account is disabled, contact your administrator.', beside: false },
      event: { error: 'user_disabled', userId: user.sub },
    };
  // As Keycloak: the right password of a user with required actions leads to their pages, not in.
  const kcUser = p.realm.keycloak.users.get(user.username);
  if (complete === undefined || kcUser === undefined) return { username, user };
  return { ...(await outcome(p, await firstStep(p, kcUser, complete))), username };
}

/** A required-action step as the login form's answer. */
function outcome(p: RealmContext, step: StepOutcome): PostedLogin {
  if ('stage' in step) return { username: step.username, step: step.stage };
  if ('declined' in step) return { username: step.declined, declined: true };
  const user = 'signIn' in step ? p.realm.users.get(step.signIn) : undefined;
  return user !== undefined ? { username: user.username, user } : TIMED_OUT;
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
