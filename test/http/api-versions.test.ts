// Interface versions (api_version, clients.{id}.apiVersion, apiVersion) and acr_values, over HTTP.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRemoteJWKSet, jwtVerify, UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { FixturesInput } from '../../src/fixtures/schema.js';
import { loadFixturesFile } from '../../src/fixtures/load.js';
import { buildRealm } from '../../src/fixtures/realm.js';
import { FixturesError } from '../../src/index.js';
import {
  authorizeRedirect,
  authorizeUrl,
  clientCredentials,
  exchangeCode,
  loginTokens,
  refresh,
  type AuthorizeParams,
  type TokenResponse,
} from '../helpers/flows.js';
import { ensureBuilt, runBin } from '../helpers/cli.js';
import { basic, call, get, postForm } from '../helpers/http.js';
import { decode, s256, type Claims } from '../helpers/jwt.js';
import { SKIP_REDIS, useRedis } from '../helpers/redis.js';
import { FJORD_FIXTURES, useIdp, Y2030, type TestIdp } from '../helpers/server.js';

/**
 * The fjord realm with versions: the realm's default is 2, counter-app keeps 1, next-app is configured
 * for 4; ola may sign in with BankID on mobile only.
 */
function versionedFjord(): FixturesInput {
  const f = parse(readFileSync(FJORD_FIXTURES, 'utf8')) as FixturesInput;
  const clients = f.clients as Record<string, Record<string, unknown>>;
  const users = f.users as Record<string, Record<string, unknown>>;
  clients['counter-app'] = { ...clients['counter-app'], apiVersion: 1 };
  clients['next-app'] = { secret: 'next-pass', redirectUris: ['http://next.fjord.test/cb'], apiVersion: 4 };
  clients['pw-cli'] = { secret: 'pw-secret', grants: ['password', 'refresh_token'], apiVersion: 1 };
  users['ola'] = { ...users['ola'], methods: ['bis'] };
  users['ingrid'] = { ...users['ingrid'], password: 'ingrid-pass' };
  return { ...f, apiVersion: 2 };
}

const idp = useIdp(() => ({ fixtures: versionedFjord(), clock: Y2030, frozen: true }));

/** Verifies a token with the realm's JWKS as a client would, whatever alg its version signs with. */
async function verifyToken(
  i: TestIdp,
  token: string,
  audience?: string,
): Promise<{ claims: Claims; header: Record<string, unknown> }> {
  const jwks = createRemoteJWKSet(new URL(i.endpoints.certs));
  const { payload, protectedHeader } = await jwtVerify(token, jwks, {
    issuer: i.issuer,
    currentDate: i.clock.now(),
    ...(audience !== undefined ? { audience } : {}),
  });
  return { claims: payload as Claims, header: protectedHeader };
}

/** The tokens of a code flow for teller-web (ingrid unless said), verified with the realm's JWKS. */
async function signIn(a: AuthorizeParams = {}) {
  const tokens = await loginTokens(idp, { nonce: 'n-1', ...a });
  const access = (await verifyToken(idp, tokens.access_token)).claims;
  const id = (await verifyToken(idp, tokens.id_token as string, a.client ?? 'teller-web')).claims;
  return { tokens, access, id };
}

/** Verifies an ES256 token (versions 3 and 4) with the realm's JWKS, as a client would; RS256 is refused. */
async function verifyEs256(target: typeof idp, token: string, audience?: string) {
  const { payload, protectedHeader } = await jwtVerify(
    token,
    createRemoteJWKSet(new URL(target.endpoints.certs)),
    {
      algorithms: ['ES256'],
      issuer: target.issuer,
      currentDate: target.clock.now(),
      ...(audience !== undefined ? { audience } : {}),
    },
  );
  return { header: protectedHeader, claims: payload as Record<string, unknown> };
}

