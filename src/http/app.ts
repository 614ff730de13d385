// The express app: health, one realm router per realm at /realms/{realm} (both under the HTTP relative
// path, when one is set), request log, one error handler.
import { Clock } from '../clock.js';
import type { StoreHealth } from '../store/backend.js';
import express, { type Request, type RequestHandler, type Response } from 'express';
import type { Logger } from '../log.js';
import type { Why } from '../oauth/refusal.js';
import type { Provider } from '../realm/provider.js';
import { realmBasePath } from '../realm/paths.js';
import { logLine } from '../qa/journal.js';
import { saveRequestEvent } from './events.js';
import type { JournalRecord } from '../store/journal.js';
import { OAuthError } from '../oauth/errors.js';
import { sendJson } from './context.js';
import { errorHandler } from './error-handler.js';
import { sendIndexPage } from './index-page.js';
import { requestOrigin } from './origin.js';
import { createRealmRouter, type RealmHooks } from './realm-router.js';
import { completeRequiredAction } from '../admin/edit.js';
import { adminRouter } from '../admin/router.js';
import { shareRealms } from '../realm/shared-realms.js';
import type { SharedRealms } from '../store/backend.js';
import type { KeycloakRealmRepresentation } from '../fixtures/keycloak/schema.js';

/** A realm served by the app: its state and its router's hooks. */
export interface ServedRealm {
  provider: Provider;
  hooks?: RealmHooks;
}

/** Realms made and dropped while running (through the admin API). */
interface RealmLifecycle {
  /** Builds a realm from a Keycloak representation, ready to serve. */
  create(rep: KeycloakRealmRepresentation): Promise<ServedRealm>;
  /** Called once a realm is no longer served. */
  removed(provider: Provider): void;
  /** A shared store's list of the realms made and deleted at run time, kept in step by every replica. */
  shared?: SharedRealms;
  /** Takes what stops the replica's polling of that list when the server closes. */
  onClose?: (stop: () => void) => void;
}

/** Distinct paths the journal shares one string of (a realm's endpoints are a few dozen). */
const SHARED_PATHS = 512;
const paths = new Map<string, string>();

/**
 * The URL's path, without the query string: one string per distinct path, so the journal's 10,000 records
 * do not each hold their own copy (nor, through a slice, the whole URL with its query).
 */
function pathOf(url: string): string {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const shared = paths.get(path);
  if (shared !== undefined) return shared;
  if (paths.size < SHARED_PATHS) paths.set(path, path);
  return path;
}

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
    path: pathOf(req.originalUrl),
    endpoint: locals.endpoint ?? null,
    status: res.statusCode,
    client: locals.client ?? null,
    grant: locals.grant ?? null,
    user: locals.user ?? null,
    error: locals.error ?? null,
    durationMs: Math.round(Clock.elapsedMs(start) * 10) / 10,
  };
}

/**
 * One record per request: into the realm's journal (requests to the realm, the QA API's own excepted),
 * and as the request log's line, so the two never disagree.
 */
