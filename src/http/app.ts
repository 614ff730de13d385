// The express app: health, the realm router with one route per endpoint, request log, one error handler.
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { performance } from 'node:perf_hooks';
import type { Logger } from '../log.js';
import type { Why } from '../oauth/refusal.js';
import type { Provider } from '../provider.js';
import { logLine, type JournalRecord } from '../qa/journal.js';
import { authorizeHandler } from './endpoints/authorize.js';
import { certsHandler } from './endpoints/certs.js';
import { discoveryHandler } from './endpoints/discovery.js';
import { introspectHandler } from './endpoints/introspect.js';
import { logoutHandler } from './endpoints/logout.js';
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
import { OAuthError } from '../oauth/errors.js';
import { sendJson } from './context.js';
import { cors } from './cors.js';
import { errorHandler } from './error-handler.js';
import { requestOrigin } from './origin.js';
import { PATHS, type EndpointName } from './paths.js';

export interface AppHooks {
  /** Runs before each named endpoint (fault injection). */
  beforeEndpoint?: (name: EndpointName, req: Request, res: Response) => Promise<boolean> | boolean;
  /** Mounts extra routes under the realm base (the QA API). */
  realmRoutes?: (router: express.Router) => void;
}

const FORM_LIMIT = '64kb';

/** The journal's record of a finished request; only fixture ids and known names, never request text. */
function recordOf(req: Request, res: Response, start: number, arrived: string): JournalRecord {
  const locals = res.locals as {
    endpoint?: string;
    client?: string;
    grant?: string;
    user?: string;
    error?: string;
  };
  return {
    time: arrived,
    method: req.method,
    path: req.originalUrl.split('?')[0] ?? '',
    endpoint: locals.endpoint ?? null,
    status: res.statusCode,
    client: locals.client ?? null,
    grant: locals.grant ?? null,
    user: locals.user ?? null,
    error: locals.error ?? null,
    durationMs: Math.round((performance.now() - start) * 10) / 10,
  };
}

/**
 * One record per request: into the realm's journal (requests to the realm, the QA API's own excepted),
 * and as the request log's line, so the two never disagree.
 */
function requestLog(p: Provider, log: Logger): RequestHandler {
  const logging = (): boolean => log.level === 'info' || log.level === 'debug';
  return (req, res, next) => {
    const start = performance.now();
    const arrived = p.clock.now().toISOString();
    res.on('finish', () => {
      const realmRequest = res.locals['issuer'] !== undefined && res.locals['qa'] !== true;
      if (!realmRequest && !logging()) return;
      const record = recordOf(req, res, start, arrived);
      if (realmRequest) p.journal.add(record);
      if (!logging()) return;
      const line = logLine(record);
      const why = res.locals['why'] as Why | undefined;
      if (log.level !== 'debug' || why === undefined) {
        log.info(line);
        return;
      }
      // At debug, a refusal says why on the next line (the explanation may need to look at the token).
      void (typeof why === 'string' ? Promise.resolve(why) : why()).then(
        (reason) => {
          log.info(line);
          log.debug(`  why: ${reason}`);
        },
        () => log.info(line),
      );
    });
    next();
  };
}

export function createApp(p: Provider, log: Logger, hooks: AppHooks = {}): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('query parser', 'simple');
  app.set('case sensitive routing', true);
  app.use(requestLog(p, log));

  app.get('/health', (_req, res) => {
    sendJson(res, 200, { status: 'UP' }, { 'Cache-Control': 'no-store' });
  });

  const realm = express.Router({ caseSensitive: true, strict: false });
  const form = express.urlencoded({ extended: false, limit: FORM_LIMIT, parameterLimit: 100 });
  const endpoint =
    (name: EndpointName): RequestHandler =>
    async (req, res, next: NextFunction) => {
      res.locals['endpoint'] = name;
      if (hooks.beforeEndpoint !== undefined && !(await hooks.beforeEndpoint(name, req, res))) return;
      next();
    };

  realm.use(cors(p));
  realm.get(PATHS.discovery, endpoint('discovery'), discoveryHandler(p));
  realm.get(PATHS.certs, endpoint('certs'), certsHandler(p));
  realm.post(PATHS.token, endpoint('token'), form, tokenHandler(p));
  realm.post(PATHS.introspect, endpoint('introspect'), form, introspectHandler(p));
  realm.all(PATHS.auth, endpoint('auth'), form, authorizeHandler(p));
  realm.all(PATHS.userinfo, endpoint('userinfo'), form, userinfoHandler(p));
  realm.all(PATHS.logout, endpoint('logout'), form, logoutHandler(p));
  realm.post(PATHS.revoke, endpoint('revoke'), form, revokeHandler(p));
  realm.post(PATHS.registration, endpoint('registration'), registrationBody, registerHandler(p));
  realm.get(`${PATHS.registration}/:clientId`, endpoint('registration'), registeredClientHandler(p));
  realm.delete(`${PATHS.registration}/:clientId`, endpoint('registration'), registeredClientHandler(p));
  realm.get(PATHS.checkSession, checkSessionPageHandler(p));
  realm.get(PATHS.checkSessionInit, checkSessionInitHandler(p));
  realm.get(PATHS.checkSessionStatus, checkSessionStatusHandler(p));
  realm.get(PATHS.thirdPartyCookiesStep1, thirdPartyCookiesHandler(p, 1));
  realm.get(PATHS.thirdPartyCookiesStep2, thirdPartyCookiesHandler(p, 2));
  const allowed: [string, string][] = [
    [PATHS.token, 'POST'],
    [PATHS.introspect, 'POST'],
    [PATHS.revoke, 'POST'],
    [PATHS.discovery, 'GET'],
    [PATHS.certs, 'GET'],
    [PATHS.registration, 'POST'],
    [`${PATHS.registration}/:clientId`, 'GET, DELETE'],
  ];
  for (const [path, allow] of allowed) {
    realm.all(path, (req) => {
      throw new OAuthError('invalid_request', `${req.method} is not allowed here: use ${allow}`, 405, {
        Allow: allow,
      });
    });
  }
  hooks.realmRoutes?.(realm);

  // The realm name is fixed for the server's life (PUT /mock/fixtures refuses to change it): a literal
  // mount path spares every request express's path-parameter processing.
  const realmName = p.realm.name;
  app.use(
    `/realms/${realmName}`,
    (req, res, next) => {
      res.locals['issuer'] = p.issuerFor(requestOrigin(req));
      next();
    },
    realm,
  );
  app.use('/realms/:realm', (req, _res, next) => {
    if (req.params['realm'] === realmName) return next();
    throw new OAuthError('Realm does not exist', `This server serves realm "${realmName}"`, 404);
  });

  app.use((req) => {
    throw new OAuthError('not_found', `No endpoint ${req.method} ${req.path}`, 404);
  });
  app.use(errorHandler(log));
  return app;
}
