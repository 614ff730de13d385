// GET /protocol/openid-connect/certs: the JWKS of the public signing keys.
import type { RequestHandler } from 'express';
import type { RealmContext } from '../../realm/context.js';
import { sendJson } from '../context.js';

export function certsHandler(p: RealmContext): RequestHandler {
  return (_req, res) => {
    sendJson(res, 200, p.keys.jwks(), { 'Cache-Control': 'no-cache' });
  };
}
