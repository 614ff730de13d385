// What a QA script needs from the clock and faults: relative --not-before / notBefore / issuedAt on the
// mock clock, DELETE /mock/clock, faults until cleared, JSON fault bodies, and clock.set() field names.
import { decodeJwt } from 'jose';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BATCH_JOB, DEFAULT_FIXTURES } from '../helpers/bundled.js';
import { runBin } from '../helpers/cli.js';
import { tempDir, writeTestKey } from '../helpers/files.js';
import { call, postForm } from '../helpers/http.js';
import { endpointsOf, useIdp, Y2030 } from '../helpers/server.js';

const idp = useIdp({ fixtures: DEFAULT_FIXTURES, clock: Y2030, frozen: true });
let base: string;
beforeAll(() => {
  base = idp.issuer;
});
beforeEach(async () => {
  await call('PUT', `${base}/mock/clock`, { now: Y2030, frozen: true });
  await call('DELETE', `${base}/mock/faults`);
});

const alice = { type: 'access', client: 'web-app', user: 'alice' } as const;
const mint = async (body: Record<string, unknown>): Promise<Record<string, number>> => {
  const answer = await call('POST', `${base}/mock/tokens`, body);
  expect(answer.status, answer.text).toBe(200);
  return answer.json['claims'] as Record<string, number>;
};

describe('relative times on the mock clock', () => {
  it.each([
    ['notBefore "+3600"', { notBefore: '+3600' }, { iat: Y2030, nbf: Y2030 + 3600 }],
    ['notBefore "-60"', { notBefore: '-60' }, { nbf: Y2030 - 60 }],
    ['issuedAt "-600"', { issuedAt: '-600' }, { iat: Y2030 - 600, exp: Y2030 - 300 }],
    [
      'issuedAt "+60" with expiresIn',
      { issuedAt: '+60', expiresIn: 10 },
      { iat: Y2030 + 60, exp: Y2030 + 70 },
    ],
    ['absolute epoch seconds stay absolute', { notBefore: Y2030 - 5 }, { nbf: Y2030 - 5 }],
  ])('%s', async (_name, times, expected) => {
    expect(await mint({ ...alice, ...times })).toMatchObject(expected);
  });

  it('follows the mock clock wherever a script moved it', async () => {
    await call('PUT', `${base}/mock/clock`, { now: '2040-06-01T00:00:00Z' });
    const at = Date.parse('2040-06-01T00:00:00Z') / 1000;
    const claims = await mint({ ...alice, notBefore: '+3600' });
    expect(claims['nbf']).toBe(at + 3600);
    expect(claims['nbf']).toBeGreaterThan(claims['iat'] ?? Infinity);
  });

  it('answers 400 for a malformed relative time', async () => {
    const answer = await call('POST', `${base}/mock/tokens`, { ...alice, notBefore: '+1h' });
    expect(answer.status).toBe(400);
    expect(answer.json['error_description']).toMatch(/notBefore/);
  });

  it('mock-idp token --not-before +3600 --server: measured on the server clock', async () => {
    const result = await runBin([
      'token',
      '--server',
      base,
      ...['--client', 'web-app', '--user', 'alice'],
      '--not-before',
      '+3600',
      '--issued-at',
      '-60',
    ]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(decodeJwt(result.stdout.trim())).toMatchObject({ iat: Y2030 - 60, nbf: Y2030 + 3600 });
  });

  it('mock-idp token --not-before +3600 offline: measured on --clock', async () => {
    const { dir, remove } = tempDir();
    try {
      const key = writeTestKey(dir);
      const args = ['token', '--key', key, '--fixtures', DEFAULT_FIXTURES, '--clock', String(Y2030)];
      const result = await runBin([...args, '--client', 'web-app', '--not-before', '+3600']);
      expect(result.code, result.stderr).toBe(0);
      expect(decodeJwt(result.stdout.trim())).toMatchObject({ iat: Y2030, nbf: Y2030 + 3600 });
      const bad = await runBin([...args, '--client', 'web-app', '--not-before', 'soon']);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/\+N or -N seconds from now/);
    } finally {
      remove();
    }
  });
});

describe('DELETE /mock/clock', () => {
  it('goes back to real time, not frozen', async () => {
    const answer = await call('DELETE', `${base}/mock/clock`);
    expect(answer.status).toBe(200);
    expect(answer.json['frozen']).toBe(false);
    expect(Math.abs((answer.json['epoch'] as number) - Date.now() / 1000)).toBeLessThan(120);
    expect(idp.clock.isReal).toBe(true);
  });
});

describe('faults for scripts', () => {
  const token = () => postForm(endpointsOf(base).token, { grant_type: 'client_credentials' }, BATCH_JOB);

  it('count "always" lasts until DELETE /mock/faults', async () => {
    const added = await call('POST', `${base}/mock/faults`, {
      endpoint: 'token',
      status: 503,
      count: 'always',
    });
    expect(added.status).toBe(201);
    expect(added.json).toMatchObject({ remaining: 'always' });
    for (let i = 0; i < 5; i++) expect((await token()).status).toBe(503);
    expect((await call('GET', `${base}/mock/faults`)).json['faults']).toMatchObject([
      { remaining: 'always' },
    ]);
    expect((await call('DELETE', `${base}/mock/faults`)).json).toEqual({ cleared: 1 });
    expect((await token()).status).toBe(200);
  });

  it.each([[0], [-1], ['forever'], [1.5]])('count %j is a 400', async (count) => {
    const answer = await call('POST', `${base}/mock/faults`, { endpoint: 'token', status: 503, count });
    expect(answer.status).toBe(400);
  });

  it.each([
    ['token', () => token()],
    ['certs', () => fetch(endpointsOf(base).certs)],
  ])(
    'a fault at %s answers Content-Type: application/json like every other error',
    async (endpoint, send) => {
      await call('POST', `${base}/mock/faults`, { endpoint, status: 503 });
      const failed = await send();
      expect(failed.status).toBe(503);
      expect(failed.headers.get('content-type')).toBe('application/json');
      const real = await postForm(
        endpointsOf(base).token,
        { grant_type: 'client_credentials' },
        'Basic eDp5',
      );
      expect(real.headers.get('content-type')).toBe(failed.headers.get('content-type'));
    },
  );
});

describe('the library clock takes the HTTP field names', () => {
  it.each([
    [{ now: '2031-01-01T00:00:00Z' }, Date.parse('2031-01-01T00:00:00Z') / 1000, true],
    [{ now: Y2030 + 10 }, Y2030 + 10, true],
    [{ now: new Date((Y2030 + 20) * 1000), frozen: false }, Y2030 + 20, false],
  ])('clock.set(%j)', (setting, epoch, frozen) => {
    idp.clock.set(setting);
    expect(idp.clock.state()).toMatchObject({ frozen });
    expect(Math.abs(idp.clock.state().epoch - epoch)).toBeLessThanOrEqual(1);
  });

  it.each([
    [{ nowMs: 1 }, /unknown field "nowMs" \(fields: now, frozen\)/],
    [{ now: Y2030, freeze: true }, /unknown field "freeze"/],
    [{ frozen: 'yes' }, /"frozen" must be a boolean/],
    [{ now: 'tomorrow' }, /not an ISO-8601 instant or epoch seconds/],
  ])('clock.set(%j) throws and changes nothing', (setting, message) => {
    const before = idp.clock.state();
    expect(() => idp.clock.set(setting as never)).toThrow(message);
    expect(idp.clock.state()).toEqual(before);
  });

  it('clock.reset() goes back to real time', () => {
    idp.clock.reset();
    expect(idp.clock.isReal).toBe(true);
  });
});
