// Interface version 3 through real client libraries: openid-client 6's code flow verifies ES256 ID tokens and
// signed userinfo from the JWKS; express-oauth2-jwt-bearer set to ES256 takes version 3's access tokens only.
import { readFileSync } from 'node:fs';
import express from 'express';
import { auth, requiredScopes } from 'express-oauth2-jwt-bearer';
import * as client from 'openid-client';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { FixturesInput } from '../../src/fixtures/schema.js';
import { clientCredentials, SECRETS } from '../helpers/flows.js';
import { decode } from '../helpers/jwt.js';
import { codeFlow } from '../helpers/openid-client.js';
import { FJORD_FIXTURES, useIdp, useLocalServer } from '../helpers/server.js';

const INGRID_SUB = '7f3e2a10-5b6c-4d7e-8f90-a1b2c3d4e5f6';
const insecure = { execute: [client.allowInsecureRequests] };

/** The fjord realm, with teller-web signing its userinfo (signed as the access token's version signs). */
function fjordSignedUserinfo(): FixturesInput {
  const f = parse(readFileSync(FJORD_FIXTURES, 'utf8')) as FixturesInput;
  const clients = f.clients as Record<string, Record<string, unknown>>;
  clients['teller-web'] = { ...clients['teller-web'], userinfoSigned: true };
  return f;
}

const idp = useIdp(() => ({ fixtures: fjordSignedUserinfo() }));

/** teller-web's sign-in of ingrid, as openid-client's code flow asks for it. */
const SIGN_IN = {
  redirect_uri: 'http://app.fjord.test/cb',
  scope: 'openid profile ledger.read',
  login_hint: 'ingrid',
};

describe('openid-client 6 at api_version=3', () => {
  it('code flow: an ES256 ID token verified from the JWKS; refresh and signed userinfo stay ES256', async () => {
    const config = await client.discovery(
      new URL(idp.issuer),
      'teller-web',
      { client_secret: SECRETS['teller-web'], userinfo_signed_response_alg: 'ES256' },
      client.ClientSecretBasic(SECRETS['teller-web']),
      insecure,
    );
    const tokens = await codeFlow(config, { ...SIGN_IN, api_version: '3' });
    // openid-client verified the ID token's ES256 signature with the EC key of certs, and iss, aud, nonce, times.
    const ecKid = (await (await fetch(idp.endpoints.certs)).json()) as {
      keys: { kid: string; kty: string }[];
    };
    const kid = ecKid.keys.find((k) => k.kty === 'EC')?.kid;
    expect(decode(tokens.id_token as string).header).toEqual({ alg: 'ES256', typ: 'JWT', kid });
    expect(tokens.claims()).toMatchObject({ sub: INGRID_SUB, api_ver: 3, amr: ['bid'] });
    expect(tokens.token_type).toBe('bearer'); // openid-client lower-cases it; the wire value is pinned in test/http
    expect(decode(tokens.access_token).header.alg).toBe('ES256');
    expect(decode(tokens.refresh_token as string).header.alg).toBe('HS256');

    const next = await client.refreshTokenGrant(config, tokens.refresh_token as string);
    expect(decode(next.id_token as string).header.alg).toBe('ES256');
    expect(decode(next.access_token).header.alg).toBe('ES256');
    expect(next.claims()).toMatchObject({ sub: INGRID_SUB, api_ver: 3 });

    // A signed userinfo answer, verified by openid-client against the JWKS with the alg the client registered.
    const info = await client.fetchUserInfo(config, next.access_token, INGRID_SUB);
    expect(info).toMatchObject({ sub: INGRID_SUB, name: 'Ingrid Fjeld', iss: idp.issuer, aud: 'teller-web' });
  });

  it('at api_version=1 the same client gets RS256 tokens and RS256 signed userinfo', async () => {
    const config = await client.discovery(
      new URL(idp.issuer),
      'teller-web',
      { client_secret: SECRETS['teller-web'], userinfo_signed_response_alg: 'RS256' },
      client.ClientSecretBasic(SECRETS['teller-web']),
      insecure,
    );
    const tokens = await codeFlow(config, { ...SIGN_IN, api_version: '1' });
    expect(decode(tokens.id_token as string).header.alg).toBe('RS256');
    expect(tokens.claims()).not.toHaveProperty('api_ver');
    const info = await client.fetchUserInfo(config, tokens.access_token, INGRID_SUB);
    expect(info).toMatchObject({ sub: INGRID_SUB, aud: 'teller-web' });
  });

  it('a client expecting ES256 refuses the RS256 ID token of a version 1 sign-in', async () => {
    const config = await client.discovery(
      new URL(idp.issuer),
      'teller-web',
      { client_secret: SECRETS['teller-web'], id_token_signed_response_alg: 'ES256' },
      client.ClientSecretBasic(SECRETS['teller-web']),
      insecure,
    );
    const error = await codeFlow(config, { ...SIGN_IN, api_version: '1' }).then(
      () => undefined,
      (err: unknown) => err as Error & { cause?: unknown; code?: string },
    );
    expect(error).toMatchObject({ message: 'invalid response encountered', code: 'OAUTH_INVALID_RESPONSE' });
    expect((error?.cause as Error).message).toBe('unexpected JWT "alg" header parameter');
  });
});

describe('express-oauth2-jwt-bearer with tokenSigningAlg ES256', () => {
  const v3 = useIdp(() => ({
    fixtures: { ...(parse(readFileSync(FJORD_FIXTURES, 'utf8')) as FixturesInput), apiVersion: 3 },
  }));
  let app: express.Express;
  beforeAll(() => {
    app = express();
    app.use(auth({ issuerBaseURL: v3.issuer, audience: 'ledger-api', tokenSigningAlg: 'ES256' }));
    app.get('/balance', requiredScopes('ledger.read'), (req, res) => {
      res.json({ azp: req.auth?.payload['azp'], api_ver: req.auth?.payload['api_ver'] });
    });
    app.use(((err, _req, res, next) => {
      if (res.headersSent) return next(err);
      const e = err as { status?: number; code?: string };
      res.status(e.status ?? 500).json({ code: e.code });
    }) as express.ErrorRequestHandler);
  });
  const api = useLocalServer((req, res) => app(req, res));

  const callApi = async (token: string) => {
    const response = await fetch(`${api.url}/balance`, { headers: { authorization: `Bearer ${token}` } });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it('accepts a version 3 access token (ES256, verified from certs)', async () => {
    const { json } = await clientCredentials(v3, 'ledger.read');
    expect(decode(json.access_token).header.alg).toBe('ES256');
    expect(await callApi(json.access_token)).toEqual({
      status: 200,
      body: { azp: 'ledger-sync', api_ver: 3 },
    });
  });

  it('refuses a version 1 access token (RS256) of the same realm', async () => {
    const minted = await fetch(`${v3.issuer}/mock/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'access', client: 'ledger-sync', scope: 'ledger.read', apiVersion: 1 }),
    });
    const { token } = (await minted.json()) as { token: string };
    expect(decode(token).header.alg).toBe('RS256');
    expect(await callApi(token)).toEqual({ status: 401, body: { code: 'invalid_token' } });
  });
});
