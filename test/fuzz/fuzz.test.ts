// Property-based tests over every endpoint and every QA route (issue 10): whatever a client or a script
// sends, no 5xx, no dropped connection, no stack trace or path, an OAuth error's status matches its code,
// a token only for a valid credential, and after any QA input the server still issues valid tokens.
// `npm test` runs a bounded number of cases with a fixed seed; `npm run fuzz` runs many more
// (FUZZ_RUNS, FUZZ_SEED).
import fc from 'fast-check';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PATHS } from '../../src/realm/paths.js';
import type { FixturesInput } from '../../src/index.js';
import { useIdp } from '../helpers/server.js';
import { basic } from '../helpers/http.js';
import { expectSound, fcOptions, runsFor, send, type RawAnswer, type RawRequest } from './harness.js';

const FIXTURES: FixturesInput = {
  scopes: { api: { resource: 'rs', roles: ['read'] } },
  clients: {
    batch: { secret: 'batch-secret', grants: ['client_credentials'], scopes: ['api'] },
    web: {
      secret: 'web-secret',
      redirectUris: ['http://app.example/cb'],
      grants: ['authorization_code', 'refresh_token', 'implicit'],
      nninEligible: true,
      subjectType: 'pairwise',
      userinfoSigned: true,
    },
    pub: { authMethods: ['none'], redirectUris: ['http://pub.example/*'], pkce: 'required' },
    rs: { secret: 'rs-secret', nninEligible: true },
  },
  users: {
    alice: { claims: { name: 'Alice', nnin_altsub: '01019012345' }, realmRoles: ['user'] },
    bob: {},
  },
};
const FIXTURES_YAML = `scopes:
  api: { resource: rs, roles: [read] }
clients:
  batch: { secret: batch-secret, grants: [client_credentials], scopes: [api] }
  web: { secret: web-secret, redirectUris: ['http://app.example/cb'], grants: [authorization_code, refresh_token, implicit], nninEligible: true, subjectType: pairwise, userinfoSigned: true }
  pub: { authMethods: [none], redirectUris: ['http://pub.example/*'], pkce: required }
  rs: { secret: rs-secret, nninEligible: true }
users:
  alice: { claims: { name: Alice, nnin_altsub: '01019012345' }, realmRoles: [user] }
  bob: {}
`;

/** Credentials that authenticate; anything else must never get a token or an active introspection. */
const VALID_BASIC = new Set([
  basic('batch', 'batch-secret'),
  basic('web', 'web-secret'),
  basic('rs', 'rs-secret'),
]);
const SECRET_OF: Record<string, string> = { batch: 'batch-secret', web: 'web-secret', rs: 'rs-secret' };

/** Generous: the runs are bounded by count; a slow shared machine must not fail them on time. */
const LIMIT = { timeout: 300_000 };

const OIDC = '/protocol/openid-connect';
/** Every path the realm serves (src/realm/paths.ts: the browser-session iframe and cookie pages too). */
const ENDPOINT_PATHS = [...Object.values(PATHS), `${PATHS.registration}/web`];
const QA_PATHS = [
  '/mock/tokens',
  '/mock/tokens/verify',
  '/mock/clock',
  '/mock/faults',
  '/mock/keys',
  '/mock/keys/rotate',
  '/mock/sessions',
  '/mock/fixtures',
  '/mock/requests',
  '/mock/ui',
];

const NAMES = [
  'grant_type',
  'client_id',
  'client_secret',
  'client_assertion',
  'client_assertion_type',
  'scope',
  'code',
  'redirect_uri',
  'code_verifier',
  'refresh_token',
  'token',
  'token_type_hint',
  'response_type',
  'response_mode',
  'state',
  'nonce',
  'login_hint',
  'prompt',
  'max_age',
  'code_challenge',
  'code_challenge_method',
  'id_token_hint',
  'post_logout_redirect_uri',
  'access_token',
  'origin',
  '__proto__',
  'constructor',
];
const VALUES = [
  'client_credentials',
  'authorization_code',
  'refresh_token',
  'password',
  'openid',
  'openid profile',
  'api',
  'offline_access',
  'idp_proof nnin_altsub',
  'batch',
  'web',
  'pub',
  'rs',
  'batch-secret',
  'alice',
  'bob',
  'http://app.example/cb',
  'http://pub.example/x',
  'S256',
  'plain',
  'none',
  'login',
  'query',
  'fragment',
  'form_post',
  'code',
  'code id_token',
  'token',
  'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
  'eyJhbGciOiJub25lIn0.e30.',
  'constructor',
  '__proto__',
  'toString',
  '-1',
  '1e308',
  '',
];

