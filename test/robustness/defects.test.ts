// Issue 10's defect table, rows a server in-process shows: each row a class of input that crashed, stalled or
// fooled mock-idp, tested over the class (it.each), not one input.
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { loadFixtures, type FixturesInput } from '../../src/index.js';
import { basic, call, postForm } from '../helpers/http.js';
import { decode } from '../helpers/jwt.js';
import { startIdp, Y2030, type TestIdp, useIdp } from '../helpers/server.js';

const MAX_EPOCH = 253_402_300_799;
const PROTOTYPE_NAMES = ['constructor', 'toString', 'valueOf', 'hasOwnProperty', '__defineGetter__'];

const running: TestIdp[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((idp) => idp.close()));
});
async function start(fixtures: FixturesInput, frozen = true): Promise<TestIdp> {
  const idp = await startIdp({ fixtures, clock: Y2030, frozen });
  running.push(idp);
  return idp;
}

const BASE: FixturesInput = {
  clients: {
    batch: { secret: 'batch-secret', grants: ['client_credentials'] },
    rs: { secret: 'rs-secret' },
  },
};
const clientCredentials = (idp: TestIdp, id = 'batch', secret = 'batch-secret', form = {}) =>
  postForm(
    idp.endpoints.token,
    { grant_type: 'client_credentials', ...form },
    { authorization: basic(id, secret) },
  );

describe('1: clock values are range-checked in one place; the server is never left broken', () => {
  const idp = useIdp({ fixtures: BASE, clock: Y2030, frozen: true });

  it.each([
    ['POST', { seconds: 1e300 }],
    ['POST', { seconds: -1e300 }],
    ['POST', { seconds: MAX_EPOCH }],
    ['POST', { seconds: -Y2030 - 1 }],
    ['PUT', { now: 9e15 }],
    ['PUT', { now: -1e15 }],
    ['PUT', { now: -1 }],
    ['PUT', { now: MAX_EPOCH + 1 }],
    ['PUT', { now: '+275760-09-13T00:00:00Z' }],
    ['PUT', { now: '10000-01-01T00:00:00Z' }],
  ])('%s /mock/clock %j is a 400 and changes nothing', async (method, body) => {
    const answer = await call(method, `${idp.issuer}/mock/clock`, body);
    expect(answer.status).toBe(400);
    expect(answer.json['error']).toBe('invalid_request');
    expect(answer.json['error_description']).toMatch(/range|ISO-8601/);
    const now = await call('GET', `${idp.issuer}/mock/clock`);
    expect(now.json).toEqual({ now: '2030-01-01T00:00:00.000Z', epoch: Y2030, frozen: true });
    const token = await clientCredentials(idp);
    expect(token.status).toBe(200);
    expect(decode(String(token.json['access_token'])).claims.iat).toBe(Y2030);
  });

  it.each([
    [{ issuedAt: 1e300 }],
    [{ notBefore: -1e15 }],
    [{ expiresIn: 9_000_000_000_000 }],
    [{ issuedAt: MAX_EPOCH, expiresIn: 1 }],
  ])('minting with %j is a 400', async (times) => {
    const answer = await call('POST', `${idp.issuer}/mock/tokens`, {
      type: 'access',
      client: 'batch',
      ...times,
    });
    expect(answer.status).toBe(400);
    expect(answer.json['error']).toBe('invalid_request');
  });

  it('the edges of the range are accepted', async () => {
    expect((await call('PUT', `${idp.issuer}/mock/clock`, { now: MAX_EPOCH })).json['epoch']).toBe(MAX_EPOCH);
    expect((await call('PUT', `${idp.issuer}/mock/clock`, { now: 0 })).json['epoch']).toBe(0);
    await call('PUT', `${idp.issuer}/mock/clock`, { now: Y2030 });
  });

  it.each([[1e300], [-1], ['not a date'], ['10000-01-01T00:00:00Z'], [9e15]])(
    'fixtures clock.start %j is refused by the schema, as check and serve both see it',
    async (start) => {
      await expect(loadFixtures({ ...BASE, clock: { start } } as FixturesInput)).rejects.toThrow(
        /clock\.start.*(range|ISO-8601)/,
      );
    },
  );
});

