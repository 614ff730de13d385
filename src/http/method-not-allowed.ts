// A known path asked with a method none of its routes takes: 405 with Allow, as Keycloak answers (its
// JAX-RS resources), instead of the 404 of a path that does not exist. Worked out from the routes a router
// holds (and the routers mounted in it) when the request comes, so no route lists its methods twice.
import type { Request, RequestHandler, Router } from 'express';
import { OAuthError } from '../oauth/errors.js';

/** What this module reads of Express's router (router 2): a route's methods, a layer's path matcher. */
interface RouteView {
  methods: Record<string, boolean | undefined>;
}
interface LayerView {
  route?: RouteView;
  handle: unknown;
  /** The matched part of `path` (a prefix for a mounted router), or false. */
  match(path: string): false | { path: string };
}

const stackOf = (router: unknown): readonly LayerView[] | undefined => {
  const stack = (router as { stack?: unknown } | undefined)?.stack;
  return Array.isArray(stack) ? (stack as LayerView[]) : undefined;
};

/**
 * The methods the routes of `stack` and of the routers mounted in it take at `path`, upper case; `*` when
 * a route takes every method.
 */
function methodsAt(stack: readonly LayerView[], path: string): Set<string> {
  const methods = new Set<string>();
  for (const layer of stack) {
    let matched: false | { path: string };
    try {
      matched = layer.match(path);
    } catch {
      continue; // a path Express cannot decode: not one of these routes
    }
    if (matched === false) continue;
    if (layer.route !== undefined) {
      for (const [name, on] of Object.entries(layer.route.methods))
        if (on === true) methods.add(name === '_all' ? '*' : name.toUpperCase());
      continue;
    }
    const mounted = stackOf(layer.handle);
    if (mounted === undefined) continue;
    const rest = path.slice(matched.path.length);
    for (const name of methodsAt(mounted, rest.startsWith('/') ? rest : `/${rest}`)) methods.add(name);
  }
  return methods;
}

/** Whether `method` is one of `methods` (a GET route answers HEAD too). */
const takes = (methods: Set<string>, method: string): boolean =>
  methods.has('*') || methods.has(method) || (method === 'HEAD' && methods.has('GET'));

/** The refusal of a method: `description` says which to use, `allow` is the Allow header's value. */
type Refusal = (description: string, allow: string) => Error;

const oauthRefusal: Refusal = (description, allow) =>
  new OAuthError('invalid_request', description, 405, { Allow: allow });

/**
 * The last handler of `router`: a request that reached it matched no route; when its path is one a route
 * of the router (or of a router mounted in it) answers with other methods, 405 with `Allow` and an error
 * naming them (an OAuth JSON error, unless `refuse` makes another); else on to the next handler (404).
 * OPTIONS passes on: CORS and Express answer it.
 */
export function methodNotAllowed(router: Router, refuse: Refusal = oauthRefusal): RequestHandler {
  const stack = stackOf(router) ?? [];
  return (req: Request, _res, next) => {
    if (req.method === 'OPTIONS') return next();
    const methods = methodsAt(stack, req.path);
    if (methods.size === 0 || takes(methods, req.method)) return next();
    const allowed = [...methods];
    const allow = allowed.join(', ');
    const use = allowed.length > 1 ? `${allowed.slice(0, -1).join(', ')} or ${allowed.at(-1)}` : allow;
    next(refuse(`${req.method} is not allowed on ${req.baseUrl}${req.path}: use ${use}`, allow));
  };
}
