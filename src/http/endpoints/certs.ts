// GET /protocol/openid-connect/certs: the JWKS of the public signing keys.
import type { RequestHandler } from 'express';
import type { Provider } from '../../provider.js';

export function certsHandler(p: Provider): RequestHandler {
  return (_req, res) => {
    res.status(200).set('Cache-Control', 'no-cache').json(p.keys.jwks());
  };
}
