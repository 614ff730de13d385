// The request journal: GET/DELETE /mock/requests, filters, the ring, no secrets, and the same records as the log.
import { SignJWT, importJWK, type JWK } from 'jose';
import { readFile } from 'node:fs/promises';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Logger } from '../../src/log.js';
import { logLine } from '../../src/qa/journal.js';
import { RequestJournal, type JournalRecord } from '../../src/store/journal.js';
import {
  authorizeUrl,
  clientCredentials,
  exchangeCode,
  introspect,
  refresh,
  SECRETS,
} from '../helpers/flows.js';
import { postForm } from '../helpers/http.js';
import { s256 } from '../helpers/jwt.js';
import { useIdp, VAULT_SIGNER_KEY, Y2030 } from '../helpers/server.js';

const lines: string[] = [];
const logger: Logger = {
  level: 'info',
  debug: () => undefined,
  info: (m) => lines.push(m),
  warn: () => undefined,
  error: () => undefined,
};

const idp = useIdp({ clock: Y2030, frozen: true, logger });
beforeEach(async () => {
  await fetch(`${idp.issuer}/mock/requests`, { method: 'DELETE' });
  lines.length = 0;
});

async function journal(query = ''): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${idp.issuer}/mock/requests${query}`);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}
const records = async (query = ''): Promise<JournalRecord[]> =>
  (await journal(query)).body['requests'] as JournalRecord[];

describe('GET /mock/requests', () => {
  it('records each request to the realm, newest last, with the fields of PRODUCT.md §14', async () => {
    await clientCredentials(idp, 'ledger.read');
    await clientCredentials(idp, 'ledger.delete');
    await fetch(idp.endpoints.discovery);
    await fetch(authorizeUrl(idp, { user: 'ingrid' }), { redirect: 'manual' });
    const all = await records();
    expect(all).toEqual([
      {
        time: '2030-01-01T00:00:00.000Z',
        method: 'POST',
        path: '/realms/fjord/protocol/openid-connect/token',
        endpoint: 'token',
        status: 200,
        client: 'ledger-sync',
        grant: 'client_credentials',
        user: null,
        error: null,
        durationMs: expect.any(Number),
      },
      expect.objectContaining({ status: 400, client: 'ledger-sync', error: 'invalid_scope' }),
      expect.objectContaining({ method: 'GET', endpoint: 'discovery', status: 200, client: null }),
      expect.objectContaining({ endpoint: 'auth', status: 302, client: 'teller-web', user: 'ingrid' }),
    ]);
  });

  it('leaves out /health and the QA API itself', async () => {
    await fetch(`${idp.url}/health`);
    await fetch(`${idp.issuer}/mock/clock`);
    await fetch(idp.endpoints.certs);
    expect((await records()).map((r) => r.endpoint)).toEqual(['certs']);
  });

  it('each record has its own path without the query, past the hundreds of distinct paths it shares', async () => {
    const asked = Array.from({ length: 600 }, (_, i) => `/realms/fjord/no-such-${i}`);
    for (const path of asked) await fetch(`${idp.url}${path}?state=s${path.length}`);
    await fetch(authorizeUrl(idp, { user: 'ingrid' }), { redirect: 'manual' });
    const held = await records();
    expect(held.map((r) => r.path)).toEqual([...asked, '/realms/fjord/protocol/openid-connect/auth']);
    expect(held.slice(0, 600).every((r) => r.status === 404)).toBe(true);
  });

  it.each([
    ['?endpoint=token', 2],
    ['?endpoint=discovery', 1],
    ['?client=ledger-sync', 2],
    ['?client=nobody', 0],
    ['?status=400', 1],
    ['?status=2xx', 2],
    ['?status=4xx&endpoint=token', 1],
    ['?since=2030-01-01T00:00:00Z', 3],
    ['?since=1893456001', 0],
  ])('filter %s → %i', async (query, count) => {
    await clientCredentials(idp, 'ledger.read');
    await clientCredentials(idp, 'ledger.delete');
    await fetch(idp.endpoints.discovery);
    expect(await records(query)).toHaveLength(count);
  });

  // `limit`: the newest N of the records that match, still newest last; `held` counts the journal whatever
  // the filter (what the inspector shows beside its newest 200).
  it.each([
    ['?limit=1', ['discovery:200']],
    ['?limit=2', ['token:400', 'discovery:200']],
    ['?limit=10000', ['token:200', 'token:400', 'discovery:200']],
    ['?limit=1&endpoint=token', ['token:400']],
    ['?limit=5&status=2xx', ['token:200', 'discovery:200']],
  ])('limit %s → %j, and held 3', async (query, expected) => {
    await clientCredentials(idp, 'ledger.read');
    await clientCredentials(idp, 'ledger.delete');
    await fetch(idp.endpoints.discovery);
    const { status, body } = await journal(query);
    expect(status).toBe(200);
    expect((body['requests'] as JournalRecord[]).map((r) => `${r.endpoint}:${r.status}`)).toEqual(expected);
    expect(body['held']).toBe(3);
  });

  it.each([
    ['?endpoint=tokens', /filter endpoint "tokens"/],
    ['?limit=0', /filter limit "0" \(an integer from 1 to 10000\)/],
    ['?limit=10001', /filter limit "10001"/],
    ['?limit=-1', /filter limit "-1"/],
    ['?limit=1.5', /filter limit "1.5"/],
    ['?limit=many', /filter limit "many"/],
    ['?status=abc', /filter status "abc"/],
    ['?status=600', /filter status "600"/],
    ['?since=yesterday', /filter since "yesterday"/],
    ['?clients=x', /Unknown filter "clients"/],
    ['?client=a&client=b', /filter client: give it once/],
  ])('a bad filter %s is 400 naming it', async (query, message) => {
    const { status, body } = await journal(query);
    expect(status).toBe(400);
    expect(body['error']).toBe('invalid_request');
    expect(body['error_description']).toMatch(message);
  });

  it('DELETE empties it', async () => {
    await fetch(idp.endpoints.discovery);
    const cleared = await fetch(`${idp.issuer}/mock/requests`, { method: 'DELETE' });
    expect(await cleared.json()).toEqual({ cleared: 1 });
    expect(await records()).toEqual([]);
  });

  it('the library reads the same journal: idp.requests(filter)', async () => {
    await clientCredentials(idp, 'ledger.read');
    await fetch(idp.endpoints.discovery);
    expect(idp.requests({ endpoint: 'token', status: 200 })).toEqual(await records('?endpoint=token'));
    expect(idp.requests({ since: new Date(Y2030 * 1000 + 1000) })).toEqual([]);
    expect(idp.requests({ limit: 1 })).toEqual(await records('?endpoint=discovery'));
    expect(() => idp.requests({ status: 'bad' })).toThrow(/filter status "bad"/);
  });
});

describe('what the journal never holds', () => {
  it('no secret, token, code, assertion or verifier of the requests it records', async () => {
    const verifier = 'journal-verifier-0123456789-abcdefghijklmnopqrstuvwxyz';
    const response = await fetch(
      authorizeUrl(idp, { user: 'ingrid', codeChallenge: s256(verifier), codeChallengeMethod: 'S256' }),
      { redirect: 'manual' },
    );
    const code = new URL(response.headers.get('location') as string).searchParams.get('code') as string;
    const tokens = await exchangeCode(idp, code, { extra: { code_verifier: verifier } });
    expect(tokens.status).toBe(200);
    const refreshed = await refresh(idp, tokens.json.refresh_token);
    await introspect(idp, tokens.json.access_token);
    await fetch(idp.endpoints.userinfo, { headers: { authorization: `Bearer ${tokens.json.access_token}` } });
    const jwk = JSON.parse(await readFile(VAULT_SIGNER_KEY, 'utf8')) as JWK;
    const assertion = await new SignJWT({})
      .setProtectedHeader({ alg: 'RS256', kid: jwk.kid ?? '' })
      .setIssuer('vault-signer')
      .setSubject('vault-signer')
      .setAudience(idp.endpoints.token)
      .setJti('journal-jti-1')
      .setExpirationTime(Y2030 + 60)
      .sign(await importJWK(jwk, 'RS256'));
    await postForm(idp.endpoints.token, {
      grant_type: 'client_credentials',
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: assertion,
    });
    await fetch(`${idp.endpoints.logout}?id_token_hint=${tokens.json.id_token ?? ''}`);
    const text = JSON.stringify(await records());
    const secrets = [
      ...Object.values(SECRETS),
      code,
      code.split('.')[0] ?? code,
      verifier,
      tokens.json.access_token,
      tokens.json.refresh_token,
      tokens.json.id_token ?? '',
      refreshed.json.access_token,
      assertion,
      'journal-jti-1',
    ];
    for (const secret of secrets) {
      expect(secret.length).toBeGreaterThan(8);
      expect(text).not.toContain(secret);
      // JWTs: not even their signature part
      expect(text).not.toContain(secret.split('.').at(-1) ?? secret);
    }
    expect((await records()).length).toBeGreaterThanOrEqual(7);
  });
});

describe('the request log prints the same records', () => {
  it('each log line of a realm request is logLine() of its journal record', async () => {
    await clientCredentials(idp, 'ledger.read');
    await fetch(authorizeUrl(idp, { user: 'ola' }), { redirect: 'manual' });
    await fetch(idp.endpoints.userinfo, { headers: { authorization: 'Bearer nope' } });
    const journaled = (await records()).map(logLine);
    expect(journaled).toHaveLength(3);
    expect(lines.slice(0, 3)).toEqual(journaled);
  });
});

describe('the ring', () => {
  it('keeps the last `capacity` records in order: constant memory', () => {
    const ring = new RequestJournal(3);
    const rec = (status: number): JournalRecord => ({
      time: '2030-01-01T00:00:00.000Z',
      method: 'GET',
      path: '/',
      endpoint: null,
      status,
      client: null,
      grant: null,
      user: null,
      error: null,
      durationMs: 0,
    });
    for (let i = 200; i < 210; i++) ring.add(rec(i));
    expect(ring.list().map((r) => r.status)).toEqual([207, 208, 209]);
    expect(ring.clear()).toBe(3);
    expect(ring.list()).toEqual([]);
  });

  it('a realm keeps 10,000', () => {
    expect(idp.provider.journal.capacity).toBe(10_000);
  });
});