describe('which version a sign-in follows', () => {
  it.each<[string, AuthorizeParams, number]>([
    ["the realm's (2): no api_version, a client without its own", {}, 2],
    [
      "the client's (1) over the realm's",
      { client: 'counter-app', redirectUri: 'http://counter.fjord.test/return' },
      1,
    ],
    ['api_version=1 over the realm', { extra: { api_version: '1' } }, 1],
    [
      "api_version=2 over the client's 1",
      { client: 'counter-app', redirectUri: 'http://counter.fjord.test/return', extra: { api_version: '2' } },
      2,
    ],
    ['api_version=3 over the realm', { extra: { api_version: '3' } }, 3],
  ])('%s', async (_name, a, version) => {
    const { access, id } = await signIn(a);
    if (version === 1) {
      expect(access).not.toHaveProperty('api_ver');
      expect(id).not.toHaveProperty('api_ver');
      expect([access['amr'], id['amr']]).toEqual(['BID', 'BID']);
    } else {
      expect([access['api_ver'], id['api_ver']]).toEqual([version, version]);
      expect([access['amr'], id['amr']]).toEqual([['bid'], ['bid']]);
    }
  });

  it.each([
    ['a string', '2'],
    ['an integer', 2],
  ])('api_version inside a request object, as %s', async (_name, value) => {
    const request = new UnsecuredJWT({ client_id: 'counter-app', api_version: value }).encode();
    const { access } = await signIn({
      client: 'counter-app',
      redirectUri: 'http://counter.fjord.test/return',
      extra: { request },
    });
    expect(access['api_ver']).toBe(2);
  });

  it('client_credentials follows the client (the realm default here): api_ver 2', async () => {
    const answer = await clientCredentials(idp, 'ledger.read');
    expect(answer.status, answer.text).toBe(200);
    expect(decode(answer.json.access_token).claims['api_ver']).toBe(2);
  });
});

describe('grants with no authorize request follow the client', () => {
  it("password: the client's 1 over the realm's 2, and its refresh too", async () => {
    const auth = { authorization: basic('pw-cli', 'pw-secret') };
    const answer = await postForm<TokenResponse>(
      idp.endpoints.token,
      { grant_type: 'password', username: 'ingrid', password: 'ingrid-pass', scope: 'openid' },
      auth,
    );
    expect(answer.status, answer.text).toBe(200);
    expect(decode(answer.json.access_token).claims).not.toHaveProperty('api_ver');
    expect(decode(answer.json.id_token as string).claims['amr']).toBe('BID');
    const refreshed = await postForm<TokenResponse>(
      idp.endpoints.token,
      { grant_type: 'refresh_token', refresh_token: answer.json.refresh_token },
      auth,
    );
    expect(refreshed.status, refreshed.text).toBe(200);
    expect(decode(refreshed.json.access_token).claims).not.toHaveProperty('api_ver');
  });
});

describe('refusals', () => {
  it.each<[string, AuthorizeParams, string]>([
    ['0', { extra: { api_version: '0' } }, 'Invalid parameter: api_version "0" (1, 2, 3, 4)'],
    ['5', { extra: { api_version: '5' } }, 'Invalid parameter: api_version "5" (1, 2, 3, 4)'],
    ['two', { extra: { api_version: 'two' } }, 'Invalid parameter: api_version "two" (1, 2, 3, 4)'],
    ['2.0', { extra: { api_version: '2.0' } }, 'Invalid parameter: api_version "2.0" (1, 2, 3, 4)'],
    ['02', { extra: { api_version: '02' } }, 'Invalid parameter: api_version "02" (1, 2, 3, 4)'],
    ['-1', { extra: { api_version: '-1' } }, 'Invalid parameter: api_version "-1" (1, 2, 3, 4)'],
    ['1e0', { extra: { api_version: '1e0' } }, 'Invalid parameter: api_version "1e0" (1, 2, 3, 4)'],
    [
      '4 without PKCE (served, with its own rules)',
      { extra: { api_version: '4' } },
      'Missing parameter: code_challenge (api_version 4 requires PKCE with S256)',
    ],
    [
      'of a client configured for 4, without PKCE',
      { client: 'next-app', redirectUri: 'http://next.fjord.test/cb' },
      'Missing parameter: code_challenge (api_version 4 requires PKCE with S256)',
    ],
  ])('api_version %s: invalid_request at the redirect URI', async (_name, a, description) => {
    const params = await authorizeRedirect(idp, a);
    expect(Object.fromEntries(params)).toEqual({
      error: 'invalid_request',
      error_description: description,
      state: 'st-1',
      iss: idp.issuer,
    });
  });

  it('a request object with api_version 7: invalid_request at the redirect URI', async () => {
    const request = new UnsecuredJWT({ client_id: 'teller-web', api_version: 7 }).encode();
    const params = await authorizeRedirect(idp, { extra: { request } });
    expect(params.get('error')).toBe('invalid_request');
    expect(params.get('error_description')).toBe('Invalid parameter: api_version "7" (1, 2, 3, 4)');
  });
});