const text = fc.oneof(
  fc.constantFrom(...VALUES),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
);
const param = fc.tuple(fc.oneof(fc.constantFrom(...NAMES), fc.string({ maxLength: 12 })), text);
const params = fc.array(param, { maxLength: 8 });
const form = (pairs: [string, string][]): string => new URLSearchParams(pairs).toString();

/** A printable header value (the HTTP client refuses control characters; the server must cope with the rest). */
const headerValue = fc.oneof(
  fc.constantFrom(
    '',
    'null',
    'Basic',
    'Bearer',
    'Basic Og==',
    'Basic !!!',
    'Bearer ey.ey.',
    '%',
    'x'.repeat(2000),
  ),
  fc.string({ unit: 'binary-ascii', maxLength: 60 }).map((s) => s.replace(/[^\x20-\x7e]/g, '')),
);
const authorization = fc.oneof(
  fc.constantFrom(...VALID_BASIC),
  fc.constantFrom(basic('batch', 'wrong'), basic('nobody', 'x'), basic('pub', ''), basic('constructor', 'x')),
  fc.tuple(text, text).map(([id, secret]) => basic(id, secret)),
  headerValue.map((v) => `Basic ${Buffer.from(v).toString('base64')}`),
  headerValue.map((v) => `Bearer ${v}`),
  headerValue,
);
const contentType = fc.constantFrom(
  'application/x-www-form-urlencoded',
  'application/x-www-form-urlencoded; charset=utf-8',
  'application/x-www-form-urlencoded; charset=latin1',
  'application/json',
  'text/plain',
  'multipart/form-data; boundary=x',
  '',
);
const method = fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD');
const optionalHeaders = fc.record(
  {
    authorization,
    'content-type': contentType,
    origin: fc.oneof(fc.constantFrom('http://app.example', 'null', 'http://evil.example'), headerValue),
    host: fc.oneof(
      fc.constantFrom('localhost:99999', '[::1]:8080', '[:::]', 'a..b', 'LOCALHOST', 'x:0'),
      headerValue,
    ),
    'x-forwarded-host': fc.oneof(fc.constantFrom('[::1', 'h:65536', 'mock-idp:8080'), headerValue),
    'x-forwarded-proto': fc.constantFrom('http', 'https', 'ftp', ''),
    'x-forwarded-port': fc.oneof(fc.constantFrom('443', '99999', '-1'), headerValue),
    cookie: headerValue,
    'content-encoding': fc.constantFrom('gzip', 'identity', 'br', 'x'),
  },
  { requiredKeys: [] },
);

/** Header values the HTTP client itself would refuse are dropped: they never reach the server. */
function cleanHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (/^[\x20-\x7e]*$/.test(v)) out[k] = v;
  return out;
}

let origin: string;
let realmPath: string;

/**
 * Node warnings the server's process emitted: none may be (a client's input must not reach its stderr,
 * as the yaml library's "Keys with collection values will be stringified" once did from a fixtures PUT).
 */
const warnings: string[] = [];

beforeAll(() => {
  vi.spyOn(process, 'emitWarning').mockImplementation((warning: string | Error) => {
    warnings.push(String(warning));
  });
});
afterAll(() => {
  vi.restoreAllMocks();
});
const idp = useIdp({ fixtures: FIXTURES });
beforeAll(() => {
  origin = idp.url;
  realmPath = new URL(idp.issuer).pathname;
});

async function call(req: RawRequest): Promise<RawAnswer> {
  const answer = await send(origin, req);
  expectSound(req, answer);
  expect(warnings, 'a Node warning from the server').toEqual([]);
  return answer;
}