describe('2: ids and claim names that are Object.prototype members are plain data', () => {
  it.each(PROTOTYPE_NAMES)(
    '"%s" as user claim, service-account claim, client id and scope resource',
    async (name) => {
      const idp = await start({
        scopes: { api: { resource: name, roles: ['read'] } },
        clients: {
          web: { secret: 'web-secret', redirectUris: ['http://localhost/cb'] },
          [name]: {
            secret: 'weird-secret',
            grants: ['client_credentials'],
            scopes: ['api'],
            serviceAccount: { claims: { [name]: 'sa-value' }, clientRoles: { [name]: ['admin'] } },
          },
        },
        users: { alice: { claims: { [name]: 'user-value' }, clientRoles: { [name]: ['viewer'] } } },
      });
      const cc = await clientCredentials(idp, name, 'weird-secret', { scope: 'api' });
      expect(cc.status).toBe(200);
      const { claims } = decode(String(cc.json['access_token']));
      expect(claims[name]).toBe('sa-value');
      expect(claims['azp']).toBe(name);
      expect(claims['aud']).toBe(name);
      expect(claims['resource_access']).toEqual({ [name]: { roles: ['admin', 'read'] } });

      const minted = await call('POST', `${idp.issuer}/mock/tokens`, {
        type: 'id',
        client: 'web',
        user: 'alice',
      });
      expect(minted.status).toBe(200);
      expect((minted.json['claims'] as Record<string, unknown>)[name]).toBe('user-value');
      const auth = new URL(`${idp.endpoints.auth}`);
      auth.search = new URLSearchParams({
        response_type: 'code',
        client_id: 'web',
        redirect_uri: 'http://localhost/cb',
        scope: 'openid',
        login_hint: 'alice',
      }).toString();
      const redirect = await fetch(auth, { redirect: 'manual' });
      const code = new URL(redirect.headers.get('location') ?? '').searchParams.get('code') ?? '';
      const exchanged = await postForm(
        idp.endpoints.token,
        { grant_type: 'authorization_code', code, redirect_uri: 'http://localhost/cb' },
        { authorization: basic('web', 'web-secret') },
      );
      expect(exchanged.status).toBe(200);
      expect(decode(String(exchanged.json['id_token'])).claims[name]).toBe('user-value');
      expect(decode(String(exchanged.json['access_token'])).claims['resource_access']).toEqual({
        [name]: { roles: ['viewer'] },
      });
    },
  );
});