describe('versions 3 and 4 are served', () => {
  // PKCE S256, state and nonce: what version 4 requires, so one request serves both versions.
  const VERIFIER = 'v'.repeat(43);
  it.each(['3', '4'])(
    'api_version=%s: ES256 access and ID tokens with api_ver, token_type Bearer',
    async (param) => {
      const code = (
        await authorizeRedirect(idp, {
          nonce: 'n-34',
          codeChallenge: s256(VERIFIER),
          codeChallengeMethod: 'S256',
          extra: { api_version: param },
        })
      ).get('code') as string;
      const answer = await exchangeCode(idp, code, { extra: { code_verifier: VERIFIER } });
      expect(answer.status, answer.text).toBe(200);
      expect(answer.json.token_type).toBe('Bearer');
      const access = await verifyEs256(idp, answer.json.access_token);
      const id = await verifyEs256(idp, answer.json.id_token as string, 'teller-web');
      expect([access.claims['api_ver'], id.claims['api_ver']]).toEqual([Number(param), Number(param)]);
      expect(id.claims['nonce']).toBe('n-34');
    },
  );
});

describe('refresh and userinfo answer in the version of the sign-in', () => {
  it.each([
    ['1', 1],
    ['2', 2],
    ['3', 3],
  ])('api_version=%s', async (param, version) => {
    const { tokens } = await signIn({ extra: { api_version: param, acr_values: 'urn:idp:bis' } });
    const answer = await refresh(idp, tokens.refresh_token);
    expect(answer.status, answer.text).toBe(200);
    const access = (await verifyToken(idp, answer.json.access_token)).claims;
    const id = (await verifyToken(idp, answer.json.id_token as string, 'teller-web')).claims;
    for (const claims of [access, id]) {
      expect(claims['api_ver']).toBe(version === 1 ? undefined : version);
      expect(claims['acr']).toBe('urn:idp:bis;LOA=3');
      expect(claims['amr']).toEqual(version === 1 ? 'BIS' : ['bis']);
    }
    // Refreshed once more: the refresh token of a refresh carries it on.
    const again = await refresh(idp, answer.json.refresh_token);
    expect(decode(again.json.access_token).claims['api_ver']).toBe(version === 1 ? undefined : version);
    const info = await get(idp.endpoints.userinfo, { authorization: `Bearer ${again.json.access_token}` });
    expect(info.status, info.text).toBe(200);
    expect(info.json).toMatchObject({ sub: '7f3e2a10-5b6c-4d7e-8f90-a1b2c3d4e5f6' });
  });
});

