// GET /protocol/openid-connect/certs: the JWKS of the public signing keys, then the encryption key.
import type { RequestHandler } from 'express';
import type { RealmContext } from '../../realm/context.js';
import { sendJson } from '../context.js';

export function certsHandler(p: RealmContext): RequestHandler {
  return async (_req, res) => {
    const { publicJwk } = await p.encryptionKey;
    sendJson(res, 200, { keys: [...p.keys.jwks().keys, publicJwk] }, { 'Cache-Control': 'no-cache' });
  };
}
