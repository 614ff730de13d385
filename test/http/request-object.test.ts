// Request objects at the authorize endpoint over HTTP: `request` (alg none or RS256) and `request_uri`
// served by a local server; what wins over the query; every way one can be wrong.
import { generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { REQUEST_URI_TIMEOUT_MS } from '../../src/oauth/request-uri.js';
import { fjordRequestObject, TELLER_CB, VAULT_CB, vaultSignerKey } from '../helpers/jwt.js';
import { authorizeWith, redirectParams } from '../helpers/flows.js';
import { useIdp, useLocalServer, Y2030 } from '../helpers/server.js';

const now = (): number => Math.floor(Date.now() / 1000);

const idp = useIdp();
let signerKey: CryptoKey;
let otherKey: CryptoKey;
let rs384Key: CryptoKey;
const served = new Map<string, string>();

beforeAll(async () => {
  signerKey = await vaultSignerKey();
  otherKey = (await generateKeyPair('RS256')).privateKey;
  rs384Key = (await generateKeyPair('RS384')).privateKey;
});
/** A second host that a redirect points at: it must never be asked. */
const elsewhere = useLocalServer((_req, res) => res.end('eyJhbGciOiJub25lIn0.e30.'));
/** Serves request objects by path; see `route` below. */
const host = useLocalServer((req, res) => {
  const path = req.url ?? '';
  const object = served.get(path);
  if (object !== undefined) {
    res.writeHead(200, { 'content-type': 'application/oauth-authz-req+jwt' }).end(object);
  } else if (path === '/redirect-file') {
    res.writeHead(302, { location: 'file:///etc/passwd' }).end();
  } else if (path === '/redirect-elsewhere') {
    res.writeHead(302, { location: `${elsewhere.url}/object` }).end();
  } else if (path === '/big-declared') {
    res.writeHead(200, { 'content-length': String(70_000) }).end('a'.repeat(70_000));
  } else if (path === '/big-chunked') {
    res.writeHead(200);
    for (let i = 0; i < 70; i++) res.write('a'.repeat(1000));
    res.end();
  } else if (path === '/not-a-jwt') {
    res.writeHead(200).end('<html>hello</html>');
  } else if (path === '/hang') {
    // never answers
  } else {
    res.writeHead(404).end();
  }
});

interface ObjectOptions {
  alg?: 'RS256' | 'none' | 'RS384' | 'HS256';
  key?: CryptoKey | Uint8Array;
  client?: string;
  /** Claims to set or (with undefined) remove. */
  claims?: Record<string, unknown>;
}

/** A request object for vault-signer (RS256 with its fixture key unless told otherwise). */
async function requestObject(o: ObjectOptions = {}): Promise<string> {
  return fjordRequestObject(idp, {
    ...o,
    key: o.key ?? signerKey,
    claims: { state: 'from-object', ...o.claims },
  });
}

/** The same object with another payload (state changed) and the old signature. */
function tamper(jwt: string): string {
  const [header, payload, signature] = jwt.split('.') as [string, string, string];
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
  const changed = Buffer.from(JSON.stringify({ ...claims, state: 'changed' })).toString('base64url');
  return `${header}.${changed}.${signature}`;
}

function serve(path: string, object: string): string {
  served.set(path, object);
  return `${host.url}${path}`;
}

const authorize = (query: Record<string, string>): Promise<Response> => authorizeWith(idp, query);

describe('request: a valid request object', () => {
  it('RS256 by the client jwks: the query carries only client_id and request', async () => {
    const response = await authorize({ client_id: 'vault-signer', request: await requestObject() });
    const params = await redirectParams(response, VAULT_CB);
    expect(params.get('code')).toBeTruthy();
    expect(params.get('state')).toBe('from-object');
    expect(params.get('iss')).toBe(idp.issuer);
  });

  it('alg none, for a client without keys', async () => {
    const request = await requestObject({ alg: 'none', client: 'teller-web' });
    const response = await authorize({ client_id: 'teller-web', request });
    expect((await redirectParams(response, TELLER_CB)).get('code')).toBeTruthy();
  });

  it('without iss and aud (both optional)', async () => {
    const request = await requestObject({ claims: { iss: undefined, aud: undefined } });
    const response = await authorize({ client_id: 'vault-signer', request });
    expect((await redirectParams(response, VAULT_CB)).get('code')).toBeTruthy();
  });

  it("its parameters win over the query's", async () => {
    const request = await requestObject({ claims: { state: 'object-state', login_hint: 'ingrid' } });
    const response = await authorize({
      client_id: 'vault-signer',
      response_type: 'code',
      redirect_uri: 'http://127.0.0.1:9/elsewhere',
      state: 'query-state',
      login_hint: 'nobody',
      request,
    });
    const params = await redirectParams(response, VAULT_CB);
    expect(params.get('state')).toBe('object-state');
    expect(params.get('code')).toBeTruthy();
  });

  it('the login page carries the resolved parameters, not the object', async () => {
    const request = await requestObject({ claims: { login_hint: undefined, state: 'picked' } });
    const response = await authorize({ client_id: 'vault-signer', request });
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain('name="state" value="picked"');
    expect(html).toContain(`name="redirect_uri" value="${VAULT_CB}"`);
    expect(html).not.toContain('name="request"');
    expect(html).not.toContain('name="exp"');
  });
});

describe('request_uri: fetched from a local server', () => {
  it('GETs the object once (Accept: the JAR media type) and uses it', async () => {
    const uri = serve('/valid', await requestObject({ claims: { state: 'by-reference' } }));
    const before = host.hits.length;
    const response = await authorize({ client_id: 'vault-signer', request_uri: uri });
    const params = await redirectParams(response, VAULT_CB);
    expect(params.get('state')).toBe('by-reference');
    expect(host.hits.slice(before)).toEqual([
      { method: 'GET', path: '/valid', accept: 'application/oauth-authz-req+jwt, application/jwt' },
    ]);
  });

  it('the production timeout is 5000 ms', () => {
    expect(REQUEST_URI_TIMEOUT_MS).toBe(5000);
  });

  it('a server that never answers: invalid_request_uri when the 5000 ms timeout fires (shortened here)', async () => {
    const original = AbortSignal.timeout.bind(AbortSignal);
    const asked: number[] = [];
    // Only the wait is faked: the production code asks for its timeout, which fires after 50 ms instead.
    const spy = vi.spyOn(AbortSignal, 'timeout').mockImplementation((ms: number) => {
      asked.push(ms);
      return original(50);
    });
    try {
      const response = await authorize({
        client_id: 'vault-signer',
        redirect_uri: VAULT_CB,
        state: 'q',
        request_uri: `${host.url}/hang`,
      });
      const params = await redirectParams(response, VAULT_CB);
      expect(params.get('error')).toBe('invalid_request_uri');
      expect(params.get('error_description')).toMatch(/within 5000 ms/);
    } finally {
      spy.mockRestore();
    }
    expect(asked).toEqual([5000]);
  });
});

describe('bad input: the error goes to the query redirect_uri when it is registered', () => {
  const bad = (o: ObjectOptions) => async (): Promise<Record<string, string>> => ({
    request: await requestObject(o),
  });
  const byUri = (path: string) => async (): Promise<Record<string, string>> => ({
    request_uri: `${host.url}${path}`,
  });
  const cases: [string, string, RegExp, () => Promise<Record<string, string>>][] = [
    [
      'a bad signature (payload changed)',
      'invalid_request_object',
      /signature/,
      async () => ({ request: tamper(await requestObject()) }),
    ],
    [
      'signed by another key',
      'invalid_request_object',
      /signature/,
      async () => ({ request: await requestObject({ key: otherKey }) }),
    ],
    [
      'a wrong aud',
      'invalid_request_object',
      /aud/,
      bad({ claims: { aud: 'https://elsewhere.test/realms/x' } }),
    ],
    ['a wrong iss', 'invalid_request_object', /iss/, bad({ claims: { iss: 'teller-web' } })],
    ['expired', 'invalid_request_object', /expired/, bad({ claims: { iat: now() - 600, exp: now() - 300 } })],
    ['not yet valid (nbf)', 'invalid_request_object', /nbf/, bad({ claims: { nbf: now() + 600 } })],
    [
      'alg RS384',
      'invalid_request_object',
      /alg "RS384"/,
      async () => ({ request: await requestObject({ alg: 'RS384', key: rs384Key }) }),
    ],
    [
      'alg HS256',
      'invalid_request_object',
      /alg "HS256"/,
      bad({ alg: 'HS256', key: new Uint8Array(32).fill(7) }),
    ],
    [
      'another client_id inside',
      'invalid_request_object',
      /client_id/,
      bad({ claims: { client_id: 'teller-web' } }),
    ],
    ['not a JWT', 'invalid_request_object', /not a JWT/, async () => ({ request: 'not-a-jwt' })],
    ['a JWE', 'invalid_request_object', /cannot be decrypted/, async () => ({ request: 'a.b.c.d.e' })],
    [
      'none with a signature part',
      'invalid_request_object',
      /.+/,
      async () => ({ request: `${await requestObject({ alg: 'none' })}c2ln` }),
    ],
    [
      'request and request_uri together',
      'invalid_request',
      /not both/,
      async () => ({ request: await requestObject(), request_uri: `${host.url}/valid` }),
    ],
    [
      'request_uri file:',
      'invalid_request_uri',
      /only http and https/,
      async () => ({ request_uri: 'file:///etc/passwd' }),
    ],
    [
      'request_uri ftp:',
      'invalid_request_uri',
      /only http and https/,
      async () => ({ request_uri: 'ftp://127.0.0.1/object' }),
    ],
    [
      'request_uri not absolute',
      'invalid_request_uri',
      /absolute/,
      async () => ({ request_uri: '/relative/object' }),
    ],
    [
      'request_uri with user info',
      'invalid_request_uri',
      /user info/,
      async () => ({ request_uri: `http://u:p@127.0.0.1:${new URL(host.url).port}/valid` }),
    ],
    ['request_uri answering 404', 'invalid_request_uri', /404/, byUri('/missing')],
    [
      'request_uri redirecting to file:',
      'invalid_request_uri',
      /302 \(redirects are not followed\)/,
      byUri('/redirect-file'),
    ],
    ['request_uri redirecting to another host', 'invalid_request_uri', /302/, byUri('/redirect-elsewhere')],
    [
      'request_uri declaring more than 64 kB',
      'invalid_request_uri',
      /larger than 65536/,
      byUri('/big-declared'),
    ],
    [
      'request_uri sending more than 64 kB',
      'invalid_request_uri',
      /larger than 65536/,
      byUri('/big-chunked'),
    ],
    [
      'request_uri answering something else than a JWT',
      'invalid_request_uri',
      /not a JWT/,
      byUri('/not-a-jwt'),
    ],
    [
      'request_uri nobody listens at',
      'invalid_request_uri',
      /could not be fetched/,
      async () => ({ request_uri: 'http://127.0.0.1:1/object' }),
    ],
    [
      'request_uri serving a forged object',
      'invalid_request_object',
      /signature/,
      async () => ({ request_uri: serve('/forged', await requestObject({ key: otherKey })) }),
    ],
  ];

  it.each(cases)('%s → %s', async (_name, error, description, make) => {
    const response = await authorize({
      client_id: 'vault-signer',
      response_type: 'code',
      redirect_uri: VAULT_CB,
      state: 'query-state',
      ...(await make()),
    });
    const params = await redirectParams(response, VAULT_CB);
    expect(params.get('error')).toBe(error);
    expect(params.get('error_description')).toMatch(description);
    expect(params.get('state')).toBe('query-state');
    expect(params.get('code')).toBeNull();
  });

  it('nothing is fetched from where a redirect points', () => {
    expect(elsewhere.hits).toEqual([]);
  });

  it('RS256 for a client without jwks', async () => {
    const request = await requestObject({ client: 'teller-web' });
    const response = await authorize({ client_id: 'teller-web', redirect_uri: TELLER_CB, request });
    expect((await redirectParams(response, TELLER_CB)).get('error')).toBe('invalid_request_object');
  });
});

describe('bad input without a registered redirect_uri in the query: an error page', () => {
  it.each<[string, Record<string, string>, RegExp]>([
    ['a forged object', { request: 'x.y.z' }, /Invalid request object/],
    ['an unfetchable request_uri', { request_uri: 'file:///etc/passwd' }, /Invalid request_uri/],
    [
      'an unregistered query redirect_uri',
      { redirect_uri: 'http://evil.test/cb', request: 'x.y.z' },
      /Invalid request object/,
    ],
  ])('%s', async (_name, query, text) => {
    const response = await authorize({ client_id: 'vault-signer', ...query });
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await response.text()).toMatch(text);
  });

  it('the journal records the error code', async () => {
    await authorize({ client_id: 'vault-signer', request_uri: 'file:///x' });
    const last = idp.requests({ endpoint: 'auth' }).at(-1);
    expect(last).toMatchObject({ status: 400, client: 'vault-signer', error: 'invalid_request_uri' });
  });

  it('an object naming an unregistered redirect_uri: the error page, as from the query', async () => {
    const request = await requestObject({ claims: { redirect_uri: 'http://evil.test/cb' } });
    const response = await authorize({ client_id: 'vault-signer', redirect_uri: VAULT_CB, request });
    expect(response.status).toBe(400);
    expect(await response.text()).toMatch(/is not registered/);
  });
});

