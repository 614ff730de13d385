// CORS for browser clients, as Keycloak's web origins: a client's registered origins may call the realm;
// discovery and the JWKS are public to any origin. Other origins, and requests without Origin, get no headers.
import corsMiddleware, { type CorsOptions } from 'cors';
import type { Request, RequestHandler } from 'express';
import type { RealmContext } from '../realm/context.js';
import { PATHS } from '../realm/paths.js';

const PUBLIC_PATHS = new Set<string>([PATHS.discovery, PATHS.certs]);

const ALLOWED = {
  methods: 'GET, POST, OPTIONS',
  // DPoP: a browser app sends its proofs (RFC 9449) in the DPoP header.
  allowedHeaders: 'Authorization, Content-Type, DPoP',
  maxAge: 3600,
  preflightContinue: true,
} satisfies CorsOptions;

export function cors(p: RealmContext): RequestHandler {
  const headers = corsMiddleware<Request>((req, callback) => {
    const origin = req.headers.origin;
    if (origin === undefined) callback(null, { origin: false });
    else if (PUBLIC_PATHS.has(req.path)) callback(null, { ...ALLOWED, origin: '*' });
    // A fixed origin string: the package answers with it and adds Vary: Origin.
    else if (p.realm.webOrigins.has(origin)) callback(null, { ...ALLOWED, origin, credentials: true });
    else callback(null, { origin: false });
  });
  // An allowed preflight is answered here: the package's own 204 carries Content-Length: 0, which a 204 must not.
  return (req, res, next) => {
    headers(req, res, (err?: unknown) => {
      if (err !== undefined || req.method !== 'OPTIONS' || !res.hasHeader('Access-Control-Allow-Origin')) {
        next(err);
      } else {
        res.status(204).end();
      }
    });
  };
}
