// Issue 10's design gaps: a key file error never echoes the file; `pkce: required` means S256; a code used
// twice revokes what its first exchange issued and ends that session.
import { generateKeyPairSync } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockIdp, type FixturesInput } from '../../src/index.js';
import { tempDir } from '../helpers/files.js';
import { ensureBuilt, runBin } from '../helpers/cli.js';
import { authorizeUrl, codeFor, exchangeCode, basicFor, type TokenResponse } from '../helpers/flows.js';
import { get, postForm } from '../helpers/http.js';
import { s256 } from '../helpers/jwt.js';
import { endpointsOf, startIdp, useIdp } from '../helpers/server.js';

const CANARY = 'CANARY-7f3a9';
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
// P-256 keys sign ES256; another curve is not a signing key here.
const ec = generateKeyPairSync('ec', { namedCurve: 'P-384' });

/** Files that are not a usable private RSA key, each with the canary inside. */
const NOT_KEYS: [string, string, RegExp][] = [
  ['plain text', `hello ${CANARY} world\n`, /neither PEM .* nor JSON/],
  ['JSON that is no JWK', `{"note": "${CANARY}"}`, /JSON, but not a private RSA JWK/],
  ['broken JSON', `{"kty": "RSA", "d": "${CANARY}"`, /neither PEM .* nor JSON/],
  ['a public JWK', JSON.stringify({ ...rsa.publicKey.export({ format: 'jwk' }), kid: CANARY }), /public/],
  [
    'a PEM block of garbage',
    `-----BEGIN PRIVATE KEY-----\n${Buffer.from(CANARY.repeat(8)).toString('base64')}\n-----END PRIVATE KEY-----\n`,
    /a PEM "PRIVATE KEY" block that does not decode/,
  ],
  [
    'a public key PEM',
    `${String(rsa.publicKey.export({ format: 'pem', type: 'spki' }))}# ${CANARY}\n`,
    /a PEM "PUBLIC KEY" block, not a private key/,
  ],
  [
    'an EC key on P-384',
    `${String(ec.privateKey.export({ format: 'pem', type: 'pkcs8' }))}# ${CANARY}\n`,
    /an EC key on P-256 \(prime256v1\) is needed for ES256, got the curve secp384r1/,
  ],
];

describe('a key that is not a key says what it is not, and never echoes the file', () => {
  const tmp = tempDir();
  const dir = tmp.dir;
  beforeAll(() => {
    ensureBuilt();
  });
  afterAll(() => tmp.remove());

  it.each(NOT_KEYS)('%s: serve --key, fixtures keys[].file and keys[].pem', async (name, text, message) => {
    const file = join(dir, `${name.replace(/\W+/g, '-')}.key`);
    await writeFile(file, text);
    const fixtures = join(dir, `${name.replace(/\W+/g, '-')}.yaml`);
    await writeFile(fixtures, `keys:\n  - file: ${file}\nclients:\n  x: { secret: s }\n`);
    const inline = join(dir, `${name.replace(/\W+/g, '-')}-inline.yaml`);
    await writeFile(inline, `keys:\n  - pem: ${JSON.stringify(text)}\nclients:\n  x: { secret: s }\n`);
    const results = await Promise.all([
      runBin(['serve', '--port', '0', '--key', file]),
      runBin(['check', fixtures]),
      runBin(['check', inline]),
    ]);
    for (const result of results) {
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(message);
      expect(result.stderr).not.toContain(CANARY);
      expect(result.stderr).not.toContain(CANARY.slice(0, 6));
    }
  });
});

