// Who may use the QA API: a token when set, no browser from another origin without one,
// --no-qa-api; and the security headers of HTML pages.
import express from 'express';
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { FixturesInput } from '../../src/index.js';
import { securityHeaders } from '../../src/http/pages.js';
import {
  StartedMockIdpContainer,
  type StartedMockIdpOptions,
} from '../../src/testcontainers/started-mock-idp-container.js';
import { MockIdpContainer } from '../../src/testcontainers/index.js';
import { runBin, type ServeProcess } from '../helpers/cli.js';
import { basic, postForm } from '../helpers/http.js';
import { startIdp, useCliPerTest, useIdp, endpointsOf } from '../helpers/server.js';

const FIXTURES: FixturesInput = {
  clients: {
    batch: { secret: 'batch-secret', grants: ['client_credentials'] },
    web: { secret: 'web-secret', redirectUris: ['http://app.example/cb'] },
  },
  users: { alice: { claims: { name: 'Alice' } } },
};

/** One request per QA route, as a script would send it. */
const ROUTES: [string, string, unknown][] = [
  ['POST', '/mock/tokens', { type: 'access', client: 'batch' }],
  ['GET', '/mock/clock', undefined],
  ['PUT', '/mock/clock', { frozen: true }],
  ['POST', '/mock/clock', { seconds: 1 }],
  ['POST', '/mock/faults', { endpoint: 'certs', delayMs: 0 }],
  ['GET', '/mock/faults', undefined],
  ['DELETE', '/mock/faults', undefined],
  ['GET', '/mock/keys', undefined],
  ['POST', '/mock/keys/rotate', undefined],
  ['GET', '/mock/sessions', undefined],
  ['DELETE', '/mock/sessions', undefined],
  ['GET', '/mock/requests', undefined],
  ['DELETE', '/mock/requests', undefined],
  ['POST', '/mock/tokens/verify', { token: 'x' }],
  ['GET', '/mock/device', undefined],
  ['GET', '/mock/ciba', undefined],
  ['PUT', '/mock/fixtures', 'clients:\n  batch: { secret: batch-secret, grants: [client_credentials] }\n'],
];

async function send(
  idp: { issuer: string },
  [method, path, body]: [string, string, unknown],
  headers: Record<string, string> = {},
): Promise<{ status: number; json: Record<string, unknown>; headers: Headers }> {
  const response = await fetch(`${idp.issuer}${path}`, {
    method,
    headers,
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // not JSON
  }
  return { status: response.status, json, headers: response.headers };
}

const ok = (status: number): boolean => status >= 200 && status < 300;

describe('without a token: scripts pass, browsers from another origin are refused (403)', () => {
  const idp = useIdp({ fixtures: FIXTURES });

  it.each(ROUTES)('%s %s: no Origin (a script) and the own origin pass', async (...route) => {
    expect(ok((await send(idp, route)).status)).toBe(true);
    expect(ok((await send(idp, route, { origin: new URL(idp.url).origin })).status)).toBe(true);
  });

  it.each(ROUTES)('%s %s from another origin or cross-site: 403 access_denied', async (...route) => {
    for (const headers of [
      { origin: 'http://evil.example' },
      { origin: 'null' },
      { origin: 'http://app.example' }, // a client's own web origin may call the realm, not the QA API
      { origin: new URL(idp.url).origin.replace('127.0.0.1', 'localhost') },
      { 'sec-fetch-site': 'cross-site' },
    ]) {
      const answer = await send(idp, route, headers);
      expect(answer.status, JSON.stringify(headers)).toBe(403);
      expect(answer.json['error']).toBe('access_denied');
    }
  });

  it('a cross-site form post cannot move the clock', async () => {
    const before = (await send(idp, ['GET', '/mock/clock', undefined])).json['epoch'];
    const response = await fetch(`${idp.issuer}/mock/clock`, {
      method: 'POST',
      headers: {
        'content-type': 'text/plain',
        origin: 'http://evil.example',
        'sec-fetch-site': 'cross-site',
      },
      body: '{"seconds": 86400}',
    });
    expect(response.status).toBe(403);
    const after = (await send(idp, ['GET', '/mock/clock', undefined])).json['epoch'] as number;
    expect(after - (before as number)).toBeLessThan(5);
  });
});

describe('startMockIdp({ qaToken }): every /mock request needs Authorization: Bearer TOKEN (401)', () => {
  const idp = useIdp({ fixtures: FIXTURES, qaToken: 's3cr3t-qa' });

  it.each(ROUTES)('%s %s', async (...route) => {
    for (const headers of [{}, { authorization: 'Bearer wrong' }, { authorization: 'Basic s3cr3t-qa' }]) {
      const answer = await send(idp, route, headers);
      expect(answer.status).toBe(401);
      expect(answer.json['error']).toBe('invalid_token');
      expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer /);
    }
    const allowed = await send(idp, route, {
      authorization: 'Bearer s3cr3t-qa',
      origin: 'http://evil.example',
    });
    expect(ok(allowed.status)).toBe(true);
  });

  it('the realm endpoints and the in-process mint() need no token', async () => {
    const token = await postForm(
      idp.endpoints.token,
      { grant_type: 'client_credentials' },
      { authorization: basic('batch', 'batch-secret') },
    );
    expect(token.status).toBe(200);
    expect((await idp.mint({ type: 'access', client: 'batch' })).token).toMatch(/^ey/);
  });

  it("the Testcontainers mint() sends the container's token", async () => {
    const fake = { getHost: () => '127.0.0.1', getFirstMappedPort: () => idp.port };
    const options: StartedMockIdpOptions = { realm: 'mock', issuer: undefined };
    const withToken = new StartedMockIdpContainer(fake as never, { ...options, qaToken: 's3cr3t-qa' });
    expect((await withToken.mint({ type: 'access', client: 'batch' })).claims['azp']).toBe('batch');
    const without = new StartedMockIdpContainer(fake as never, options);
    await expect(without.mint({ type: 'access', client: 'batch' })).rejects.toThrow(/401/);
  });

  it('MockIdpContainer.withQaToken passes the token in the environment, not on the command line', () => {
    const container = new MockIdpContainer('mock-idp:test').withQaToken('s3cr3t-qa');
    const state = container as unknown as { environment: Record<string, string> };
    expect(state.environment['MOCK_IDP_QA_TOKEN']).toBe('s3cr3t-qa');
  });
});

