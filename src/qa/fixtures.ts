// Replacing the fixtures at runtime: PUT /mock/fixtures and `serve --watch` share one all-or-nothing step.
import express from 'express';
import { isDeepStrictEqual } from 'node:util';
import { FixturesError, formatProblem } from '../fixtures/errors.js';
import { realmFromText } from '../fixtures/parse-worker.js';
import type { Realm } from '../fixtures/realm.js';
import type { Provider } from '../provider.js';

/** Start-up settings: a replacement may carry them, but they only take effect at the next start. */
const START_UP_KEYS = ['seed', 'clock', 'keys'] as const;

export interface ReplacedFixtures {
  realm: Realm;
  /** Start-up settings the replacement changed, which stay as they were until a restart. */
  ignored: string[];
}

/**
 * Validates `text` (YAML or JSON) exactly like a fixtures file and swaps it in; on any problem it
 * throws a FixturesError (problems as SOURCE:LINE:COL) and the provider keeps its fixtures.
 * Sessions, keys, clock and ids stay.
 */
export async function replaceFixtures(
  p: Provider,
  text: string,
  source: string,
  baseDir: string,
): Promise<ReplacedFixtures> {
  const current = p.realm;
  const { realm, realmAt } = await realmFromText(text, source, baseDir, current.name);
  if (realm.name !== current.name) {
    throw new FixturesError(source, [
      {
        path: ['realm'],
        message: `the realm name cannot change while running (serving "${current.name}", got "${realm.name}"): restart instead`,
        ...realmAt,
      },
    ]);
  }
  const ignored = START_UP_KEYS.filter((key) => !isDeepStrictEqual(realm[key], current[key]));
  p.replaceRealm(realm);
  return { realm, ignored };
}

/** PUT replaces the fixtures with the body; a bad body answers 400 with every problem and changes nothing. */
export function fixtureRoutes(p: Provider): express.Router {
  const router = express.Router();
  router.put('/', express.text({ type: () => true, limit: '16mb' }), async (req, res) => {
    const text = typeof req.body === 'string' ? req.body : '';
    try {
      const { realm, ignored } = await replaceFixtures(p, text, 'body', p.realm.baseDir);
      res.json({
        realm: realm.name,
        clients: [...realm.clients.keys()],
        users: [...realm.users.keys()],
        scopes: [...realm.scopes.keys()],
        ...(ignored.length > 0 ? { ignored } : {}),
      });
    } catch (err) {
      if (!(err instanceof FixturesError)) throw err;
      const problems = err.problems.map((problem) => formatProblem(err.source, problem));
      res
        .status(400)
        .set('Cache-Control', 'no-store')
        .json({
          error: 'invalid_request',
          error_description: `Fixtures not replaced: ${problems.join('; ')}`,
          problems,
        });
    }
  });
  return router;
}