describe('3: YAML aliases: a bomb is a FixturesError at file:line:col, real reuse is fine', () => {
  const idp = useIdp({ fixtures: BASE });
  const put = (text: string) =>
    fetch(`${idp.issuer}/mock/fixtures`, { method: 'PUT', body: text }).then(async (r) => ({
      status: r.status,
      json: (await r.json()) as Record<string, unknown>,
    }));

  const laughs = (levels: number, width: number): string => {
    let text = `a0: &a0 [lol]\n`;
    for (let i = 1; i <= levels; i++)
      text += `a${i}: &a${i} [${Array.from({ length: width }, () => `*a${i - 1}`).join(', ')}]\n`;
    return text;
  };
  it.each([
    [9, 9],
    [4, 40],
    [2, 200],
  ])('an alias bomb of %i levels × %i is a 400 naming body:line:col', async (levels, width) => {
    const answer = await put(`clients:\n  x: { secret: s }\n${laughs(levels, width)}`);
    expect(answer.status).toBe(400);
    expect(String(answer.json['error_description'])).toMatch(/body:4:\d+ too many alias expansions/);
  });

  // Merge keys (`<<: *a`) build the merged mapping again at each one: aliases of merges multiply as aliases
  // of lists do, and one wide mapping merged many times is bounded too.
  const mergeLaughs = (levels: number, width: number): string => {
    let text = `a0: &a0 { k: lol }\n`;
    for (let i = 1; i <= levels; i++)
      text += `a${i}: &a${i} { <<: [${Array.from({ length: width }, () => `*a${i - 1}`).join(', ')}], k${i}: ${i} }\n`;
    return text;
  };
  const wideMerges = (keys: number, merges: number): string => {
    let text = `users:\n  base: { claims: &a { ${Array.from({ length: keys }, (_, i) => `k${i}: ${i}`).join(', ')} } }\n`;
    for (let i = 0; i < merges; i++) text += `  u${i}: { claims: { <<: *a } }\n`;
    return text;
  };
  it.each([
    ['nested merges, 9 levels × 9', mergeLaughs(9, 9), /body:\d+:\d+ merges copy too much/],
    ['nested merges, 30 levels × 2', mergeLaughs(30, 2), /body:\d+:\d+ merges copy too much/],
    ['3,000 keys merged 3,000 times', wideMerges(3000, 3000), /body:\d+:\d+ merges copy too much/],
  ])('a merge bomb (%s) is a 400 naming body:line:col, at once', async (_name, bomb, message) => {
    const answer = await put(`clients:\n  x: { secret: s }\n${bomb}`);
    expect(answer.status).toBe(400);
    expect(String(answer.json['error_description'])).toMatch(message);
  });

  it('a long list aliased into many users is a 400 at the alias where the copies pass the limit', async () => {
    const roles = Array.from({ length: 1000 }, (_, i) => `r${i}`).join(', ');
    let text = `clients:\n  x: { secret: s }\nusers:\n  u0: { realmRoles: &roles [${roles}] }\n`;
    for (let i = 1; i <= 3000; i++) text += `  u${i}: { realmRoles: *roles }\n`;
    const answer = await put(text);
    expect(answer.status).toBe(400);
    // 1,001 values each: the 1,999th alias passes 2,000,000; its user is on line 4 + 1,999.
    expect(String(answer.json['error_description'])).toMatch(
      /^Fixtures not replaced: body:2003:\d+ aliases repeat too much \(over 2000000 values\): each \*roles stands for/,
    );
  });

  it('a file that merges one mapping into 500 users loads', async () => {
    let text =
      'clients:\n  x: { secret: s }\nusers:\n  u0: &u { realmRoles: [user, admin], claims: { org: fjord } }\n';
    for (let i = 1; i <= 500; i++) text += `  u${i}: { <<: *u, claims: { name: u${i} } }\n`;
    const answer = await put(text);
    expect(answer.status).toBe(200);
    expect(answer.json['users']).toHaveLength(501);
  });

  it.each([
    ['a: &a [*a]\nclients:\n  x: { secret: s }\n', 'body:1:8'],
    ['clients: &c\n  x: { secret: s }\n  y: *c\n', 'body:3:6'],
    ['clients:\n  x: { secret: s }\nusers:\n  u: &u { claims: { self: *u } }\n', 'body:4:27'],
  ])('an alias inside its own anchor is a 400 at its place: %j', async (text, where) => {
    const answer = await put(text);
    expect(answer.status).toBe(400);
    expect(String(answer.json['error_description'])).toContain(`${where} an alias inside its own anchor`);
  });

  it('a file that reuses one anchor 500 times loads', async () => {
    let text = 'clients:\n  x: { secret: s }\nusers:\n  u0: { realmRoles: &roles [user, admin] }\n';
    for (let i = 1; i <= 500; i++) text += `  u${i}: { realmRoles: *roles }\n`;
    const answer = await put(text);
    expect(answer.status).toBe(200);
    expect(answer.json['users']).toHaveLength(501);
  });

  it.each([
    ['a flow sequence', `clients: ${'['.repeat(20_000)}`],
    [
      'a block mapping',
      `clients:\n${Array.from({ length: 3000 }, (_, i) => `${' '.repeat(i + 1)}k:`).join('\n')}\n`,
    ],
  ])('%s nested thousands deep is a 400, not a crash', async (_what, text) => {
    const answer = await put(text);
    expect(answer.status).toBe(400);
    expect(answer.json['error']).toBe('invalid_request');
  });
});

describe('4: a client assertion jti stays used until both the mock and the real clock passed its exp', () => {
  it('replay after the mock clock moved two days and the store swept', async () => {
    const { publicKey, privateKey } = await generateKeyPair('RS256');
    const jwk = { ...(await exportJWK(publicKey)), kty: 'RSA', kid: 's1', alg: 'RS256', use: 'sig' };
    const idp = await start({
      clients: {
        signer: { authMethods: ['private_key_jwt'], jwks: { keys: [jwk] }, grants: ['client_credentials'] },
        batch: { secret: 'batch-secret', grants: ['client_credentials'] },
      },
    });
    const assertion = await signAssertion(privateKey, idp.endpoints.token);
    const form = {
      grant_type: 'client_credentials',
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: assertion,
    };
    expect((await postForm(idp.endpoints.token, form)).status).toBe(200);
    expect((await postForm(idp.endpoints.token, form)).status).toBe(401);
    expect((await call('POST', `${idp.issuer}/mock/clock`, { seconds: 172_800 })).status).toBe(200);
    // The store sweeps every 512 writes: each client_credentials grant opens a session.
    for (let i = 0; i < 8; i++) await Promise.all(Array.from({ length: 66 }, () => clientCredentials(idp)));
    const replay = await postForm(idp.endpoints.token, form);
    expect(replay.status).toBe(401);
    expect(replay.json['error_description']).toMatch(/jti was already used/);
  });
});

async function signAssertion(key: CryptoKey, audience: string): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ jti: randomUUID() })
    .setProtectedHeader({ alg: 'RS256', kid: 's1' })
    .setIssuer('signer')
    .setSubject('signer')
    .setAudience(audience)
    .setIssuedAt(now)
    .setExpirationTime(now + 60)
    .sign(key);
}