/** A token from a real client_credentials grant, verified with the JWKS at the mock clock's time. */
async function expectStillIssuing(): Promise<void> {
  const token = await call({
    method: 'POST',
    path: `${realmPath}${OIDC}/token`,
    headers: {
      authorization: basic('batch', 'batch-secret'),
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials',
  });
  expect(token.status, token.text).toBe(200);
  const accessToken = (JSON.parse(token.text) as { access_token: string }).access_token;
  const jwks = JSON.parse(
    (await call({ method: 'GET', path: `${realmPath}${OIDC}/certs` })).text,
  ) as JSONWebKeySet;
  const clock = JSON.parse((await call({ method: 'GET', path: `${realmPath}/mock/clock` })).text) as {
    epoch: number;
  };
  const { payload } = await jwtVerify(accessToken, createLocalJWKSet(jwks), {
    issuer: idp.issuer,
    currentDate: new Date(clock.epoch * 1000),
  });
  expect(payload.azp).toBe('batch');
}

/**
 * The same token: every part decodes to the same bytes. (The last base64url character of a signature has
 * spare bits that decoders ignore, so another spelling of the same signature is not a forgery.)
 */
function sameToken(a: string, b: string): boolean {
  const parts = (t: string): string[] => t.split('.').map((p) => Buffer.from(p, 'base64url').toString('hex'));
  const [x, y] = [parts(a), parts(b)];
  return (
    a.split('.').length === 3 && x.length === y.length && x.every((p, i) => p === y[i]) && /^[\w.-]+$/.test(a)
  );
}

/** Puts the server back after QA inputs: known fixtures, no faults, the clock at real time. */
async function reset(): Promise<void> {
  await call({ method: 'DELETE', path: `${realmPath}/mock/faults` });
  await call({ method: 'PUT', path: `${realmPath}/mock/fixtures`, body: FIXTURES_YAML });
  await call({
    method: 'PUT',
    path: `${realmPath}/mock/clock`,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ now: Math.floor(Date.now() / 1000), frozen: false }),
  });
}

