// One realm's routes, built from its context: every endpoint under the realm base, CORS, method checks and
// the hooks (fault injection before endpoints, the QA API under /mock). Mounted at /realms/{realm}.
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { OAuthError } from '../oauth/errors.js';
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
import type { EndpointName } from '../endpoint-names.js';
import { PATHS } from '../realm/paths.js';

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
  /** Sets a user's new password from a Keycloak realm's "Update password" page (UPDATE_PASSWORD done). */
  updatePassword?: (username: string, password: string) => Promise<void>;
}

/** The methods the JSON endpoints allow; anything else is 405 with Allow. */
const ALLOWED: readonly (readonly [string, string])[] = [
  [PATHS.token, 'POST'],
  [PATHS.introspect, 'POST'],
  [PATHS.revoke, 'POST'],
  [PATHS.par, 'POST'],
  [PATHS.deviceAuthorization, 'POST'],
  [PATHS.ciba, 'POST'],
  [PATHS.device, 'GET, POST'],
  [PATHS.discovery, 'GET'],
  [PATHS.certs, 'GET'],
  [PATHS.registration, 'POST'],
  [`${PATHS.registration}/:clientId`, 'GET, DELETE'],
];

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
  realm.all(PATHS.auth, endpoint('auth'), formBody, authorizeHandler(p, hooks.updatePassword));
  realm.get(PATHS.discovery, endpoint('discovery'), discoveryHandler(p));
  realm.get(PATHS.certs, endpoint('certs'), certsHandler(p));
  realm.post(PATHS.introspect, endpoint('introspect'), formBody, introspectHandler(p));
  realm.all(PATHS.userinfo, endpoint('userinfo'), formBody, userinfoHandler(p));
  realm.all(PATHS.logout, endpoint('logout'), formBody, logoutHandler(p));
  realm.post(PATHS.revoke, endpoint('revoke'), formBody, revokeHandler(p));
  realm.post(PATHS.par, endpoint('par'), formBody, parHandler(p));
  realm.post(PATHS.deviceAuthorization, endpoint('device'), formBody, deviceAuthorizationHandler(p));
  realm.post(PATHS.ciba, endpoint('ciba'), formBody, cibaHandler(p));
  realm.get(PATHS.device, devicePageHandler(p, hooks.updatePassword));
  realm.post(PATHS.device, formBody, devicePageHandler(p, hooks.updatePassword));
  realm.post(PATHS.registration, endpoint('registration'), registrationBody, registerHandler(p));
  realm.get(`${PATHS.registration}/:clientId`, endpoint('registration'), registeredClientHandler(p));
  realm.delete(`${PATHS.registration}/:clientId`, endpoint('registration'), registeredClientHandler(p));
  realm.get(PATHS.checkSession, checkSessionPageHandler(p));
  realm.get(PATHS.checkSessionInit, checkSessionInitHandler(p));
  realm.get(PATHS.checkSessionStatus, checkSessionStatusHandler(p));
  realm.get(PATHS.thirdPartyCookiesStep1, thirdPartyCookiesHandler(p, 1));
  realm.get(PATHS.thirdPartyCookiesStep2, thirdPartyCookiesHandler(p, 2));
  realm.get('/', realmInfoHandler(p));
  for (const [path, allow] of ALLOWED) {
    realm.all(path, (req) => {
      throw new OAuthError('invalid_request', `${req.method} is not allowed here: use ${allow}`, 405, {
        Allow: allow,
      });
    });
  }
  hooks.realmRoutes?.(realm);
  return realm;
}
