// A change through the admin API: the realm's Keycloak representation edited, then swapped in as a fixtures
// replacement at run time is (checked like a file, its text kept in the store for the replicas, who read it as
// a PUT /mock/fixtures; in effect for the next token, gone when the fixtures are replaced). Here it is read
// as an object, without the text's YAML reading: that costs ten times more. Browser sessions stay, as in
// Keycloak. One change at a time per realm, after catching up with what the other replicas changed.
import { FixturesError, formatProblem } from '../fixtures/errors.js';
import type { KeycloakRealmRepresentation } from '../fixtures/keycloak/schema.js';
import { fixturesFromObject } from '../fixtures/load.js';
import { buildRealm } from '../fixtures/realm.js';
import type { Provider } from '../realm/provider.js';
import { badRequest } from './errors.js';

const queues = new WeakMap<Provider, Promise<unknown>>();

/** The realm's representation as it stands (read only: a change goes through {@link changeRealm}). */
export function representationOf(p: Provider): KeycloakRealmRepresentation | undefined {
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
      await p.catchUp();
      const current = representationOf(p);
      if (current === undefined) throw badRequest(`Realm "${p.realm.name}" is not a Keycloak realm`);
      const rep = structuredClone(current);
      const result = edit(rep);
      const text = JSON.stringify(rep);
      try {
        // Read as an object (the text's YAML reading, the slow part, is for the replicas, on a worker).
        const loaded = { ...fixturesFromObject(rep, p.realm.source), baseDir: p.realm.baseDir };
        p.replaceRealm(await buildRealm(loaded), { keepBrowserSessions: true });
      } catch (err) {
        if (!(err instanceof FixturesError)) throw err;
        throw badRequest(err.problems.map((problem) => formatProblem(err.source, problem)).join('; '));
      }
      p.fixturesText = text;
      await p.qaShare?.publish('fixtures');
      return result;
    });
  queues.set(p, run);
  return run;
}