describe('every endpoint, any request', () => {
  it(
    'any method, path, query, headers and body: a sound answer, never a 5xx or a dropped connection',
    LIMIT,
    async () => {
      await fc.assert(
        fc.asyncProperty(
          method,
          fc.oneof(
            fc.constantFrom(...ENDPOINT_PATHS),
            fc.string({ maxLength: 20 }).map((s) => `/${encodeURIComponent(s)}`),
          ),
          params,
          optionalHeaders,
          fc.oneof(params.map(form), fc.string({ maxLength: 200 }), fc.constant(undefined)),
          async (m, path, query, headers, body) => {
            const q = query.length > 0 ? `?${form(query)}` : '';
            const req: RawRequest = {
              method: m,
              path: `${realmPath}${path}${q}`,
              headers: cleanHeaders(headers),
            };
            if (body !== undefined && m !== 'GET' && m !== 'HEAD') req.body = body;
            await call(req);
          },
        ),
        fcOptions(700),
      );
    },
  );

  it('the token endpoint: a token only for valid client credentials', LIMIT, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.option(authorization, { nil: undefined }),
        params,
        fc.constantFrom('client_credentials', 'authorization_code', 'refresh_token', 'password', 'x'),
        async (auth, extra, grantType) => {
          const req: RawRequest = {
            method: 'POST',
            path: `${realmPath}${OIDC}/token`,
            headers: cleanHeaders({
              'content-type': 'application/x-www-form-urlencoded',
              ...(auth !== undefined ? { authorization: auth } : {}),
            }),
            body: form([['grant_type', grantType], ...extra]),
          };
          const answer = await call(req);
          if (answer.status !== 200) return;
          const sent = new URLSearchParams(String(req.body));
          const viaBasic = auth !== undefined && VALID_BASIC.has(auth);
          const id = sent.get('client_id') ?? '';
          const viaPost = SECRET_OF[id] !== undefined && sent.get('client_secret') === SECRET_OF[id];
          expect(viaBasic || viaPost, `token without valid credentials: ${JSON.stringify(req)}`).toBe(true);
        },
      ),
      fcOptions(700),
    );
  });

  it(
    'introspection, userinfo and revocation: nothing is active that this server did not issue',
    LIMIT,
    async () => {
      const real = await call({
        method: 'POST',
        path: `${realmPath}${OIDC}/token`,
        headers: {
          authorization: basic('batch', 'batch-secret'),
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: 'grant_type=client_credentials',
      });
      const accessToken = (JSON.parse(real.text) as { access_token: string }).access_token;
      const [head, payload, signature] = accessToken.split('.') as [string, string, string];
      // Tokens that look real: the real one with a byte changed, swapped parts, other algorithms.
      const forged = fc.oneof(
        fc
          .nat({ max: accessToken.length - 1 })
          .chain((i) =>
            fc
              .constantFrom('A', 'B', '_', '-', '.')
              .map((c) => accessToken.slice(0, i) + c + accessToken.slice(i + 1)),
          ),
        fc.constantFrom(
          `${head}.${payload}.`,
          `eyJhbGciOiJub25lIn0.${payload}.`,
          `eyJhbGciOiJIUzI1NiJ9.${payload}.${signature}`,
          `${head}.${payload}`,
          `${head}..${signature}`,
        ),
        text,
      );
      await fc.assert(
        fc.asyncProperty(forged, fc.option(authorization, { nil: undefined }), async (token, auth) => {
          const introspection = await call({
            method: 'POST',
            path: `${realmPath}${OIDC}/token/introspect`,
            headers: cleanHeaders({
              'content-type': 'application/x-www-form-urlencoded',
              ...(auth !== undefined ? { authorization: auth } : {}),
            }),
            body: form([['token', token]]),
          });
          if (introspection.status === 200) {
            const active = (JSON.parse(introspection.text) as { active: boolean }).active;
            expect(
              active && !(sameToken(token, accessToken) && auth !== undefined && VALID_BASIC.has(auth)),
            ).toBe(false);
          }
          const userinfo = await call({
            method: 'GET',
            path: `${realmPath}${OIDC}/userinfo`,
            headers: cleanHeaders({ authorization: `Bearer ${token}` }),
          });
          if (!sameToken(token, accessToken)) expect(userinfo.status).not.toBe(200);
          await call({
            method: 'POST',
            path: `${realmPath}${OIDC}/revoke`,
            headers: cleanHeaders({
              'content-type': 'application/x-www-form-urlencoded',
              ...(auth !== undefined ? { authorization: auth } : {}),
            }),
            body: form([['token', token]]),
          });
        }),
        fcOptions(400),
      );
    },
  );

  it(
    'authorize and logout: any parameters give a page, a redirect or a JSON error, never a 5xx',
    LIMIT,
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(`${OIDC}/auth`, `${OIDC}/logout`),
          fc.constantFrom('GET', 'POST'),
          fc.record(
            {
              client_id: fc.constantFrom('web', 'pub', 'batch', 'nobody', 'constructor'),
              redirect_uri: fc.constantFrom(
                'http://app.example/cb',
                'http://pub.example/a?b=c#d',
                'javascript:x',
                'x',
              ),
              response_type: fc.constantFrom(
                'code',
                'code id_token',
                'id_token code',
                'token',
                'id_token token',
                'code id_token token',
                'code token',
                'none',
                'token token',
                '',
              ),
              response_mode: fc.constantFrom('query', 'fragment', 'form_post', 'jwt'),
              nonce: fc.constantFrom('n', '\u0000', 'ø✓'),
              scope: fc.constantFrom('openid', 'openid profile api', 'offline_access', 'nope'),
              login_hint: fc.constantFrom('alice', 'bob', 'nobody', '__proto__'),
              request: fc.constantFrom(
                `eyJhbGciOiJub25lIn0.${Buffer.from('{"client_id":"web","login_hint":"alice"}').toString('base64url')}.`,
                'eyJhbGciOiJub25lIn0.e30.',
                'eyJhbGciOiJSUzI1NiJ9.e30.c2ln',
                'x.y.z',
                'a.b.c.d.e',
              ),
              request_uri: fc.constantFrom('file:///etc/passwd', 'http://127.0.0.1:1/x', 'x', 'urn:x'),
            },
            { requiredKeys: [] },
          ),
          params,
          async (path, m, known, extra) => {
            const pairs: [string, string][] = [...Object.entries(known), ...extra];
            const req: RawRequest =
              m === 'GET'
                ? { method: 'GET', path: `${realmPath}${path}?${form(pairs)}` }
                : {
                    method: 'POST',
                    path: `${realmPath}${path}`,
                    headers: { 'content-type': 'application/x-www-form-urlencoded' },
                    body: form(pairs),
                  };
            await call(req);
          },
        ),
        fcOptions(500),
      );
    },
  );
});

