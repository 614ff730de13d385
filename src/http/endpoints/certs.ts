// GET /protocol/openid-connect/certs: the JWKS of the public signing keys (RSA, then EC), then the encryption key.
import type { RequestHandler } from 'express';
import type { RealmContext } from '../../realm/context.js';
import { sendJson } from '../context.js';

export function certsHandler(p: RealmContext): RequestHandler {
  return async (_req, res) => {
    // The EC key is published always (any sign-in may ask for version 3), made on the first request here
    // rather than at start, so a start stays as quick as one that never signs ES256.
    if (!p.keys.ecPublished) await p.keys.publishEc(true);
    const { publicJwk } = await p.encryptionKey;
    sendJson(res, 200, { keys: [...p.keys.jwks().keys, publicJwk] }, { 'Cache-Control': 'no-cache' });
  };
}
