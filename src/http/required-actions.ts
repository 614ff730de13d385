// A Keycloak realm's required actions on the login form: after the right password, the page of each pending
// action the mock performs (Terms and Conditions, Update password, Update Account Information, Email
// verification), one after another in Keycloak's order; each one done is saved to the user at once, as
// Keycloak saves it. Between pages a short-lived signed code names the user and the actions left.
import { jwtVerify, SignJWT } from 'jose';
import type { KeycloakUser } from '../fixtures/keycloak/model.js';
import {
  isFormAction,
  type ActionDone,
  type FormAction,
  type ProfileFields,
} from '../fixtures/keycloak/required-actions.js';
import type { Params } from '../oauth/params.js';
import type { RealmContext } from '../realm/context.js';
import { hmacKey } from '../tokens/sign.js';
import type { ActionStage, ProfileField } from './pages.js';

/** Saves a required action a user did (the realm's admin side makes the change); see RealmHooks.completeAction. */
export type CompleteAction = (userId: string, done: ActionDone) => Promise<void>;

/** How long an action page's code holds, in seconds (Keycloak's login action lifespan). */
const CODE_LIFESPAN_S = 300;
const CODE_TYPE = 'required-actions';

/** Where the posted page leads: the next page, the sign-in (all done), a Decline, or a code that no longer holds. */
export type StepOutcome =
  { stage: ActionStage; username: string } | { signIn: string } | { declined: string } | { expired: true };

/** The page's proof that the user gave the right password a moment ago: an HS256 JWT of the realm's secret. */
async function codeFor(p: RealmContext, userId: string, actions: readonly FormAction[]): Promise<string> {
  const now = p.clock.nowSeconds();
  return new SignJWT({ typ: CODE_TYPE, actions })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(userId)
    .setIssuedAt(now)
    .setExpirationTime(now + CODE_LIFESPAN_S)
    .sign(await hmacKey(p.secret));
}

/** The user and the actions left a code was made for, while it holds; undefined for one altered or expired. */
async function readCode(
  p: RealmContext,
  code: string,
): Promise<{ userId: string; actions: FormAction[] } | undefined> {
  try {
    const { payload } = await jwtVerify(code, await hmacKey(p.secret), {
      algorithms: ['HS256'],
      currentDate: p.clock.now(),
    });
    const actions = payload['actions'];
    if (payload['typ'] !== CODE_TYPE || typeof payload.sub !== 'string' || !Array.isArray(actions))
      return undefined;
    const known = actions.filter((a): a is FormAction => typeof a === 'string' && isFormAction(a));
    return known.length > 0 ? { userId: payload.sub, actions: known } : undefined;
  } catch {
    return undefined;
  }
}

/** The realm's user of an id, as it stands now. */
function userById(p: RealmContext, id: string): KeycloakUser | undefined {
  for (const u of p.realm.keycloak?.users.values() ?? []) if (u.id === id) return u;
  return undefined;
}

/**
 * The first of `actions` the user still has to do, as its page; the sign-in when none is left. As Keycloak: an
 * email already verified needs no page (the action is done), and a user without an email skips Email
 * verification (it stays pending).
 */
async function nextStep(
  p: RealmContext,
  userId: string,
  actions: readonly FormAction[],
  complete: CompleteAction,
): Promise<StepOutcome> {
  for (let i = 0; i < actions.length; i++) {
    const action = actions[i] as FormAction;
    const user = userById(p, userId);
    if (user === undefined) return { expired: true };
    if (!user.requiredActions.includes(action)) continue;
    if (action === 'VERIFY_EMAIL' && user.emailVerified) {
      await complete(userId, { action });
      continue;
    }
    if (action === 'VERIFY_EMAIL' && user.email === undefined) continue;
    const code = await codeFor(p, userId, actions.slice(i));
    return { stage: stageOf(p, user, action, code), username: user.username };
  }
  const user = userById(p, userId);
  return user === undefined ? { expired: true } : { signIn: user.username };
}

/** An action's page as first shown: a profile filled in with what the user has. */
function stageOf(p: RealmContext, user: KeycloakUser, action: FormAction, code: string): ActionStage {
  switch (action) {
    case 'UPDATE_PROFILE':
      return {
        code,
        action,
        values: {
          ...(usernameEditable(p) ? { username: user.username } : {}),
          email: user.email ?? '',
          firstName: user.firstName ?? '',
          lastName: user.lastName ?? '',
        },
        errors: {},
      };
    case 'VERIFY_EMAIL':
      return { code, action, email: user.email ?? '' };
    default:
      return { code, action };
  }
}

const usernameEditable = (p: RealmContext): boolean =>
  p.realm.keycloak?.representation.editUsernameAllowed === true;

/** The required actions of a user who gave the right password: the first page, or the sign-in when none is due. */
export function firstStep(
  p: RealmContext,
  user: KeycloakUser,
  complete: CompleteAction,
): Promise<StepOutcome> {
  return nextStep(p, user.id, user.requiredActions.filter(isFormAction), complete);
}