describe('startMockIdp({ qaApi: false }): /mock answers 404', () => {
  it.each(ROUTES)('%s %s', async (...route) => {
    const idp = await startIdp({ fixtures: FIXTURES, qaApi: false });
    try {
      expect((await send(idp, route)).status).toBe(404);
      const token = await postForm(
        idp.endpoints.token,
        { grant_type: 'client_credentials' },
        { authorization: basic('batch', 'batch-secret') },
      );
      expect(token.status).toBe(200);
    } finally {
      await idp.close();
    }
  });
});

describe('the CLI: --qa-token / MOCK_IDP_QA_TOKEN, --no-qa-api / MOCK_IDP_QA_API=off', () => {
  const serve = useCliPerTest(['--port', '0', '--quiet']);
  const clock = (s: ServeProcess, headers: Record<string, string> = {}) =>
    fetch(`${s.base}/mock/clock`, { headers }).then((r) => r.status);

  it.each([
    ['--qa-token', ['--qa-token', 'tok-1'], {}],
    ['MOCK_IDP_QA_TOKEN', [], { MOCK_IDP_QA_TOKEN: 'tok-1' }],
  ])('%s locks the QA API; `mock-idp token --server` sends it', async (_name, args, env) => {
    const s = await serve(args, env);
    expect(await clock(s)).toBe(401);
    expect(await clock(s, { authorization: 'Bearer tok-1' })).toBe(200);
    const refused = await runBin(['token', '--server', s.base, '--client', 'web-app']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/invalid_token/);
    const minted = await runBin(['token', '--server', s.base, '--client', 'web-app', '--qa-token', 'tok-1']);
    expect(minted.code).toBe(0);
    expect(minted.stdout).toMatch(/^ey/);
  });

  it.each([
    ['--no-qa-api', ['--no-qa-api'], {}],
    ['MOCK_IDP_QA_API=off', [], { MOCK_IDP_QA_API: 'off' }],
  ])('%s: /mock answers 404, the realm still serves', async (_name, args, env) => {
    const s = await serve(args, env);
    expect(await clock(s)).toBe(404);
    expect((await fetch(`${endpointsOf(s.base).discovery}`)).status).toBe(200);
  });

  it.each([
    [['--qa-token', ''], {}, /--qa-token/],
    [['--qa-token', 'has space'], {}, /--qa-token/],
    [[], { MOCK_IDP_QA_API: 'maybe' }, /MOCK_IDP_QA_API=maybe/],
  ])('%j %j is a usage error', async (args, env, message) => {
    const result = await runBin(['serve', '--port', '0', ...args], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });
});

describe('HTML pages carry the security headers', () => {
  const idp = useIdp({ fixtures: FIXTURES });
  const auth = (params: Record<string, string>) =>
    fetch(`${idp.endpoints.auth}?${new URLSearchParams(params)}`, { redirect: 'manual' });
  const code = { response_type: 'code', client_id: 'web', redirect_uri: 'http://app.example/cb' };

  it.each([
    ['the error page', () => auth({ response_type: 'code' })],
    ['the login page', () => auth(code)],
    ['the form_post page', () => auth({ ...code, response_mode: 'form_post', login_hint: 'alice' })],
    ['the logged-out page', () => fetch(idp.endpoints.logout)],
  ])('%s', async (_name, load) => {
    const response = await load();
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/default-src 'none'/);
    expect(csp).toMatch(/frame-ancestors 'none'/);
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    const html = await response.text();
    const scripts = [...html.matchAll(/<script>([^<]*)<\/script>/g)].map((m) => m[1] ?? '');
    for (const script of scripts) {
      const hash = createHash('sha256').update(script).digest('base64');
      expect(csp).toContain(`'sha256-${hash}'`);
    }
    if (scripts.length === 0) expect(csp).toMatch(/script-src 'none'/);
  });

  it('securityHeaders({ frameAncestors }) lets those origins frame the page and drops X-Frame-Options', async () => {
    const app = express();
    app.get('/framed', (_req, res) => {
      res.setHeader('X-Frame-Options', 'DENY');
      securityHeaders(res, {
        frameAncestors: ['http://app.example', 'https://other.example'],
        scripts: ['parent.postMessage("x", "*")'],
      });
      res.type('html').send('<script>parent.postMessage("x", "*")</script>');
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const { port } = server.address() as AddressInfo;
      const response = await fetch(`http://127.0.0.1:${port}/framed`);
      const csp = response.headers.get('content-security-policy') ?? '';
      expect(csp).toMatch(/frame-ancestors http:\/\/app\.example https:\/\/other\.example(;|$)/);
      expect(csp).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'/);
      expect(response.headers.get('x-frame-options')).toBeNull();
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