describe('acr_values', () => {
  it.each<[string, string, string | undefined, string, string | undefined]>([
    ['bid', 'ingrid', 'urn:idp:bid', 'urn:idp:bid;LOA=4', 'BID'],
    ['bis', 'ingrid', 'urn:idp:bis', 'urn:idp:bis;LOA=3', 'BIS'],
    ['several: the first wins', 'ingrid', 'urn:idp:bis urn:idp:bid', 'urn:idp:bis;LOA=3', 'BIS'],
    ['several: the first the user may use', 'ola', 'urn:idp:bid urn:idp:bis', 'urn:idp:bis;LOA=3', 'BIS'],
    ['an unknown one is ignored', 'ingrid', 'urn:other:x urn:idp:bis', 'urn:idp:bis;LOA=3', 'BIS'],
    ['only unknown ones: the fixtures acr', 'ingrid', 'urn:other:x 4', 'urn:idp:bid;LOA=4', 'BID'],
    ['a method the user may not use: the fixtures acr', 'ola', 'urn:idp:bid', '2', 'MinID'],
    ['none: the fixtures acr', 'ola', undefined, '2', 'MinID'],
  ])('%s (%s, %s)', async (_name, user, acrValues, acr, amr) => {
    const extra: Record<string, string> = { api_version: '1' };
    if (acrValues !== undefined) extra['acr_values'] = acrValues;
    const { access, id } = await signIn({ user, extra });
    expect([access['acr'], id['acr']]).toEqual([acr, acr]);
    expect([access['amr'], id['amr']]).toEqual([amr, amr]);
  });

  it('under version 2 amr is the lower-case array', async () => {
    const { id } = await signIn({ extra: { acr_values: 'urn:idp:bis' } });
    expect(id).toMatchObject({ acr: 'urn:idp:bis;LOA=3', amr: ['bis'], api_ver: 2 });
  });

  it('the front channel (code id_token) follows too', async () => {
    const params = await authorizeRedirect(idp, {
      responseType: 'code id_token',
      nonce: 'n-2',
      extra: { acr_values: 'urn:idp:bis' },
    });
    const { claims } = await verifyToken(idp, params.get('id_token') as string, 'teller-web');
    expect(claims).toMatchObject({ acr: 'urn:idp:bis;LOA=3', amr: ['bis'], api_ver: 2 });
  });

  it('the login page shows the method each person signs in with', async () => {
    const response = await fetch(authorizeUrl(idp, { extra: { acr_values: 'urn:idp:bid urn:idp:bis' } }));
    const html = await response.text();
    expect(response.status).toBe(200);
    expect(html).toContain('Sign-in method asked for: urn:idp:bid, urn:idp:bis');
    const ola = html.slice(html.indexOf('value="ola"'));
    expect(ola.slice(0, ola.indexOf('</li>'))).toContain(
      '<span class="k">Method</span> <span class="v">BIS</span></span><span class="fact"><span class="k">acr</span> <span class="v">urn:idp:bis;LOA=3</span>',
    );
    const ingrid = html.slice(html.indexOf('value="ingrid"'));
    expect(ingrid.slice(0, ingrid.indexOf('</li>'))).toContain('<span class="v">urn:idp:bid;LOA=4</span>');
  });

  it('without acr_values the login page has no method line', async () => {
    const html = await (await fetch(authorizeUrl(idp))).text();
    expect(html).not.toContain('Sign-in method');
    expect(html).not.toContain('<span class="k">Method</span>');
  });
});

