// The QA API under {realm}/mock, wired into the app through its hooks.
import express from 'express';
import { z } from 'zod';
import type { RealmHooks } from '../http/realm-router.js';
import { issuerOf } from '../http/context.js';
import type { Provider } from '../realm/provider.js';
import { qaAccess, type QaAccess } from './access.js';
import { cibaRoutes, deviceRoutes } from './backchannel.js';
import { clockRoutes } from './clock.js';
import { FaultInjector, faultRoutes } from './faults.js';
import { fixtureRoutes } from './fixtures.js';
import { journalRoutes } from './journal-routes.js';
import { keyRoutes } from './keys.js';
import type { MintedToken } from './mint-request.js';
import { Minter } from './mint.js';
import { sessionRoutes } from './sessions.js';
import { inspectorPage } from './ui.js';
import { parseBody } from './body.js';
import { verifyForInspector } from './verify.js';
import { jsonTextNestsDeeperThan, MAX_BODY_DEPTH } from '../json-limits.js';
import { invalidRequest } from '../oauth/errors.js';

/** POST /mock/tokens/verify: `{"token": "eyJ..."}` (an empty token gets the verdict "no token"). */
const verifyRequestSchema = z.strictObject({ token: z.string() });

/**
 * Scripts often omit Content-Type (curl -d sends form encoding): every body here is JSON. Its nesting is
 * checked on the raw bytes before the parse, so a deep body costs one pass and a 400, never a long walk.
 */
function jsonBody(limit: string): express.RequestHandler {
  return express.json({
    type: () => true,
    limit,
    verify: (_req, _res, bytes) => {
      if (jsonTextNestsDeeperThan(bytes))
        throw invalidRequest(
          `The JSON body nests deeper than ${MAX_BODY_DEPTH} levels of arrays and objects`,
        );
    },
  });
}

export interface QaApi {
  /** Hooks for createApp: fault injection before endpoints, and the /mock routes. */
  hooks: Required<Pick<RealmHooks, 'beforeEndpoint' | 'realmRoutes'>>;
  faults: FaultInjector;
  /** POST /mock/tokens in-process; `issuer` is the realm base the token names. */
  mint(issuer: string, request: unknown): Promise<MintedToken>;
}

interface QaApiOptions extends QaAccess {
  /** false: no /mock routes at all (404), nothing can mint, move the clock or change fixtures. Default: true. */
  enabled?: boolean;
}

export function createQaApi(p: Provider, options: QaApiOptions = {}): QaApi {
  const faults = new FaultInjector(p.store.faults);
  const minter = new Minter(p);
  const json = jsonBody('1mb');

  const mock = express.Router({ caseSensitive: true });
  mock.use((_req, res, next) => {
    // The QA API's own requests stay out of the journal (a page polling it would fill it).
    res.locals['qa'] = true;
    next();
  });
  // The inspector page is a static shell holding no data: it loads without the QA token, and every
  // call its script makes carries the token the tester types.
  mock.get(
    '/ui',
    inspectorPage(() => p.realm.name),
  );
  mock.use(qaAccess(options));
  // With replicas, the QA API answers from what every replica wrote before this request (a store that is away
  // leaves the local copy: the clock and keys read here need no store).
  mock.use(async (_req, _res, next) => {
    await p.catchUp().catch(() => undefined);
    next();
  });
  mock.post('/tokens', json, async (req, res) => {
    res.set('Cache-Control', 'no-store').json(await minter.mint(issuerOf(res), req.body));
  });
  mock.post('/tokens/verify', jsonBody('2mb'), async (req, res) => {
    const { token } = parseBody(verifyRequestSchema, req.body, 'verify request');
    res.set('Cache-Control', 'no-store').json(await verifyForInspector(p, token));
  });
  mock.use('/clock', json, clockRoutes(p));
  mock.use('/faults', json, faultRoutes(faults));
  mock.use('/keys', keyRoutes(p));
  mock.use('/sessions', sessionRoutes(p));
  mock.use('/fixtures', fixtureRoutes(p));
  mock.use('/requests', journalRoutes(p));
  mock.use('/device', json, deviceRoutes(p));
  mock.use('/ciba', json, cibaRoutes(p));

  return {
    faults,
    mint: (issuer, request) => minter.mint(issuer, request),
    hooks: {
      beforeEndpoint: faults.beforeEndpoint,
      realmRoutes: (realm) => {
        if (options.enabled !== false) realm.use('/mock', mock);
      },
    },
  };
}
