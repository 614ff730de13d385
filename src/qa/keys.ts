// /mock/keys: rotate the realm signing key, list and remove keys from the JWKS.
import express from 'express';
import { takeEphemeralKey } from '../keys/ephemeral.js';
import { toSigningKey } from '../keys/key-store.js';
import { OAuthError } from '../oauth/errors.js';
import type { Provider } from '../realm/provider.js';

/** The signing key and every published kid, newest first. */
function keysState(p: Provider): { kid: string; keys: string[] } {
  return { kid: p.keys.active.kid, keys: p.keys.all.map((k) => k.kid) };
}

/** GET lists; POST /rotate adds a new signing key (the old ones stay published); DELETE /{kid} removes one. */
export function keyRoutes(p: Provider): express.Router {
  const router = express.Router();
  router.get('/', (_req, res) => {
    res.json(keysState(p));
  });
  router.post('/rotate', async (_req, res) => {
    const made = await takeEphemeralKey();
    const key = await toSigningKey(made);
    if (p.qaShare !== undefined)
      p.keyPems.set(key.kid, made.export({ format: 'pem', type: 'pkcs8' }).toString());
    p.keys.add(key);
    await p.qaShare?.publish('keys');
    res.status(201).json(keysState(p));
  });
  router.delete('/:kid', async (req, res) => {
    const kid = req.params['kid'] ?? '';
    if (p.keys.find(kid) === undefined)
      throw new OAuthError('not_found', `No key "${kid}" (keys: ${keysState(p).keys.join(', ')})`, 404);
    if (!p.keys.remove(kid))
      throw new OAuthError(
        'invalid_request',
        `Cannot remove "${kid}": it is the last key, and the realm needs one to sign (rotate first)`,
        409,
      );
    await p.qaShare?.publish('keys');
    res.json(keysState(p));
  });
  return router;
}
