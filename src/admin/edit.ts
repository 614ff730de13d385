// A change through the admin API: the realm's Keycloak representation edited, then swapped in as a fixtures
// replacement at run time is (checked like a file, its text kept in the store for the replicas, who read it as
// a PUT /mock/fixtures; in effect for the next token, gone when the fixtures are replaced). Here it is read
// as an object, without the text's YAML reading: that costs ten times more. Browser sessions stay, as in
// Keycloak, and so do the clients made by dynamic registration (ordinary clients in Keycloak). One change at
// a time per realm, after catching up with what the other replicas changed, and made again on top of a change
// another replica published meanwhile (none is lost).
import { FixturesError, formatProblem } from '../fixtures/errors.js';
import type { KeycloakRealmRepresentation, UserRepresentation } from '../fixtures/keycloak/schema.js';
import { fixturesFromObject } from '../fixtures/load.js';
import { buildRealm } from '../fixtures/realm.js';
import { actionName, TERMS_ATTRIBUTE, type ActionDone } from '../fixtures/keycloak/required-actions.js';
import type { Provider } from '../realm/provider.js';
import { AdminError, badRequest } from './errors.js';

const queues = new WeakMap<Provider, Promise<unknown>>();
/** How many times a change is made again when other replicas changed the realm first. */
const ATTEMPTS = 20;

/** The realm's representation as it stands (read only: a change goes through {@link changeRealm}). */
function representationOf(p: Provider): KeycloakRealmRepresentation | undefined {
  return p.realm.keycloak?.representation;
}

/**
 * Runs `edit` on a copy of the realm's representation and swaps the result in. `edit` throws (an
 * AdminError) to change nothing. Resolves to what `edit` returned.
 */
export function changeRealm<T>(p: Provider, edit: (rep: KeycloakRealmRepresentation) => T): Promise<T> {
  const before = queues.get(p) ?? Promise.resolve();
  const run = before
    .catch(() => undefined)
    .then(async () => {
      // With replicas, the change is published only onto the version it was made on; when another replica
      // changed the realm meanwhile, this one catches up and makes the change again on top of theirs.
      for (let attempt = 1; ; attempt++) {
        await p.catchUp();
        const current = representationOf(p);
        if (current === undefined) throw badRequest(`Realm "${p.realm.name}" is not a Keycloak realm`);
        const rep = structuredClone(current);
        const result = edit(rep);
        const text = JSON.stringify(rep);
        try {
          // Read as an object (the text's YAML reading, the slow part, is for the replicas, on a worker).
          const loaded = { ...fixturesFromObject(rep, p.realm.source), baseDir: p.realm.baseDir };
          p.replaceRealm(await buildRealm(loaded), {
            keepBrowserSessions: true,
            keepRegisteredClients: true,
          });
        } catch (err) {
          if (!(err instanceof FixturesError)) throw err;
          throw badRequest(err.problems.map((problem) => formatProblem(err.source, problem)).join('; '));
        }
        p.fixturesText = text;
        if (p.qaShare === undefined || (await p.qaShare.publishIfCurrent('fixtures', { keepClients: true })))
          return result;
        if (attempt >= ATTEMPTS)
          throw new AdminError(409, {
            errorMessage: `Realm "${p.realm.name}" kept changing at other replicas: try again`,
          });
      }
    });
  queues.set(p, run);
  return run;
}

/**
 * A required action the user did on its login page, saved as Keycloak's page saves it: the user changed (see
 * {@link ActionDone}) and the action done (no longer among the user's `requiredActions`); a declined Terms and
 * Conditions forgets the acceptance and leaves the action.
 */
export async function completeRequiredAction(p: Provider, userId: string, done: ActionDone): Promise<void> {
  const made = newCredential(p);
  await changeRealm(p, (rep) => {
    const user = (rep.users ?? []).find((u) => u.id === userId);
    if (user === undefined) throw badRequest(`User "${userId}" is no longer in the realm`);
    applyAction(user, done, made);
  });
}

function applyAction(
  user: UserRepresentation,
  done: ActionDone,
  made: { id: string; createdDate: number },
): void {
  switch (done.action) {
    case 'UPDATE_PASSWORD':
      setPassword(user, made, done.password, false);
      return;
    case 'UPDATE_PROFILE': {
      const { username, email, firstName, lastName } = done.profile;
      if (username !== undefined) user.username = username;
      // As Keycloak: a new email is not verified.
      if (email !== (user.email ?? '').toLowerCase()) user.emailVerified = false;
      Object.assign(user, { email, firstName, lastName });
      break;
    }
    case 'VERIFY_EMAIL':
      user.emailVerified = true;
      break;
    case 'TERMS_AND_CONDITIONS': {
      const { [TERMS_ATTRIBUTE]: _accepted, ...others } = user.attributes ?? {};
      if ('declined' in done) {
        user.attributes = others;
        return;
      }
      user.attributes = { ...others, [TERMS_ATTRIBUTE]: [String(done.acceptedAt)] };
      break;
    }
  }
  user.requiredActions = (user.requiredActions ?? []).filter((a) => actionName(a) !== done.action);
}

/** The id and date of a credential made now (outside the edit: a change made again keeps them). */
export function newCredential(p: Provider): { id: string; createdDate: number } {
  return { id: p.ids.uuid('admin-credential'), createdDate: p.clock.now().getTime() };
}

/**
 * Replaces the user's password credential. As Keycloak: a temporary password asks for a new one at the next
 * sign-in (UPDATE_PASSWORD); a lasting one does not.
 */
export function setPassword(
  user: UserRepresentation,
  made: { id: string; createdDate: number },
  value: string,
  temporary: boolean,
): void {
  const others = (user.credentials ?? []).filter((c) => (c.type ?? 'password') !== 'password');
  user.credentials = [...others, { ...made, type: 'password', value, temporary }];
  const actions = (user.requiredActions ?? []).filter((a) => a !== 'UPDATE_PASSWORD');
  user.requiredActions = temporary ? [...actions, 'UPDATE_PASSWORD'] : actions;
}