/** JSON-ish bodies for the QA API: the fields each route knows, with any JSON values, plus strangers. */
const jsonValue = fc.jsonValue({ maxDepth: 3 });
const number = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, -1, 1e300, -1e300, 9e15, -9e15, 253_402_300_799, 253_402_300_800, 1.5),
);
const qaField = fc.oneof(jsonValue, number, text);
const qaBody = fc.oneof(
  fc
    .record(
      {
        type: fc.oneof(fc.constantFrom('access', 'id', 'refresh', 'proof'), qaField),
        client: fc.oneof(fc.constantFrom('batch', 'web', 'pub', 'rs', 'constructor'), qaField),
        user: fc.oneof(fc.constantFrom('alice', 'bob', 'toString'), qaField),
        scope: fc.oneof(fc.constantFrom('openid', 'api', 'openid idp_proof nnin_altsub'), qaField),
        claims: fc.oneof(
          fc.dictionary(fc.oneof(fc.constantFrom('typ', 'sub', 'exp', 'iss'), fc.string()), jsonValue),
          qaField,
        ),
        header: fc.oneof(
          fc.dictionary(
            fc.oneof(fc.constantFrom('kid', 'typ', 'alg', 'crit', 'jku'), fc.string()),
            jsonValue,
          ),
          qaField,
        ),
        expiresIn: number,
        issuedAt: fc.oneof(number, text),
        notBefore: fc.oneof(number, text),
        signature: fc.oneof(fc.constantFrom('valid', 'invalid', 'none', 'unknown-key'), qaField),
        now: fc.oneof(number, text, qaField),
        frozen: fc.oneof(fc.boolean(), qaField),
        seconds: fc.oneof(number, qaField),
        endpoint: fc.oneof(
          fc.constantFrom('token', 'introspect', 'discovery', 'certs', 'userinfo', 'auth'),
          qaField,
        ),
        status: fc.oneof(fc.integer({ min: 400, max: 499 }), number),
        delayMs: fc.oneof(fc.integer({ min: 0, max: 20 }), fc.constantFrom(-1, 1e9, 1.5)),
        count: fc.oneof(fc.integer({ min: 1, max: 3 }), number),
        error: qaField,
      },
      { requiredKeys: [] },
    )
    .map((o) => JSON.stringify(o)),
  jsonValue.map((v) => JSON.stringify(v)),
  fc.string({ maxLength: 200 }),
);
/** Fixtures texts: the known good one, edited in random places, or random YAML-ish text. */
const fixturesBody = fc.oneof(
  fc
    .tuple(fc.nat({ max: FIXTURES_YAML.length }), fc.string({ maxLength: 30 }))
    .map(([at, insert]) => FIXTURES_YAML.slice(0, at) + insert + FIXTURES_YAML.slice(at)),
  fc
    .tuple(fc.nat({ max: FIXTURES_YAML.length }), fc.nat({ max: 40 }))
    .map(([at, cut]) => FIXTURES_YAML.slice(0, at) + FIXTURES_YAML.slice(at + cut)),
  fc.constantFrom(
    'clients: {}',
    '[]',
    'a: &a [*a]',
    'clients:\n  x: { secret: s }\nclock: { start: 1e300 }',
    'realm: other\nclients:\n  x: { secret: s }',
    '{"clients": {"__proto__": {"secret": "s"}}}',
    'clients:\n  ? [x]\n  : { secret: s }',
  ),
  fc.string({ maxLength: 200 }),
);

