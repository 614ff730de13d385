// /mock/faults: the next matching requests fail with a status and an OAuth error body, or are delayed.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BATCH_JOB, DEFAULT_FIXTURES, PAYMENTS_API } from '../helpers/bundled.js';
import { call, postForm } from '../helpers/http.js';
import { endpointsOf, useIdp } from '../helpers/server.js';

const idp = useIdp({ fixtures: DEFAULT_FIXTURES });
let base: string;

beforeAll(() => {
  base = idp.issuer;
});
afterEach(async () => {
  await call('DELETE', `${base}/mock/faults`);
});

const addFault = (body: unknown) => call('POST', `${base}/mock/faults`, body);
const clientCredentials = () =>
  postForm(endpointsOf(base).token, { grant_type: 'client_credentials' }, BATCH_JOB);

/** One request to each endpoint a fault can target, answering its status and body. */
const ENDPOINTS: Record<string, () => Promise<{ status: number; json: Record<string, unknown> }>> = {
  token: clientCredentials,
  introspect: () => postForm(endpointsOf(base).introspect, { token: 'x' }, PAYMENTS_API),
  discovery: () => call('GET', `${endpointsOf(base).discovery}`),
  certs: () => call('GET', endpointsOf(base).certs),
  userinfo: () => call('GET', `${endpointsOf(base).userinfo}`),
};

describe('/mock/faults', () => {
  it.each([
    ['token', 503, 'temporarily_unavailable', 200],
    ['introspect', 500, 'server_error', 200],
    ['discovery', 502, 'temporarily_unavailable', 200],
    ['certs', 404, 'invalid_request', 200],
    ['userinfo', 401, 'invalid_token', 401],
  ])(
    '%s: the next request answers %i %s, the one after is normal',
    async (endpoint, status, error, normal) => {
      const added = await addFault({ endpoint, status, count: 1 });
      expect(added.status).toBe(201);
      expect(added.json).toMatchObject({ endpoint, status, error, remaining: 1 });
      const send = ENDPOINTS[endpoint] as () => Promise<{ status: number; json: Record<string, unknown> }>;
      const failed = await send();
      expect(failed.status).toBe(status);
      expect(failed.json).toEqual({
        error,
        error_description: `Injected fault: ${status} at ${endpoint} (mock-idp /mock/faults)`,
      });
      const after = await send();
      expect(after.status).toBe(normal);
      expect(String(after.json['error_description'])).not.toMatch(/Injected fault/);
    },
  );

  it('count: the next N requests fail, with a chosen error and description', async () => {
    await addFault({
      endpoint: 'token',
      status: 429,
      error: 'slow_down',
      description: 'try later',
      count: 2,
    });
    const answers = [await clientCredentials(), await clientCredentials(), await clientCredentials()];
    expect(answers.map((a) => a.status)).toEqual([429, 429, 200]);
    expect(answers[0]?.json).toEqual({ error: 'slow_down', error_description: 'try later' });
  });

  it('faults for one endpoint apply in the order they were added and leave others alone', async () => {
    await addFault({ endpoint: 'token', status: 500, count: 1 });
    await addFault({ endpoint: 'token', status: 503, count: 1 });
    expect((await ENDPOINTS['certs']?.())?.status).toBe(200);
    expect((await clientCredentials()).status).toBe(500);
    expect((await clientCredentials()).status).toBe(503);
    expect((await clientCredentials()).status).toBe(200);
  });

  it('delayMs without status only delays; with status it delays, then fails', async () => {
    await addFault({ endpoint: 'token', delayMs: 300, count: 1 });
    let start = performance.now();
    expect((await clientCredentials()).status).toBe(200);
    expect(performance.now() - start).toBeGreaterThanOrEqual(290);

    await addFault({ endpoint: 'token', delayMs: 200, status: 504, count: 1 });
    start = performance.now();
    expect((await clientCredentials()).status).toBe(504);
    expect(performance.now() - start).toBeGreaterThanOrEqual(190);

    // Both faults are used up: nothing is pending, so the next request is neither delayed nor failed.
    expect((await call('GET', `${base}/mock/faults`)).json['faults']).toEqual([]);
    expect((await clientCredentials()).status).toBe(200);
  });

  it.each([
    ['left out', {}],
    ['"always"', { count: 'always' }],
  ])('count %s: every request fails until DELETE /mock/faults', async (_name, count) => {
    const added = await addFault({ endpoint: 'token', status: 503, ...count });
    expect(added.status).toBe(201);
    expect(added.json).toMatchObject({ endpoint: 'token', status: 503, remaining: 'always' });
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push((await clientCredentials()).status);
    expect(answers).toEqual([503, 503, 503, 503]);
    expect((await call('GET', `${base}/mock/faults`)).json['faults']).toEqual([
      expect.objectContaining({ endpoint: 'token', remaining: 'always' }),
    ]);
    expect((await call('DELETE', `${base}/mock/faults`)).json).toEqual({ cleared: 1 });
    expect((await clientCredentials()).status).toBe(200);
  });

  it('a number counts down: remaining after each request, then gone', async () => {
    await addFault({ endpoint: 'token', status: 503, count: 2 });
    const remaining = async () =>
      ((await call('GET', `${base}/mock/faults`)).json['faults'] as { remaining: unknown }[]).map(
        (f) => f.remaining,
      );
    expect(await remaining()).toEqual([2]);
    expect((await clientCredentials()).status).toBe(503);
    expect(await remaining()).toEqual([1]);
    expect((await clientCredentials()).status).toBe(503);
    expect(await remaining()).toEqual([]);
    expect((await clientCredentials()).status).toBe(200);
  });

  it('GET lists pending faults with what remains; DELETE clears them', async () => {
    await addFault({ endpoint: 'token', status: 503, count: 3 });
    await addFault({ endpoint: 'certs', delayMs: 10 });
    await clientCredentials();
    const listed = await call('GET', `${base}/mock/faults`);
    expect(listed.json['faults']).toEqual([
      expect.objectContaining({ endpoint: 'token', status: 503, remaining: 2 }),
      expect.objectContaining({ endpoint: 'certs', delayMs: 10, remaining: 'always' }),
    ]);
    expect((await call('DELETE', `${base}/mock/faults`)).json).toEqual({ cleared: 2 });
    expect((await call('GET', `${base}/mock/faults`)).json).toEqual({ faults: [] });
    expect((await clientCredentials()).status).toBe(200);
  });

  it.each([
    [{ endpoint: 'token' }, /give status \(fail\), delayMs \(delay\), or both/],
    [{ endpoint: 'nowhere', status: 500 }, /endpoint: Invalid option/],
    [{ endpoint: 'token', status: 200 }, /status: /],
    [{ endpoint: 'token', status: 503, count: 0 }, /count: /],
    [{ endpoint: 'token', delayMs: -1 }, /delayMs: /],
    [{ endpoint: 'token', status: 503, later: true }, /unknown field "later"/],
    [{ status: 503 }, /^Invalid fault: missing required field "endpoint"$/],
    [
      { endpoint: 'token', status: 503, delayms: 10 },
      /^Invalid fault: unknown field "delayms" \(did you mean "delayMs"\?\)$/,
    ],
    [
      { endpoint: 'token', status: 503, description: '' },
      /^Invalid fault: description: empty: give a value$/,
    ],
  ])('%j answers 400', async (body, description) => {
    const answer = await addFault(body);
    expect(answer.status).toBe(400);
    expect(answer.json['error']).toBe('invalid_request');
    expect(String(answer.json['error_description'])).toMatch(description);
    expect((await call('GET', `${base}/mock/faults`)).json).toEqual({ faults: [] });
  });
});