describe('with the mock clock frozen away from real time', () => {
  const frozen = useIdp({ clock: Y2030, frozen: true });

  const make = (claims: Record<string, unknown>): Promise<string> =>
    new SignJWT({
      iss: 'vault-signer',
      aud: frozen.issuer,
      response_type: 'code',
      redirect_uri: VAULT_CB,
      scope: 'openid',
      login_hint: 'ingrid',
      ...claims,
    })
      .setProtectedHeader({ alg: 'RS256' })
      .sign(signerKey);

  it.each<[string, Record<string, unknown>, string | null]>([
    ['made with the real clock: accepted', { iat: now(), exp: now() + 60 }, null],
    ['made with the mock clock: accepted', { iat: Y2030, exp: Y2030 + 60 }, null],
    ['expired under both clocks', { iat: now() - 600, exp: now() - 300 }, 'invalid_request_object'],
  ])('%s', async (_name, claims, error) => {
    const response = await fetch(
      `${frozen.endpoints.auth}?${new URLSearchParams({
        client_id: 'vault-signer',
        redirect_uri: VAULT_CB,
        request: await make(claims),
      })}`,
      { redirect: 'manual' },
    );
    const params = await redirectParams(response, VAULT_CB);
    expect(params.get('error')).toBe(error);
  });
});