describe('dynamic client registration, any metadata', () => {
  const uri = fc.constantFrom(
    'http://app.example/cb',
    'https://app.example/cb?x=1',
    'com.example:/cb',
    'http://a@b/cb',
    'http://app.example/#f',
    'javascript:x',
    '/cb',
    'x',
    '',
  );
  const value = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.string({ maxLength: 20 }));
  const wild = fc.record(
    {
      redirect_uris: fc.oneof(fc.array(uri, { maxLength: 4 }), value),
      post_logout_redirect_uris: fc.oneof(fc.array(uri, { maxLength: 2 }), value),
      grant_types: fc.oneof(
        fc.subarray([
          'authorization_code',
          'refresh_token',
          'client_credentials',
          'implicit',
          'password',
          'x',
        ]),
        value,
      ),
      response_types: fc.oneof(fc.subarray(['code', 'token', 'id_token token', 'code id_token', 'x']), value),
      token_endpoint_auth_method: fc.oneof(
        fc.constantFrom('client_secret_basic', 'client_secret_post', 'private_key_jwt', 'none', 'x'),
        value,
      ),
      scope: fc.oneof(fc.constantFrom('openid', 'openid api', 'nope', ''), value),
      jwks: fc.oneof(
        fc.constant({ keys: [] }),
        fc.constant({ keys: [{ kty: 'RSA', n: 'AQ', e: 'AQAB' }] }),
        value,
      ),
      client_name: value,
      backchannel_logout_uri: fc.oneof(uri, value),
      ['__proto__']: value,
    },
    { requiredKeys: [] },
  );
  /** Metadata that registers, with values that vary: the registered client is read and deleted. */
  const good = fc.record(
    {
      redirect_uris: fc.subarray(['http://app.example/cb', 'https://app.example/cb?x=1', 'com.example:/cb'], {
        minLength: 1,
      }),
      grant_types: fc.subarray([
        'authorization_code',
        'refresh_token',
        'client_credentials',
        'implicit',
        'password',
      ]),
      token_endpoint_auth_method: fc.constantFrom('client_secret_basic', 'client_secret_post', 'none'),
      scope: fc.constantFrom('openid', 'openid api', 'offline_access profile'),
      client_name: fc.string({ maxLength: 30 }),
      contacts: fc.array(fc.string({ maxLength: 10 }), { maxLength: 2 }),
    },
    { requiredKeys: ['redirect_uris'] },
  );
  const metadata = fc.oneof(good, wild);
  let created = 0;

  it('a 201 client that reads and deletes with its token, or a sound 400', LIMIT, async () => {
    const path = `${realmPath}/clients-registrations/openid-connect`;
    await fc.assert(
      fc.asyncProperty(metadata, async (body) => {
        const answer = await call({
          method: 'POST',
          path,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        if (answer.status !== 201) {
          expect(answer.status, answer.text).toBe(400);
          return;
        }
        created++;
        const c = JSON.parse(answer.text) as { client_id: string; registration_access_token: string };
        const headers = { authorization: `Bearer ${c.registration_access_token}` };
        expect((await call({ method: 'GET', path: `${path}/${c.client_id}`, headers })).status).toBe(200);
        expect((await call({ method: 'DELETE', path: `${path}/${c.client_id}`, headers })).status).toBe(204);
      }),
      fcOptions(200),
    );
    // Half the cases register: with enough runs, some must have.
    if (runsFor(200) >= 20) expect(created).toBeGreaterThan(0);
  });
});

describe('every QA route, any input: a sound answer, and the server still issues tokens after it', () => {
  it('sequences of QA requests', LIMIT, async () => {
    const qaRequest = fc.oneof(
      fc.tuple(fc.constantFrom(...QA_PATHS), method, qaBody),
      fc.tuple(fc.constant('/mock/fixtures'), fc.constant('PUT'), fixturesBody),
      fc.tuple(
        fc
          .oneof(fc.constantFrom('/mock/keys/', '/mock/sessions/'), fc.constant('/mock/'))
          .chain((p) => fc.string({ maxLength: 20 }).map((s) => `${p}${encodeURIComponent(s)}`)),
        fc.constantFrom('GET', 'DELETE', 'POST'),
        fc.constant(''),
      ),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(qaRequest, { minLength: 1, maxLength: 4 }),
        contentType,
        async (requests, type) => {
          for (const [path, m, body] of requests) {
            const req: RawRequest = {
              method: m,
              path: `${realmPath}${path}`,
              headers: type !== '' ? { 'content-type': type } : {},
            };
            if (m !== 'GET' && m !== 'HEAD') req.body = body;
            await call(req);
          }
          // Faults may be pending: the realm must still answer soundly apart from injected statuses.
          await call({ method: 'DELETE', path: `${realmPath}/mock/faults` });
          await call({ method: 'DELETE', path: `${realmPath}/mock/sessions` });
          const fixtures = await call({
            method: 'PUT',
            path: `${realmPath}/mock/fixtures`,
            body: FIXTURES_YAML,
          });
          expect(fixtures.status, fixtures.text).toBe(200);
          await expectStillIssuing();
        },
      ),
      fcOptions(300),
    );
    await reset();
  });
});
