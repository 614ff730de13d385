// CORS for browser clients, as Keycloak's web origins: a client's registered origins may call the realm;
// discovery and the JWKS are public to any origin. Other origins, and requests without Origin, get no headers.
import corsMiddleware, { type CorsOptions } from 'cors';
import type { RequestHandler } from 'express';
import type { RealmContext } from '../realm-context.js';
import { PATHS } from './paths.js';

const PUBLIC_PATHS = new Set<string>([PATHS.discovery, PATHS.certs]);

const PREFLIGHT = {
  methods: 'GET, POST, OPTIONS',
  allowedHeaders: 'Authorization, Content-Type',
  maxAge: 3600,
} satisfies CorsOptions;

export function cors(p: RealmContext): RequestHandler {
  return corsMiddleware((req, callback) => {
    const origin = req.headers.origin;
    if (origin === undefined) callback(null, { origin: false });
    else if (PUBLIC_PATHS.has(req.path)) callback(null, { ...PREFLIGHT, origin: '*' });
    // A fixed origin string: the cors package answers with it and adds Vary: Origin.
    else if (p.realm.webOrigins.has(origin)) callback(null, { ...PREFLIGHT, origin, credentials: true });
    else callback(null, { origin: false });
  });
}