/**
 * An action's page as posted (its `session_code`): done (saved), then the next page or the sign-in; refused,
 * the same page with Keycloak's words; declined (Terms and Conditions), the end of the sign-in.
 */
export async function postedStep(
  p: RealmContext,
  code: string,
  params: Params,
  complete: CompleteAction,
): Promise<StepOutcome> {
  const read = await readCode(p, code);
  const user = read !== undefined ? userById(p, read.userId) : undefined;
  if (read === undefined || user === undefined) return { expired: true };
  const [action, ...rest] = read.actions as [FormAction, ...FormAction[]];
  const again = (stage: ActionStage): StepOutcome => ({ stage, username: user.username });
  let done: ActionDone;
  switch (action) {
    case 'UPDATE_PASSWORD': {
      const chosen = params.get('password-new') ?? '';
      if (chosen === '')
        return again({ code, action, error: { field: 'password', message: 'Please specify password.' } });
      if (chosen !== params.get('password-confirm'))
        return again({
          code,
          action,
          error: { field: 'password-confirm', message: "Passwords don't match." },
        });
      done = { action, password: chosen };
      break;
    }
    case 'UPDATE_PROFILE': {
      const { profile, errors } = postedProfile(p, user, params);
      if (Object.keys(errors).length > 0) return again({ code, action, values: profile, errors });
      done = { action, profile };
      break;
    }
    case 'VERIFY_EMAIL':
      // Only the button that stands for the email's link verifies; anything else shows the page again.
      if (params.get('verify-email') === undefined) return again(stageOf(p, user, action, code));
      done = { action };
      break;
    case 'TERMS_AND_CONDITIONS':
      if (params.has('cancel')) {
        await complete(user.id, { action, declined: true });
        return { declined: user.username };
      }
      if (!params.has('accept')) return again({ code, action });
      done = { action, acceptedAt: p.clock.nowSeconds() };
      break;
  }
  await complete(user.id, done);
  return nextStep(p, user.id, rest, complete);
}

/** A loose check of an email's form (Keycloak's is looser than RFC 5322 too): something@something, no spaces. */
const EMAIL = /^[^\s@\p{Cc}]+@[^\s@\p{Cc}]+$/u;
/** What a username or a name may not hold (Keycloak's prohibited-characters checks, simplified). */
const USERNAME_PROHIBITED = /[\s\p{Cc}]/u;
const NAME_PROHIBITED = /[\p{Cc}<>&"$%!#?§;*~/\\|^=[\]{}()]/u;
/** Keycloak's length limits of the profile's fields; a username here at most what the realm model takes. */
const MAX_LENGTH = 255;
const USERNAME_LENGTH = { min: 3, max: 200 };

/** The "Update Account Information" form as posted, and Keycloak's words for each field it refuses. */
function postedProfile(
  p: RealmContext,
  user: KeycloakUser,
  params: Params,
): { profile: ProfileFields; errors: Partial<Record<ProfileField, string>> } {
  const kc = p.realm.keycloak;
  const field = (name: ProfileField): string => (params.get(name) ?? '').trim();
  const profile: ProfileFields = {
    ...(usernameEditable(p) ? { username: field('username').toLowerCase() } : {}),
    email: field('email').toLowerCase(),
    firstName: field('firstName'),
    lastName: field('lastName'),
  };
  const others = [...(kc?.users.values() ?? [])].filter((u) => u.id !== user.id);
  const { username, email } = profile;
  const errors: Partial<Record<ProfileField, string>> = {};
  const refuse = (name: ProfileField, message: string | false): void => {
    if (message !== false && errors[name] === undefined) errors[name] = message;
  };
  if (username !== undefined) {
    refuse('username', username === '' && 'Please specify username.');
    refuse(
      'username',
      (username.length < USERNAME_LENGTH.min || username.length > USERNAME_LENGTH.max) &&
        `Length must be between ${USERNAME_LENGTH.min} and ${USERNAME_LENGTH.max}.`,
    );
    refuse('username', USERNAME_PROHIBITED.test(username) && 'Value contains invalid character.');
    refuse('username', others.some((u) => u.username === username) && 'Username already exists.');
  }
  refuse('email', email === '' && 'Please specify this field.');
  refuse('email', (email.length > MAX_LENGTH || !EMAIL.test(email)) && 'Invalid email address.');
  refuse(
    'email',
    kc?.representation.duplicateEmailsAllowed !== true &&
      others.some((u) => u.email === email) &&
      'Email already exists.',
  );
  for (const name of ['firstName', 'lastName'] as const) {
    refuse(name, profile[name] === '' && 'Please specify this field.');
    refuse(name, profile[name].length > MAX_LENGTH && `Maximal length is ${MAX_LENGTH}.`);
    refuse(name, NAME_PROHIBITED.test(profile[name]) && 'Value contains invalid character.');
  }
  return { profile, errors };
}
