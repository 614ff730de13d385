// Outside the endpoints: /health, unknown realms and paths, and no 500 (or stack trace) for any client mistake.
import { describe, expect, it } from 'vitest';
import { expectNoStack } from '../helpers/assert.js';
import { basicFor } from '../helpers/flows.js';
import { call, get } from '../helpers/http.js';
import { useIdp } from '../helpers/server.js';

const idp = useIdp();

describe('health and unknown places', () => {
  it('GET /health answers 200 {"status":"UP"}', async () => {
    const answer = await get(`${idp.url}/health`);
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ status: 'UP' });
  });

  it.each([
    '/realms/mock/.well-known/openid-configuration',
    '/realms/Fjord/.well-known/openid-configuration',
    '/realms/other/protocol/openid-connect/token',
  ])('an unknown realm answers 404 JSON: %s', async (path) => {
    const answer = await get(`${idp.url}${path}`);
    expect(answer.status).toBe(404);
    expect(answer.json).toEqual({
      error: 'Realm does not exist',
      error_description: 'This server serves realm "fjord"',
    });
  });

  it.each(['/index.html', '/realms', '/realms/fjord/protocol/openid-connect/nope', '/auth/realms/fjord'])(
    'an unknown path answers 404 JSON: %s',
    async (path) => {
      const answer = await get(`${idp.url}${path}`);
      expect(answer.status).toBe(404);
      expect(answer.json.error).toBe('not_found');
    },
  );

  it.each<[string, string, string]>([
    ['PUT', '/mock/tokens', 'POST'],
    ['GET', '/mock/tokens/verify', 'POST'],
    ['PATCH', '/mock/faults', 'POST, GET, DELETE'],
    ['POST', '/mock/sessions/abc', 'DELETE'],
    ['GET', '/mock/fixtures', 'PUT'],
    ['GET', '/protocol/openid-connect/token', 'POST'],
    ['DELETE', '/protocol/openid-connect/userinfo', 'GET, POST'],
    ['PUT', '/protocol/openid-connect/logout', 'GET, POST'],
    ['DELETE', '/protocol/openid-connect/auth', 'GET, POST'],
    ['POST', '/protocol/openid-connect/certs', 'GET'],
    ['PUT', '/clients-registrations/openid-connect/some-client', 'GET, DELETE'],
  ])('%s on the known path %s answers 405, Allow: %s', async (method, path, allow) => {
    const answer = await call(method, `${idp.issuer}${path}`);
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe(allow);
    const methods = allow.split(', ');
    expect(answer.json).toEqual({
      error: 'invalid_request',
      error_description: `${method} is not allowed on /realms/fjord${path}: use ${
        methods.length > 1 ? `${methods.slice(0, -1).join(', ')} or ${methods.at(-1)}` : allow
      }`,
    });
  });

  it.each([
    ['PUT', '/mock/nothing'],
    ['PUT', '/protocol/openid-connect/nope'],
  ])('%s on the unknown path %s is still 404', async (method, path) => {
    const answer = await call(method, `${idp.issuer}${path}`);
    expect(answer.status).toBe(404);
    expect(answer.json.error).toBe('not_found');
  });
});

const form = { 'content-type': 'application/x-www-form-urlencoded' };

describe('no 500 for a client mistake, and no stack trace', () => {
  it.each<[string, string, RequestInit]>([
    [
      'token: gzip that is not gzip',
      '/protocol/openid-connect/token',
      { method: 'POST', headers: { ...form, 'content-encoding': 'gzip' }, body: 'grant_type=x' },
    ],
    [
      'token: unknown content-encoding',
      '/protocol/openid-connect/token',
      { method: 'POST', headers: { ...form, 'content-encoding': 'br2' }, body: 'grant_type=x' },
    ],
    [
      'token: broken percent-encoding',
      '/protocol/openid-connect/token',
      { method: 'POST', headers: form, body: 'grant_type=%E0%A4%A&x=%' },
    ],
    [
      'token: bracket parameters',
      '/protocol/openid-connect/token',
      { method: 'POST', headers: form, body: 'grant_type[]=client_credentials' },
    ],
    [
      'token: Basic with bad percent-encoding',
      '/protocol/openid-connect/token',
      {
        method: 'POST',
        headers: { ...form, authorization: `Basic ${Buffer.from('%:%').toString('base64')}` },
        body: 'grant_type=client_credentials',
      },
    ],
    [
      'token: Bearer instead of Basic',
      '/protocol/openid-connect/token',
      {
        method: 'POST',
        headers: { ...form, authorization: 'Bearer abc' },
        body: 'grant_type=client_credentials',
      },
    ],
    ['token: empty body', '/protocol/openid-connect/token', { method: 'POST' }],
    [
      'token: malformed JSON body',
      '/protocol/openid-connect/token',
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' },
    ],
    [
      'introspect: unknown kid',
      '/protocol/openid-connect/token/introspect',
      {
        method: 'POST',
        headers: { ...form, authorization: basicFor('ledger-api') },
        body: 'token=eyJhbGciOiJSUzI1NiIsImtpZCI6IngifQ.e30.x',
      },
    ],
    [
      'introspect: header not JSON',
      '/protocol/openid-connect/token/introspect',
      {
        method: 'POST',
        headers: { ...form, authorization: basicFor('ledger-api') },
        body: 'token=bm90anNvbg.e30.x',
      },
    ],
    ['userinfo: a.b.c', '/protocol/openid-connect/userinfo', { headers: { authorization: 'Bearer a.b.c' } }],
    [
      'userinfo: malformed JSON body',
      '/protocol/openid-connect/userinfo',
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' },
    ],
    ['userinfo: PUT', '/protocol/openid-connect/userinfo', { method: 'PUT' }],
    ['auth: duplicated client_id', '/protocol/openid-connect/auth?client_id=teller-web&client_id=x', {}],
    ['auth: broken percent-encoding', '/protocol/openid-connect/auth?client_id=%E0%A4%A', {}],
    ['auth: DELETE', '/protocol/openid-connect/auth', { method: 'DELETE' }],
    [
      'auth: oversize POST',
      '/protocol/openid-connect/auth',
      { method: 'POST', headers: form, body: `state=${'x'.repeat(100_000)}` },
    ],
    ['logout: garbage id_token_hint', '/protocol/openid-connect/logout?id_token_hint=garbage', {}],
    [
      'logout: unregistered redirect',
      '/protocol/openid-connect/logout?post_logout_redirect_uri=http://evil.test/',
      {},
    ],
    [
      'logout: refresh_token without client',
      '/protocol/openid-connect/logout',
      { method: 'POST', headers: form, body: 'refresh_token=abc' },
    ],
    [
      'revoke: garbage token',
      '/protocol/openid-connect/revoke',
      { method: 'POST', headers: { ...form, authorization: basicFor('teller-web') }, body: 'token=x.y.z' },
    ],
    ['certs: POST', '/protocol/openid-connect/certs', { method: 'POST' }],
    ['discovery: POST', '/.well-known/openid-configuration', { method: 'POST' }],
    ['realm path with broken percent-encoding', '/%E0%A4%A', {}],
  ])('%s', async (_name, path, init) => {
    const response = await fetch(`${idp.issuer}${path}`, { ...init, redirect: 'manual' });
    const text = await response.text();
    expect(response.status, text).toBeLessThan(500);
    expectNoStack(text);
  });

  it('a realm name with broken percent-encoding', async () => {
    const response = await fetch(`${idp.url}/realms/%E0%A4%A/x`);
    expect(response.status).toBeLessThan(500);
    expectNoStack(await response.text());
  });
});