describe('the QA mint', () => {
  const mint = (body: unknown) => call('POST', `${idp.issuer}/mock/tokens`, body);

  it.each([
    [1, undefined, 'BID'],
    [2, 2, ['bid']],
    [3, 3, ['bid']],
    [4, 4, ['bid']],
  ])('apiVersion %s', async (apiVersion, apiVer, amr) => {
    const answer = await mint({ type: 'access', client: 'teller-web', user: 'ingrid', apiVersion });
    expect(answer.status, answer.text).toBe(200);
    const { claims } = await verifyToken(idp, (answer.json as { token: string }).token);
    expect(claims['api_ver']).toBe(apiVer);
    expect(claims['amr']).toEqual(amr);
  });

  it("without apiVersion: the client's (the realm's 2 here)", async () => {
    const answer = await mint({ type: 'id', client: 'teller-web', user: 'ingrid' });
    expect((answer.json as { claims: Record<string, unknown> }).claims['api_ver']).toBe(2);
  });

  it.each([3, 4])('apiVersion %s: ES256 with the EC key, api_ver in the claims', async (apiVersion) => {
    const answer = await mint({ type: 'access', client: 'teller-web', user: 'ingrid', apiVersion });
    expect(answer.status, answer.text).toBe(200);
    const { header, claims } = await verifyEs256(idp, (answer.json as { token: string }).token);
    expect(header.alg).toBe('ES256');
    expect(claims['api_ver']).toBe(apiVersion);
  });

  it.each<[unknown, string]>([
    [5, 'apiVersion: Invalid option: expected one of 1|2|3|4'],
    ['2', 'apiVersion: Invalid option: expected one of 1|2|3|4'],
  ])('apiVersion %j: 400 invalid_request', async (apiVersion, text) => {
    const answer = await mint({ type: 'access', client: 'teller-web', apiVersion });
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ error: 'invalid_request' });
    expect(String((answer.json as { error_description: string }).error_description)).toContain(text);
  });
});

describe('mock-idp token --api-version', () => {
  beforeAll(() => ensureBuilt());
  const token = (...args: string[]) =>
    runBin([
      'token',
      '--server',
      idp.issuer,
      '--client',
      'teller-web',
      '--user',
      'ingrid',
      '--json',
      ...args,
    ]);

  it.each([
    ['1', undefined, 'BID'],
    ['2', 2, ['bid']],
    ['3', 3, ['bid']],
    ['4', 4, ['bid']],
  ])('%s mints in that version', async (version, apiVer, amr) => {
    const { code, stdout, stderr } = await token('--api-version', version);
    expect(code, stderr).toBe(0);
    const { claims } = JSON.parse(stdout) as { claims: Record<string, unknown> };
    expect(claims['api_ver']).toBe(apiVer);
    expect(claims['amr']).toEqual(amr);
  });

  it('4 with --type proof: exits 1 with the server message (version 4 has no proof token)', async () => {
    const { code, stderr } = await token('--api-version', '4', '--type', 'proof');
    expect(code).toBe(1);
    expect(stderr).toContain('Invalid mint request: api_version 4 has no proof token');
  });

  it('3 mints ES256 with the EC key (signature valid)', async () => {
    const { code, stdout, stderr } = await token('--api-version', '3');
    expect(code, stderr).toBe(0);
    const { token: jwt } = JSON.parse(stdout) as { token: string };
    const { header, claims } = await verifyEs256(idp, jwt);
    expect(header.alg).toBe('ES256');
    expect(claims['api_ver']).toBe(3);
  });

  it('7: a usage error', async () => {
    const { code, stderr } = await token('--api-version', '7');
    expect(code).toBe(2);
    expect(stderr).toContain("option '--api-version <n>' argument '7' is invalid. one of 1, 2, 3, 4.");
  });
});

