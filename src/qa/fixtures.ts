// PUT {realm}/mock/fixtures: the fixtures replaced by the request body (fixtures/replace.ts does the swap).
import express from 'express';
import { FixturesError, formatProblem, formatWarning } from '../fixtures/errors.js';
import { replaceFixtures } from '../fixtures/replace.js';
import { OAuthError } from '../oauth/errors.js';
import type { Provider } from '../realm/provider.js';

/** PUT replaces the fixtures with the body; a bad body answers 400 with every problem and changes nothing. */
export function fixtureRoutes(p: Provider): express.Router {
  const router = express.Router();
  router.put('/', express.text({ type: () => true, limit: '16mb' }), async (req, res) => {
    const text = typeof req.body === 'string' ? req.body : '';
    // A body sent as JSON is read as JSON (a trailing comma refused), as a `.json` file is; others as YAML.
    const json = typeof req.is(['application/json', '+json']) === 'string';
    try {
      const { realm, ignored } = await replaceFixtures(p, text, 'body', p.realm.baseDir, json);
      p.fixturesText = text;
      await p.qaShare?.publish('fixtures');
      // What Keycloak would read past in a realm JSON (logged too), as `mock-idp check` words it.
      const warnings = (realm.keycloak?.warnings ?? []).map((warning) =>
        formatWarning(realm.source, warning),
      );
      res.json({
        realm: realm.name,
        clients: [...realm.clients.keys()],
        users: [...realm.users.keys()],
        scopes: [...realm.scopes.keys()],
        ...(ignored.length > 0 ? { ignored } : {}),
        ...(warnings.length > 0 ? { warnings } : {}),
      });
    } catch (err) {
      if (!(err instanceof FixturesError)) throw err;
      const problems = err.problems.map((problem) => formatProblem(err.source, problem));
      throw new OAuthError(
        'invalid_request',
        `Fixtures not replaced: ${problems.join('; ')}`,
        400,
        {},
        { problems },
      );
    }
  });
  return router;
}