describe('5: a public client cannot use client_credentials', () => {
  it.each([[['none']], [['none', 'client_secret_basic']], [['client_secret_post', 'none']]])(
    'authMethods %j with grants [client_credentials] is refused by the schema',
    async (authMethods) => {
      await expect(
        loadFixtures({
          clients: { pub: { secret: 's', authMethods, grants: ['client_credentials'] } },
        } as FixturesInput),
      ).rejects.toThrow(/public client.*clients\.pub\.grants/);
    },
  );
});

describe('8: __proto__ is refused wherever a name is a key, never silently dropped', () => {
  it.each([
    ['a client id', '{"clients": {"__proto__": {"secret": "s"}, "ok": {"secret": "s"}}}', /clients/],
    ['a user', '{"clients": {"ok": {"secret": "s"}}, "users": {"__proto__": {}}}', /users/],
    ['a scope', '{"clients": {"ok": {"secret": "s"}}, "scopes": {"__proto__": {}}}', /scopes/],
    [
      'a claim',
      '{"clients": {"ok": {"secret": "s"}}, "users": {"u": {"claims": {"__proto__": 1}}}}',
      /users\.u\.claims/,
    ],
    [
      'a client role target',
      '{"clients": {"ok": {"secret": "s"}}, "users": {"u": {"clientRoles": {"__proto__": []}}}}',
      /users\.u\.clientRoles/,
    ],
  ])('%s', async (_what, json, path) => {
    await expect(loadFixtures(JSON.parse(json) as FixturesInput)).rejects.toThrow(path);
    await expect(loadFixtures(JSON.parse(json) as FixturesInput)).rejects.toThrow(/__proto__/);
  });

  it.each([['claims'], ['header']])('a minted token with %s.__proto__ is a 400', async (field) => {
    const idp = await start(BASE);
    const response = await fetch(`${idp.issuer}/mock/tokens`, {
      method: 'POST',
      body: `{"type": "access", "client": "batch", "${field}": {"__proto__": {"x": 1}}}`,
    });
    expect(response.status).toBe(400);
    expect(await response.text()).toMatch(/__proto__/);
  });
});

describe('9: a token typ that is an Object.prototype member is not a kind of token', () => {
  it.each([...PROTOTYPE_NAMES, 'Bearer '])('typ "%s" introspects inactive', async (typ) => {
    const idp = await start(BASE);
    const minted = await call('POST', `${idp.issuer}/mock/tokens`, {
      type: 'access',
      client: 'batch',
      claims: { typ },
    });
    expect(minted.status).toBe(200);
    const answer = await postForm(
      `${idp.endpoints.introspect}`,
      { token: String(minted.json['token']) },
      { authorization: basic('rs', 'rs-secret') },
    );
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ active: false });
  });
});

describe('10: deeply nested values are a 400 for every signature', () => {
  const nested = (depth: number): unknown => {
    let value: unknown = 'leaf';
    for (let i = 0; i < depth; i++) value = { a: value };
    return value;
  };
  it.each([
    ['claims', 'none'],
    ['claims', 'valid'],
    ['claims', 'invalid'],
    ['claims', 'unknown-key'],
    ['header', 'none'],
    ['header', 'valid'],
  ])('%s 20,000 deep with signature %s', async (field, signature) => {
    const idp = await start(BASE);
    // Written out: JSON.stringify itself gives up at this depth.
    const deep = `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`;
    const response = await fetch(`${idp.issuer}/mock/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `{"type": "access", "client": "batch", "signature": "${signature}", "${field}": {"deep": ${deep}}}`,
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as Record<string, unknown>)['error']).toBe('invalid_request');
  });

  it('fixtures claims nested past the limit are refused by the schema', async () => {
    await expect(
      loadFixtures({ ...BASE, users: { u: { claims: { deep: nested(100) } } } } as FixturesInput),
    ).rejects.toThrow(/users\.u\.claims\.deep.*nest/);
  });
});

describe('found by the fuzz: a forwarded host or port that is no URL host is ignored, not a 500', () => {
  it.each([
    [{ 'x-forwarded-port': '99999' }],
    [{ 'x-forwarded-host': 'h:65536' }],
    [{ 'x-forwarded-host': '[:::]' }],
    [{ 'x-forwarded-host': 'bad host', 'x-forwarded-port': '70000' }],
  ])('%j', async (headers) => {
    const idp = await start(BASE);
    for (const path of ['/protocol/openid-connect/logout', '/.well-known/openid-configuration']) {
      const response = await fetch(`${idp.issuer}${path}`, { headers });
      expect(response.status, path).toBeLessThan(500);
    }
    const discovery = (await (await fetch(`${idp.endpoints.discovery}`, { headers })).json()) as {
      issuer: string;
    };
    expect(URL.canParse(discovery.issuer)).toBe(true);
  });
});