describe('a realm configured for version 3', () => {
  const v3 = useIdp(() => ({ fixtures: { ...versionedFjord(), apiVersion: 3 }, clock: Y2030, frozen: true }));

  it('authorize and the code exchange: tokens in version 3', async () => {
    const code = (await authorizeRedirect(v3, {})).get('code') as string;
    const answer = await exchangeCode(v3, code);
    expect(answer.status, answer.text).toBe(200);
    expect((await verifyToken(v3, answer.json.access_token)).claims['api_ver']).toBe(3);
  });

  it('client_credentials: tokens in version 3', async () => {
    const answer = await clientCredentials(v3, 'ledger.read');
    expect(answer.status, answer.text).toBe(200);
    expect((await verifyToken(v3, answer.json.access_token)).claims['api_ver']).toBe(3);
  });

  it('authorize and token: ES256 access and ID tokens, token_type Bearer, api_ver 3', async () => {
    const code = (await authorizeRedirect(v3, { nonce: 'n-3' })).get('code') as string;
    const answer = await exchangeCode(v3, code);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.token_type).toBe('Bearer');
    const access = await verifyEs256(v3, answer.json.access_token);
    const id = await verifyEs256(v3, answer.json.id_token as string, 'teller-web');
    expect([access.header.alg, id.header.alg]).toEqual(['ES256', 'ES256']);
    expect([access.claims['api_ver'], id.claims['api_ver']]).toEqual([3, 3]);
    expect(decode(answer.json.refresh_token).header.alg).toBe('HS256');
  });

  it('client_credentials: ES256 with api_ver 3, token_type Bearer', async () => {
    const answer = await clientCredentials(v3, 'ledger.read');
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.token_type).toBe('Bearer');
    expect((await verifyEs256(v3, answer.json.access_token)).claims['api_ver']).toBe(3);
  });

  it('api_version=2 in the request still signs in under version 2: RS256, the realm token_type', async () => {
    const code = (await authorizeRedirect(v3, { extra: { api_version: '2' } })).get('code') as string;
    const answer = await exchangeCode(v3, code);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.token_type).toBe('bearer');
    expect((await verifyToken(v3, answer.json.access_token)).claims['api_ver']).toBe(2);
  });
});

describe('fixtures', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mock-idp-versions-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('users.methods, apiVersion and clients.{id}.apiVersion: every bad value at FILE:LINE:COL', async () => {
    const path = join(dir, 'bad.yaml');
    await writeFile(
      path,
      `apiVersion: 5
clients:
  web:
    secret: s
    redirectUris: [http://localhost/cb]
    apiVersion: '2'
users:
  ada:
    methods: [bid, minid]
`,
    );
    const error = await loadFixturesFile(path)
      .then(buildRealm)
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    expect(error).toBeInstanceOf(FixturesError);
    expect((error as FixturesError).message.replaceAll(`${dir}/`, '').split('\n')).toEqual([
      'bad.yaml:1:13 "apiVersion": Invalid option: expected one of 1|2|3|4',
      'bad.yaml:6:17 "clients.web.apiVersion": Invalid option: expected one of 1|2|3|4',
      'bad.yaml:9:20 "users.ada.methods.1": Invalid option: expected one of "bid"|"bis"',
    ]);
  });

  it('reads them', async () => {
    const path = join(dir, 'good.yaml');
    await writeFile(
      path,
      `apiVersion: 2
clients:
  web: { secret: s, redirectUris: [http://localhost/cb], apiVersion: 1 }
users:
  ada: { methods: [bis] }
  bo: {}
`,
    );
    const realm = await buildRealm(await loadFixturesFile(path));
    expect(realm.apiVersion).toBe(2);
    expect(realm.clients.get('web')?.apiVersion).toBe(1);
    expect(realm.users.get('ada')?.methods).toEqual(['bis']);
    expect(realm.users.get('bo')?.methods).toBeUndefined();
  });
});

describe.skipIf(SKIP_REDIS)('on the Redis store', () => {
  const redis = useRedis();
  const shared = useIdp(() => ({ fixtures: versionedFjord(), store: redis.url }));

  it('the code and the refresh token carry version and method through Redis', async () => {
    const tokens = await loginTokens(shared, { extra: { api_version: '2', acr_values: 'urn:idp:bis' } });
    expect(decode(tokens.access_token).claims).toMatchObject({
      api_ver: 2,
      acr: 'urn:idp:bis;LOA=3',
      amr: ['bis'],
    });
    const answer = await refresh(shared, tokens.refresh_token);
    expect(answer.status, answer.text).toBe(200);
    expect(decode(answer.json.access_token).claims).toMatchObject({ api_ver: 2, amr: ['bis'] });
  });
});
