// A real resource server (express-oauth2-jwt-bearer, jwks-rsa) against minted edge-case tokens and a rotated key.
import express, { type ErrorRequestHandler } from 'express';
import { auth } from 'express-oauth2-jwt-bearer';
import { importSPKI, jwtVerify } from 'jose';
import { JwksClient } from 'jwks-rsa';
import { beforeAll, describe, expect, it } from 'vitest';
import type { MintRequest } from '../../src/index.js';
import { DEFAULT_FIXTURES } from '../helpers/bundled.js';
import { call } from '../helpers/http.js';
import { endpointsOf, useIdp, useLocalServer } from '../helpers/server.js';

/** The payments API: accepts bearer tokens for audience payments-api from the mock issuer. */
function paymentsApi(issuer: string): express.Express {
  const app = express();
  // cooldownDuration 0: refetch the JWKS at once on an unknown kid (the default waits 30 s after a fetch).
  const bearer = auth({ issuerBaseURL: issuer, audience: 'payments-api', cooldownDuration: 0 });
  app.get('/payments', bearer, (req, res) => {
    res.json({ sub: req.auth?.payload.sub });
  });
  const onError: ErrorRequestHandler = (err: { status?: number; message: string }, _req, res, next) => {
    if (res.headersSent) return next(err);
    res.status(err.status ?? 500).json({ message: err.message });
  };
  app.use(onError);
  return app;
}

const idp = useIdp({ fixtures: DEFAULT_FIXTURES });
let app: express.Express;
beforeAll(() => {
  app = paymentsApi(idp.issuer);
});
const api = useLocalServer((req, res) => app(req, res));
let apiUrl: string;
beforeAll(() => {
  apiUrl = `${api.url}/payments`;
});

async function callApi(token: string): Promise<{ status: number; message: string }> {
  const response = await fetch(apiUrl, { headers: { authorization: `Bearer ${token}` } });
  const body = (await response.json()) as { message?: string };
  return { status: response.status, message: body.message ?? '' };
}

const alice = { type: 'access', client: 'web-app', user: 'alice', scope: 'openid payments.read' } as const;

describe('express-oauth2-jwt-bearer resource server', () => {
  it('accepts the valid token', async () => {
    const { token } = await idp.mint(alice);
    expect(await callApi(token)).toEqual({ status: 200, message: '' });
  });

  it.each<[string, () => Partial<MintRequest>, RegExp]>([
    ['expired', () => ({ expiresIn: -60 }), /"exp" claim timestamp check failed/],
    [
      'not yet valid',
      () => ({ notBefore: idp.clock.nowSeconds() + 3600 }),
      /"nbf" claim timestamp check failed/,
    ],
    ['wrong audience', () => ({ claims: { aud: 'other-api' } }), /Unexpected 'aud' value/],
    ['bad signature', () => ({ signature: 'invalid' }), /signature verification failed/],
    ['unknown key', () => ({ signature: 'unknown-key' }), /no applicable key found in the JSON Web Key Set/],
    ['alg none', () => ({ signature: 'none' }), /Unsupported algorithm "none"/],
    ['wrong issuer', () => ({ claims: { iss: 'http://evil.test/realms/mock' } }), /Unexpected 'iss' value/],
  ])('rejects the %s token with 401 for that reason', async (_name, edge, reason) => {
    const { token } = await idp.mint({ ...alice, ...edge() });
    const answer = await callApi(token);
    expect(answer.status).toBe(401);
    expect(answer.message).toMatch(reason);
  });
});

describe('key rotation seen by clients', () => {
  it('jwks-rsa picks up the rotated key; the old key still verifies until removed', async () => {
    const client = new JwksClient({ jwksUri: endpointsOf(idp.issuer).certs, cache: true });
    const before = await idp.mint(alice);
    const oldKid = String(before.header['kid']);
    expect((await client.getSigningKey(oldKid)).kid).toBe(oldKid);

    const rotated = await call('POST', `${idp.issuer}/mock/keys/rotate`);
    expect(rotated.status).toBe(201);
    const newKid = String(rotated.json['kid']);
    expect(rotated.json['keys']).toEqual([newKid, oldKid]);

    const after = await idp.mint(alice);
    expect(after.header['kid']).toBe(newKid);
    const key = await client.getSigningKey(newKid);
    const { payload } = await jwtVerify(after.token, await importSPKI(key.getPublicKey(), 'RS256'));
    expect(payload.sub).toBe(after.claims['sub']);
    expect((await callApi(after.token)).status).toBe(200);
    expect((await callApi(before.token)).status).toBe(200);

    const removed = await call('DELETE', `${idp.issuer}/mock/keys/${oldKid}`);
    expect(removed.json).toEqual({ kid: newKid, keys: [newKid] });
    const fresh = new JwksClient({ jwksUri: endpointsOf(idp.issuer).certs });
    await expect(fresh.getSigningKey(oldKid)).rejects.toThrow(/Unable to find a signing key/);
  });
});
