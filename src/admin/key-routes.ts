// GET /admin/realms/{realm}/keys: the realm's keys as Keycloak's KeyResource lists them (KeysMetadataRepresentation):
// the kid of the active key per algorithm, and each key's public half (base64 DER), its certificate where it
// has one (the ES256 key's), status and use.
import { createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import type { Router } from 'express';
import { handle, keycloakOf, type AdminContext } from './http.js';

/** A key's public half as base64 DER (SubjectPublicKeyInfo), as Keycloak's `publicKey` shows it. */
const spki = (key: KeyObject): string =>
  (key.type === 'public' ? key : createPublicKey(key))
    .export({ type: 'spki', format: 'der' })
    .toString('base64');

export function keyRoutes(router: Router, ctx: AdminContext): void {
  router.get(
    '/:realm/keys',
    handle(async (req, res) => {
      const p = await ctx.provider(req);
      keycloakOf(p);
      const rsa = p.keys.all.map((k, i) => ({
        providerId: 'rsa-generated',
        providerPriority: 100,
        kid: k.kid,
        status: i === 0 ? 'ACTIVE' : 'PASSIVE',
        type: 'RSA',
        algorithm: 'RS256',
        publicKey: spki(k.privateKeyObject),
        use: 'SIG',
      }));
      const ecKey = await p.keys.ecKey();
      const ec =
        ecKey === undefined
          ? []
          : [
              {
                providerId: 'ecdsa-generated',
                providerPriority: 100,
                kid: ecKey.kid,
                status: 'ACTIVE',
                type: 'EC',
                algorithm: 'ES256',
                publicKey: spki(ecKey.privateKey),
                certificate: ecKey.x5c[0],
                use: 'SIG',
              },
            ];
      const enc = await p.encryptionKey;
      const active: Record<string, string> = { RS256: p.keys.active.kid, 'RSA-OAEP': enc.kid };
      if (ecKey !== undefined) active['ES256'] = ecKey.kid;
      res.json({
        active,
        keys: [
          ...rsa,
          ...ec,
          {
            providerId: 'rsa-enc-generated',
            providerPriority: 100,
            kid: enc.kid,
            status: 'ACTIVE',
            type: 'RSA',
            algorithm: 'RSA-OAEP',
            publicKey: spki(createPublicKey({ key: enc.publicJwk as JsonWebKey, format: 'jwk' })),
            use: 'ENC',
          },
        ],
      });
    }),
  );
}
