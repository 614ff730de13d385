// PUT /mock/fixtures: YAML or JSON replaces the realm at runtime; a bad body answers 400 FILE:LINE:COL and changes nothing.
import { readFileSync } from 'node:fs';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BATCH_JOB, DEFAULT_FIXTURES } from '../helpers/bundled.js';
import { call, postForm } from '../helpers/http.js';
import { endpointsOf, useIdp } from '../helpers/server.js';

const idp = useIdp({ fixtures: DEFAULT_FIXTURES });
let base: string;
const original = readFileSync(DEFAULT_FIXTURES, 'utf8');

beforeAll(() => {
  base = idp.issuer;
});
beforeEach(async () => {
  await put(original);
});

async function put(body: string, contentType = 'application/yaml') {
  const response = await fetch(`${base}/mock/fixtures`, {
    method: 'PUT',
    headers: { 'content-type': contentType },
    body,
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}
const mintFor = (user: string) =>
  call('POST', `${base}/mock/tokens`, { type: 'access', client: 'web-app', user });

const SMALL_YAML = `realm: mock
clients:
  web-app:
    secret: new-secret
    redirectUris: [http://localhost:3000/callback]
users:
  dave:
    claims: { name: Dave Dahl }
`;

describe('PUT /mock/fixtures', () => {
  it.each([
    ['YAML', SMALL_YAML, 'application/yaml'],
    [
      'JSON',
      JSON.stringify({
        clients: { 'web-app': { secret: 'new-secret', redirectUris: ['http://localhost:3000/callback'] } },
        users: { dave: { claims: { name: 'Dave Dahl' } } },
      }),
      'application/json',
    ],
    ['YAML sent as form data (curl -d)', SMALL_YAML, 'application/x-www-form-urlencoded'],
  ])('%s replaces users and clients at once', async (_name, body, contentType) => {
    const answer = await put(body, contentType);
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ realm: 'mock', clients: ['web-app'], users: ['dave'] });
    expect((await mintFor('dave')).json['claims']).toMatchObject({ name: 'Dave Dahl' });
    expect((await mintFor('alice')).status).toBe(400);
    const oldSecret = await postForm(
      endpointsOf(base).token,
      { grant_type: 'client_credentials' },
      BATCH_JOB,
    );
    expect(oldSecret.status).toBe(401);
  });

  it('keeps sessions and keys; reports start-up settings it cannot apply', async () => {
    const before = await mintFor('alice');
    const answer = await put(`seed: other\nclock: { start: 2040-01-01T00:00:00Z }\n${original}`);
    expect(answer.status).toBe(200);
    expect(answer.json['ignored']).toEqual(['seed', 'clock']);
    const sessions = (await call('GET', `${base}/mock/sessions`)).json['sessions'] as { id: string }[];
    expect(sessions.map((s) => s.id)).toContain((before.json['claims'] as { sid: string }).sid);
    expect((await call('GET', `${base}/mock/clock`)).json['epoch']).toBeLessThan(2_000_000_000);
  });

  it.each([
    ['an unknown key', `${SMALL_YAML}  dave2:\n    claimz: {}\n`, /^body:\d+:\d+ unknown key "claimz"/],
    ['a YAML syntax error', 'clients:\n  web-app: [\n', /^body:\d+:\d+ /],
    ['a missing clients key', 'users: {}\n', /^body(:\d+:\d+)? missing required key "clients"/],
    ['an empty body', '', /missing required key "clients"|fixtures must be a mapping/],
    [
      'a changed realm name',
      `${SMALL_YAML.replace('realm: mock\n', '')}realm: other\n`,
      /^body:\d+:8 the realm name cannot change while running \(serving "mock", got "other"\)/,
    ],
  ])('%s answers 400 with the problems and changes nothing', async (_name, body, problem) => {
    const answer = await put(body);
    expect(answer.status).toBe(400);
    expect(answer.json['error']).toBe('invalid_request');
    const problems = answer.json['problems'] as string[];
    expect(problems.length).toBeGreaterThan(0);
    expect(problems[0]).toMatch(problem);
    expect(String(answer.json['error_description'])).toContain(problems[0]);
    expect((await mintFor('alice')).status).toBe(200);
  });

  it.each([
    ['sent as JSON is refused', 'application/json', 400],
    ['sent as YAML loads (flow YAML allows it)', 'application/yaml', 200],
  ])('a body with a trailing comma %s', async (_name, contentType, status) => {
    const body = '{ "clients": { "web-app": { "secret": "s" }, },\n  "users": { "dave": {} } }';
    const answer = await put(body, contentType);
    expect(answer.status).toBe(status);
    if (status === 400)
      expect(answer.json['problems']).toEqual([
        'body:1:44 trailing comma before }: JSON allows no comma after the last item',
      ]);
  });

  it('locates a problem at its line and column', async () => {
    const answer = await put('clients:\n  web-app:\n    secret: s\n    grantz: []\n');
    expect(answer.json['problems']).toEqual([
      'body:4:5 unknown key "grantz" in "clients.web-app" (did you mean "grants"?)',
    ]);
  });
});