function requestLog(fallback: Provider, log: Logger): RequestHandler {
  const logging = (): boolean => log.level === 'info' || log.level === 'debug';
  return (req, res, next) => {
    const start = Clock.elapsedMs();
    res.on('finish', () => {
      // A realm's request is stamped by that realm's clock (set by its mount), anything else by the first's.
      const p = (res.locals['realm'] as Provider | undefined) ?? fallback;
      const realmRequest = res.locals['issuer'] !== undefined && res.locals['qa'] !== true;
      if (!realmRequest && !logging()) return;
      const arrived = (res.locals['arrived'] as string | undefined) ?? p.clock.now().toISOString();
      const record = recordOf(req, res, start, arrived);
      if (realmRequest) {
        p.journal.add(record);
        if (p.store.journal !== p.journal) p.store.journal.add(record);
        saveRequestEvent(p, req, res);
      }
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

export function createApp(
  realms: readonly ServedRealm[],
  log: Logger,
  storeHealth: () => StoreHealth | Promise<StoreHealth> = () => ({ ok: true }),
  relativePath = '',
  lifecycle?: RealmLifecycle,
  /** A realm built when first asked for (realm master): requests for it, and the admin API, wait for it. */
  later?: { name: string; build: () => Promise<ServedRealm | undefined> },
): express.Express {
  const first = realms[0];
  if (first === undefined) throw new Error('createApp needs at least one realm');
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('query parser', 'simple');
  app.set('case sensitive routing', true);
  // X-Forwarded-Proto and -Host are taken from any peer: a mock behind a test proxy or port mapping
  // names the origin its clients see (src/http/origin.ts).
  app.set('trust proxy', true);
  app.use(requestLog(first.provider, log));

  app.get(`${relativePath}/health`, async (_req, res) => {
    const store = await storeHealth();
    if (store.ok) sendJson(res, 200, { status: 'UP' }, { 'Cache-Control': 'no-store' });
    else sendJson(res, 503, { status: 'DOWN', reason: store.reason }, { 'Cache-Control': 'no-store' });
  });

  const providers = realms.map((r) => r.provider);
  app.get(relativePath === '' ? '/' : [relativePath, `${relativePath}/`], (req, res) =>
    sendIndexPage(req, res, providers, relativePath),
  );

  // A realm's name is fixed for the server's life (PUT /mock/fixtures refuses to change it): a literal
  // mount path per realm spares every request express's path-parameter processing. One layer per realm,
  // which hands the request to the realm's router itself (a second layer would match the path again).
  /** The realms served now, by name: those started with, then those the admin API made; less those it deleted. */
  const serving = new Map<string, { provider: Provider; router: express.Router }>();
  const enter = (p: Provider, router: express.Router): RequestHandler => {
    return (req, res, next) => {
      if (serving.get(p.realm.name)?.provider !== p) return next();
      res.locals['realm'] = p;
      res.locals['arrived'] = p.clock.now().toISOString();
      res.locals['issuer'] = p.issuerFor(requestOrigin(req));
      router(req, res, next);
    };
  };
  /** The realm's hooks, and whether it is still the one served under its name. */
  const hooksOf = (p: Provider, hooks: RealmHooks | undefined): RealmHooks => ({
    ...hooks,
    served: () => serving.get(p.realm.name)?.provider === p,
    completeAction: (userId, done) => completeRequiredAction(p, userId, done),
  });
  for (const { provider: p, hooks } of realms) {
    const router = createRealmRouter(p, hooksOf(p, hooks));
    serving.set(p.realm.name, { provider: p, router });
    app.use(realmBasePath(p.realm.name, relativePath), enter(p, router));
  }
  const started = new Set(realms.map((r) => r.provider));
  let built = later === undefined;
  let building: Promise<void> | undefined;
  /** Runs `go` once the realm built on demand serves (building it first if nobody has asked yet). */
  const afterLater = (go: () => void, next: (err?: unknown) => void): void => {
    if (built || later === undefined) return go();
    building ??= later.build().then((made) => {
      if (made !== undefined && !serving.has(made.provider.realm.name))
        serving.set(made.provider.realm.name, {
          provider: made.provider,
          router: createRealmRouter(made.provider, hooksOf(made.provider, made.hooks)),
        });
      built = true;
    });
    building.then(go, next);
  };
  /** Serves a realm made at run time (here, or at another replica); false when the name is taken. */
  const addLocal = async (rep: KeycloakRealmRepresentation): Promise<boolean> => {
    if (lifecycle === undefined || serving.has(rep.realm)) return false;
    const made = await lifecycle.create(rep);
    if (serving.has(rep.realm)) {
      lifecycle.removed(made.provider);
      return false;
    }
    serving.set(rep.realm, {
      provider: made.provider,
      router: createRealmRouter(made.provider, hooksOf(made.provider, made.hooks)),
    });
    if (sharing !== undefined) made.provider.syncRealms = () => sharing.sync();
    return true;
  };
  const dropLocal = (name: string): boolean => {
    const gone = serving.get(name);
    if (gone === undefined || lifecycle === undefined) return false;
    serving.delete(name);
    lifecycle.removed(gone.provider);
    return true;
  };
  const sharing =
    lifecycle?.shared !== undefined
      ? shareRealms(
          lifecycle.shared,
          {
            has: (name) => serving.has(name),
            add: async (rep) => {
              await addLocal(rep);
            },
            drop: (name) => {
              if (name !== 'master') dropLocal(name);
            },
          },
          log,
        )
      : undefined;
  if (sharing !== undefined) {
    lifecycle?.onClose?.(() => sharing.close());
    // A realm's shared state that moved may mean the realm was deleted (or made again) at another replica:
    // the request that saw it moving takes over the realm list first.
    for (const { provider } of serving.values()) provider.syncRealms = () => sharing.sync();
  }
  app.use(`${relativePath}/admin/realms`, (req, res, next) => {
    afterLater(() => {
      const go = (): void => {
        // A request about one realm goes into that realm's journal (its inspector lists it), stamped by its
        // clock; the others (the realm list, a new realm) into master's.
        const named = /^\/([^/]+)/.exec(req.path)?.[1];
        const about = named === undefined ? undefined : serving.get(named)?.provider;
        const p = about ?? serving.get('master')?.provider;
        res.locals['realm'] = p;
        if (p !== undefined) {
          res.locals['arrived'] = p.clock.now().toISOString();
          res.locals['issuer'] = p.issuerFor(requestOrigin(req));
        }
        admin(req, res, next);
      };
      if (sharing === undefined) go();
      else sharing.sync().then(go, next);
    }, next);
  });
  const admin = adminRouter({
    list: () => [...serving.values()].map((s) => s.provider),
    get: (name) => serving.get(name)?.provider,
    ...(lifecycle !== undefined
      ? {
          create: (rep: KeycloakRealmRepresentation) =>
            sharing !== undefined ? sharing.create(rep) : addLocal(rep),
          remove: async (name: string) => {
            if (sharing === undefined) return dropLocal(name);
            if (!serving.has(name)) return false;
            await sharing.remove(name);
            return true;
          },
        }
      : {}),
  });
  const names = realms.map((r) => `"${r.provider.realm.name}"`).join(', ');
  /** A realm made or started after the app: to its router; one started with the app: on (its own mount passed). */
  const route = (name: string, req: Request, res: Response, next: (err?: unknown) => void): void => {
    const made = serving.get(name);
    if (made !== undefined && !started.has(made.provider)) {
      void enter(made.provider, made.router)(req, res, next);
      return;
    }
    if (made !== undefined) return next();
    next(
      new OAuthError(
        'Realm does not exist',
        realms.length === 1 ? `This server serves realm ${names}` : `This server serves realms ${names}`,
        404,
      ),
    );
  };
  app.use(realmBasePath(':realm', relativePath), (req, res, next) => {
    const name = String(req.params['realm']);
    const go = (): void => route(name, req, res, next);
    if (name === later?.name) afterLater(go, next);
    else if (sharing === undefined) go();
    // A realm made at run time (or not served here yet): what the other replicas made or deleted first.
    else {
      const served = serving.get(name);
      if (served !== undefined && started.has(served.provider)) go();
      else sharing.sync().then(go, next);
    }
  });

  app.use((req) => {
    throw new OAuthError('not_found', `No endpoint ${req.method} ${req.path}`, 404);
  });
  app.use(errorHandler(log));
  return app;
}
