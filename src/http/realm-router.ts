// One realm's routes, built from its context: every endpoint under the realm base, CORS, method checks and
// the hooks (fault injection before endpoints, the QA API under /mock). Mounted at /realms/{realm}.
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { RealmContext } from '../realm/context.js';
import { authorizeHandler } from './endpoints/authorize.js';
import { certsHandler } from './endpoints/certs.js';
import { cibaHandler } from './endpoints/ciba.js';
import { deviceAuthorizationHandler, devicePageHandler } from './endpoints/device.js';
import { discoveryHandler } from './endpoints/discovery.js';
import { introspectHandler } from './endpoints/introspect.js';
import { logoutHandler } from './endpoints/logout.js';
import { parHandler } from './endpoints/par.js';
import { realmInfoHandler } from './endpoints/realm-info.js';
import { revokeHandler } from './endpoints/revoke.js';
import {
  checkSessionInitHandler,
  checkSessionPageHandler,
  checkSessionStatusHandler,
  thirdPartyCookiesHandler,
} from './endpoints/session-iframe.js';
import { registerHandler, registeredClientHandler, registrationBody } from './endpoints/registration.js';
import { tokenHandler } from './endpoints/token.js';
import { userinfoHandler } from './endpoints/userinfo.js';
import { cors } from './cors.js';
import { formBody } from './form-body.js';
import { methodNotAllowed } from './method-not-allowed.js';
import type { EndpointName } from '../endpoint-names.js';
import { PATHS } from '../realm/paths.js';
import type { CompleteAction } from './required-actions.js';

export interface RealmHooks {
  /** Runs before each named endpoint (fault injection); false: it has answered. */
  beforeEndpoint?: (name: EndpointName, req: Request, res: Response) => Promise<boolean> | boolean;
  /** Mounts extra routes under the realm base (the QA API). */
  realmRoutes?: (router: express.Router) => void;
  /**
   * Whether the realm is still served here (shared store: the check before an endpoint may have found it
   * deleted, or deleted and made again, at another replica); when not, the request leaves this realm's
   * router and is routed afresh by name.
   */
  served?: () => boolean;
  /** Saves a required action a Keycloak realm's user did on its login page (the realm's admin side edits). */
  completeAction?: CompleteAction;
}

export function createRealmRouter(p: RealmContext, hooks: RealmHooks = {}): express.Router {
  const realm = express.Router({ caseSensitive: true, strict: false });
  // Synchronous when the hook answers at once (no fault pending): no promise or microtask per request.
  const endpoint =
    (name: EndpointName): RequestHandler =>
    (req, res, next: NextFunction) => {
      res.locals['endpoint'] = name;
      const go = hooks.beforeEndpoint?.(name, req, res) ?? true;
      if (go === true) return next();
      if (go === false) return undefined;
      return go.then((ok) => {
        if (!ok) return undefined;
        if (hooks.served?.() === false) return next('router');
        return next();
      });
    };

  realm.use(cors(p));
  // Every path below is a distinct literal: the order only decides how many a request is matched against
  // before its own, so the busiest come first.
  realm.post(PATHS.token, endpoint('token'), formBody, tokenHandler(p));
  // Each route takes the methods its endpoint answers (auth, userinfo and logout GET and POST, as Keycloak's);
  // another method on one of these paths is answered by methodNotAllowed, last.
  const auth = [endpoint('auth'), formBody, authorizeHandler(p, hooks.completeAction)];
  realm.get(PATHS.auth, auth).post(PATHS.auth, auth);
  realm.get(PATHS.discovery, endpoint('discovery'), discoveryHandler(p));
  realm.get(PATHS.certs, endpoint('certs'), certsHandler(p));
  realm.post(PATHS.introspect, endpoint('introspect'), formBody, introspectHandler(p));
  const userinfo = [endpoint('userinfo'), formBody, userinfoHandler(p)];
  realm.get(PATHS.userinfo, userinfo).post(PATHS.userinfo, userinfo);
  const logout = [endpoint('logout'), formBody, logoutHandler(p)];
  realm.get(PATHS.logout, logout).post(PATHS.logout, logout);
  realm.post(PATHS.revoke, endpoint('revoke'), formBody, revokeHandler(p));
  realm.post(PATHS.par, endpoint('par'), formBody, parHandler(p));
  realm.post(PATHS.deviceAuthorization, endpoint('device'), formBody, deviceAuthorizationHandler(p));
  realm.post(PATHS.ciba, endpoint('ciba'), formBody, cibaHandler(p));
  realm.get(PATHS.device, devicePageHandler(p, hooks.completeAction));
  realm.post(PATHS.device, formBody, devicePageHandler(p, hooks.completeAction));
  realm.post(PATHS.registration, endpoint('registration'), registrationBody, registerHandler(p));
  realm.get(`${PATHS.registration}/:clientId`, endpoint('registration'), registeredClientHandler(p));
  realm.delete(`${PATHS.registration}/:clientId`, endpoint('registration'), registeredClientHandler(p));
  realm.get(PATHS.checkSession, checkSessionPageHandler(p));
  realm.get(PATHS.checkSessionInit, checkSessionInitHandler(p));
  realm.get(PATHS.checkSessionStatus, checkSessionStatusHandler(p));
  realm.get(PATHS.thirdPartyCookiesStep1, thirdPartyCookiesHandler(p, 1));
  realm.get(PATHS.thirdPartyCookiesStep2, thirdPartyCookiesHandler(p, 2));
  realm.get('/', realmInfoHandler(p));
  hooks.realmRoutes?.(realm);
  // Last: a path above (or under /mock) asked with a method its routes do not take.
  realm.use(methodNotAllowed(realm));
  return realm;
}
