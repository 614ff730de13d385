// GET /admin/realms/{realm}/keys: the realm's keys as Keycloak's KeyResource lists them (KeysMetadataRepresentation):
// the kid of the active key per algorithm, and each key's public half (base64 DER), its certificate where it
// has one (the ES256 key's), status and use.
import { createPublicKey, type JsonWebKey } from 'node:crypto';
import { publicKeyBase64 } from '../keys/key-store.js';
import type { Router } from 'express';
import { handle, keycloakOf, type AdminContext } from './http.js';

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
        publicKey: publicKeyBase64(k.privateKeyObject),
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
                publicKey: publicKeyBase64(ecKey.privateKey),
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
            publicKey: publicKeyBase64(createPublicKey({ key: enc.publicJwk as JsonWebKey, format: 'jwk' })),
            use: 'ENC',
          },
        ],
      });
    }),
  );
}
