// CORS for browser clients, as Keycloak's web origins: a client's registered origins may call the realm;
// discovery and the JWKS are public to any origin.
import type { RequestHandler } from 'express';
import type { RealmContext } from '../realm/context.js';
import { PATHS } from '../realm/paths.js';

const PUBLIC_PATHS = new Set<string>([PATHS.discovery, PATHS.certs]);

export function cors(p: RealmContext): RequestHandler {
  return (req, res, next) => {
    const origin = req.headers.origin;
    if (origin === undefined) return next();
    if (PUBLIC_PATHS.has(req.path)) {
      res.setHeader('Access-Control-Allow-Origin', '*');
    } else if (p.realm.webOrigins.has(origin)) {
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.setHeader('Access-Control-Allow-Credentials', 'true');
      res.append('Vary', 'Origin');
    } else {
      return next();
    }
    if (req.method !== 'OPTIONS') return next();
    res.setHeader('Access-Control-Allow-Methods', 'GET, POST, OPTIONS');
    res.setHeader('Access-Control-Allow-Headers', 'Authorization, Content-Type');
    res.setHeader('Access-Control-Max-Age', '3600');
    res.status(204).end();
  };
}
