// GET /realms/{realm}: the realm's public information, as Keycloak's PublicRealmResource answers it; clients
// such as python-keycloak's public_key() read the realm's RS256 public key here instead of from the JWKS.
import type { RequestHandler } from 'express';
import { publicKeyBase64 } from '../../keys/key-store.js';
import type { RealmContext } from '../../realm/context.js';
import { issuerOf, sendJson } from '../context.js';

export function realmInfoHandler(p: RealmContext): RequestHandler {
  return (_req, res) => {
    const issuer = issuerOf(res);
    sendJson(
      res,
      200,
      {
        realm: p.realm.name,
        public_key: publicKeyBase64(p.keys.active.privateKeyObject),
        'token-service': `${issuer}/protocol/openid-connect`,
        'account-service': `${issuer}/account`,
        'tokens-not-before': p.realm.tokens.notBeforePolicy,
      },
      { 'Cache-Control': 'no-cache' },
    );
  };
}