describe('pkce: required accepts only S256 (as Keycloak\'s "S256" setting)', () => {
  const idp = useIdp();
  const VERIFIER = 'v'.repeat(43);
  const kiosk = { client: 'kiosk-spa', redirectUri: 'http://kiosk.fjord.test/done' };

  it.each([
    ['plain', { codeChallenge: VERIFIER, codeChallengeMethod: 'plain' }],
    ['no method (plain by RFC 7636)', { codeChallenge: VERIFIER }],
    ['none at all', {}],
  ])('%s is refused with invalid_request at the redirect URI', async (_name, pkce) => {
    const response = await get(authorizeUrl(idp, { ...kiosk, user: 'ingrid', ...pkce }));
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get('location') ?? '');
    expect(location.searchParams.get('error')).toBe('invalid_request');
    expect(location.searchParams.get('code')).toBeNull();
  });

  it('S256 is accepted', async () => {
    const code = await codeFor(idp, { ...kiosk, codeChallenge: s256(VERIFIER), codeChallengeMethod: 'S256' });
    const answer = await postForm(idp.endpoints.token, {
      grant_type: 'authorization_code',
      code,
      client_id: 'kiosk-spa',
      redirect_uri: kiosk.redirectUri,
      code_verifier: VERIFIER,
    });
    expect(answer.status, answer.text).toBe(200);
  });

  it('a client with pkce: optional may still use plain', async () => {
    const code = await codeFor(idp, { codeChallenge: VERIFIER, codeChallengeMethod: 'plain' });
    expect((await exchangeCode(idp, code, { extra: { code_verifier: VERIFIER } })).status).toBe(200);
  });
});

describe('a code used twice revokes the tokens of its first exchange and ends that session (RFC 6749 §4.1.2)', () => {
  it('access, refresh and ID token of the first exchange stop working; other sessions are untouched', async () => {
    const idp = await startIdp();
    try {
      const code = await codeFor(idp, { scope: 'openid profile' });
      const first = await exchangeCode(idp, code);
      expect(first.status).toBe(200);
      const tokens = first.json as unknown as TokenResponse;
      const other = (await exchangeCode(idp, await codeFor(idp))).json as unknown as TokenResponse;
      const introspect = (token: string) =>
        postForm(idp.endpoints.introspect, { token }, { authorization: basicFor('ledger-api') });
      expect((await introspect(tokens.access_token)).json['active']).toBe(true);

      const second = await exchangeCode<Record<string, unknown>>(idp, code);
      expect(second.status).toBe(400);
      expect(second.json['error']).toBe('invalid_grant');
      expect(String(second.json['error_description'])).toMatch(/already used.*revoked/);

      for (const token of [tokens.access_token, tokens.refresh_token, tokens.id_token ?? '']) {
        expect((await introspect(token)).json).toEqual({ active: false });
      }
      const refreshed = await postForm(
        idp.endpoints.token,
        { grant_type: 'refresh_token', refresh_token: tokens.refresh_token },
        { authorization: basicFor('teller-web') },
      );
      expect(refreshed.status).toBe(400);
      const userinfo = await get(idp.endpoints.userinfo, { authorization: `Bearer ${tokens.access_token}` });
      expect(userinfo.status).toBe(401);
      const sessions = (await fetch(`${idp.issuer}/mock/sessions`).then((r) => r.json())) as {
        sessions: { id: string }[];
      };
      expect(sessions.sessions.map((s) => s.id)).not.toContain(tokens.sid);
      expect((await introspect(other.access_token)).json['active']).toBe(true);
    } finally {
      await idp.close();
    }
  });

  it('a first exchange that failed consumed the code but revokes nothing', async () => {
    const fixtures: FixturesInput = {
      clients: { web: { secret: 'w', redirectUris: ['http://a.example/cb'] }, rs: { secret: 'r' } },
      users: { u: {} },
    };
    const idp = await startMockIdp({ fixtures });
    try {
      const url = new URL(`${endpointsOf(idp.issuer).auth}`);
      url.search = new URLSearchParams({
        response_type: 'code',
        client_id: 'web',
        redirect_uri: 'http://a.example/cb',
        scope: 'openid',
        login_hint: 'u',
      }).toString();
      const location = (await fetch(url, { redirect: 'manual' })).headers.get('location') ?? '';
      const code = new URL(location).searchParams.get('code') ?? '';
      const exchange = (redirect: string) =>
        postForm(
          `${endpointsOf(idp.issuer).token}`,
          { grant_type: 'authorization_code', code, redirect_uri: redirect },
          { authorization: `Basic ${Buffer.from('web:w').toString('base64')}` },
        );
      expect((await exchange('http://a.example/other')).status).toBe(400);
      const again = await exchange('http://a.example/cb');
      expect(again.status).toBe(400);
      expect(String(again.json['error_description'])).not.toMatch(/revoked/);
    } finally {
      await idp.close();
    }
  });
});
