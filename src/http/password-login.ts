// A Keycloak realm's username and password form on the login page: what its POST says (the user it signs in, or
// Keycloak's words for why not) and what the page shows of it.
import { jwtVerify, SignJWT } from 'jose';
import { isDisabled, userByLoginName, type Realm, type Subject } from '../fixtures/realm.js';
import type { Params } from '../oauth/params.js';
import { passwordMatches } from '../oauth/password-check.js';
import type { RealmContext } from '../realm/context.js';
import { hmacKey } from '../tokens/sign.js';
import type { PasswordForm, UpdateStage } from './pages.js';

/** Sets a user's new password (the realm's admin side makes the change); see RealmHooks.updatePassword. */
export type UpdatePassword = (username: string, password: string) => Promise<void>;

/** How long the "Update password" page's code holds, in seconds (Keycloak's login action lifespan). */
const UPDATE_LIFESPAN_S = 300;
const UPDATE_CODE_TYPE = 'update-password';

/** The page's proof that `username` gave the right password a moment ago: an HS256 JWT of the realm's secret. */
async function updateCode(p: RealmContext, username: string): Promise<string> {
  const now = p.clock.nowSeconds();
  return new SignJWT({ typ: UPDATE_CODE_TYPE })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(username)
    .setIssuedAt(now)
    .setExpirationTime(now + UPDATE_LIFESPAN_S)
    .sign(await hmacKey(p.secret));
}

/** The user a page's code was made for, while it holds; undefined for one altered, expired or of another kind. */
async function userOfCode(p: RealmContext, code: string): Promise<string | undefined> {
  try {
    const { payload } = await jwtVerify(code, await hmacKey(p.secret), {
      algorithms: ['HS256'],
      currentDate: p.clock.now(),
    });
    return payload['typ'] === UPDATE_CODE_TYPE && typeof payload.sub === 'string' ? payload.sub : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A Keycloak realm's login form as posted: the user it signs in, Keycloak's words for why not, or (a user with
 * UPDATE_PASSWORD pending) the "Update password" page to show.
 */
interface PostedLogin {
  username: string;
  user?: Subject;
  error?: NonNullable<PasswordForm['error']>;
  update?: UpdateStage;
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
  updatePassword?: UpdatePassword,
): Promise<PostedLogin | undefined> {
  if (method !== 'POST' || p.realm.keycloak === undefined) return undefined;
  const code = params.get('session_code');
  if (code !== undefined && updatePassword !== undefined)
    return postedUpdate(p, code, params, updatePassword);
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
  // As Keycloak: the right password of a user who must choose a new one leads to its page, not in.
  if (updatePassword !== undefined && p.realm.keycloak?.users.get(user.username)?.updatePassword === true)
    return { username, update: { code: await updateCode(p, user.username) } };
  return { username, user };
}

/** The "Update password" page as posted: the user signs in with the new password set, or the page again. */
async function postedUpdate(
  p: RealmContext,
  code: string,
  params: Params,
  updatePassword: UpdatePassword,
): Promise<PostedLogin> {
  const username = await userOfCode(p, code);
  const user = username !== undefined ? p.realm.users.get(username) : undefined;
  if (username === undefined || user === undefined)
    return {
      username: '',
      error: { message: 'Your login attempt timed out. Login will start from the beginning.', beside: false },
    };
  const chosen = params.get('password-new') ?? '';
  if (chosen === '')
    return { username, update: { code, error: { field: 'password', message: 'Please specify password.' } } };
  if (chosen !== params.get('password-confirm'))
    return {
      username,
      update: { code, error: { field: 'password-confirm', message: "Passwords don't match." } },
    };
  await updatePassword(username, chosen);
  return { username, user: p.realm.users.get(username) ?? user };
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
