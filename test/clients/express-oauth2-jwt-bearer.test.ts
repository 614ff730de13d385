// express-oauth2-jwt-bearer protecting a tiny express API with mock-idp as the authorization server.
import express from 'express';
import { auth, requiredScopes } from 'express-oauth2-jwt-bearer';
import { beforeAll, describe, expect, it } from 'vitest';
import { clientCredentials, loginTokens } from '../helpers/flows.js';
import { useIdp, useLocalServer } from '../helpers/server.js';

const idp = useIdp();
const other = useIdp();
let app: express.Express;
beforeAll(() => {
  app = express();
  app.use(auth({ issuerBaseURL: idp.issuer, audience: 'ledger-api' }));
  app.get('/balance', requiredScopes('ledger.read'), (req, res) => {
    res.json({ sub: req.auth?.payload.sub, azp: req.auth?.payload['azp'] });
  });
  // The library's errors carry status and code; answer them as JSON so the test can read the code.
  app.use(((err, _req, res, next) => {
    if (res.headersSent) return next(err);
    const e = err as { status?: number; code?: string };
    res.status(e.status ?? 500).json({ code: e.code });
  }) as express.ErrorRequestHandler);
});
const api = useLocalServer((req, res) => app(req, res));

async function callApi(
  token: string | undefined,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${api.url}/balance`, {
    headers: token !== undefined ? { authorization: `Bearer ${token}` } : {},
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('express-oauth2-jwt-bearer', () => {
  it('accepts a real access token for the audience and scope', async () => {
    const { json } = await clientCredentials(idp, 'ledger.read');
    const answer = await callApi(json.access_token);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ sub: expect.any(String), azp: 'ledger-sync' });
  });

  it("accepts a user's access token from the code flow", async () => {
    const t = await loginTokens(idp, { scope: 'openid ledger.read' });
    const answer = await callApi(t.access_token);
    expect(answer.status).toBe(200);
    expect(answer.body['sub']).toBe('7f3e2a10-5b6c-4d7e-8f90-a1b2c3d4e5f6');
  });

  it.each<[string, () => Promise<string | undefined>, number, string | undefined]>([
    ['no token (a bare 401 challenge)', async () => undefined, 401, undefined],
    [
      'a token for another audience',
      async () => (await clientCredentials(idp, 'statements')).json.access_token,
      401,
      'invalid_token',
    ],
    ['an ID token', async () => (await loginTokens(idp)).id_token, 401, 'invalid_token'],
    [
      'a tampered token',
      async () => `${(await clientCredentials(idp, 'ledger.read')).json.access_token.slice(0, -6)}AAAAAA`,
      401,
      'invalid_token',
    ],
    [
      'a token of another server',
      async () => (await clientCredentials(other, 'ledger.read')).json.access_token,
      401,
      'invalid_token',
    ],
    [
      'a token without the required scope',
      async () => (await clientCredentials(idp, 'ledger.write')).json.access_token,
      403,
      'insufficient_scope',
    ],
  ])('rejects %s', async (_name, token, status, code) => {
    const answer = await callApi(await token());
    expect(answer.status).toBe(status);
    expect(answer.body['code']).toBe(code);
  });
});
