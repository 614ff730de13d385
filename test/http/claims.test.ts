// Claim placement per token type (interface document "Appears in") and the clock in tokens.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  clientCredentials,
  codeFor,
  exchangeCode,
  introspect,
  loginTokens,
  refresh,
  type TokenResponse,
} from '../helpers/flows.js';
import { tempDir } from '../helpers/files.js';
import { decode, halfHash, verifyToken } from '../helpers/jwt.js';
import { FJORD_FIXTURES, startIdp, Y2030, useIdp } from '../helpers/server.js';

const INGRID_SUB = '7f3e2a10-5b6c-4d7e-8f90-a1b2c3d4e5f6';

// Frozen, so login (auth_time) and exchange (iat) fall in the same second however slow the machine.
const idp = useIdp({ clock: '2030-01-01T00:00:00Z', frozen: true });

describe('claim placement per token type', () => {
  let t: TokenResponse;
  let issuer: string;
  beforeAll(async () => {
    t = await loginTokens(idp, {
      scope: 'openid profile email nnin_altsub ledger.read statements',
      nonce: 'nonce-42',
    });
    issuer = idp.issuer;
  });

  it('access token: typ Bearer, aud the resources of the granted scopes, roles, user claims', async () => {
    const { header, claims } = await verifyToken(idp, t.access_token);
    expect(header).toMatchObject({ alg: 'RS256', typ: 'JWT' });
    expect(header.kid).toBe(idp.provider.keys.active.kid);
    expect(claims).toMatchObject({
      iss: issuer,
      aud: ['ledger-api', 'statement-rs'],
      sub: INGRID_SUB,
      typ: 'Bearer',
      azp: 'teller-web',
      nonce: 'nonce-42',
      session_state: t.session_state,
      sid: t.sid,
      acr: 'urn:idp:bid;LOA=4',
      amr: 'BID',
      scope: 'openid profile email nnin_altsub ledger.read statements',
      realm_access: { roles: ['customer', 'teller'] },
      resource_access: {
        'ledger-api': { roles: ['viewer', 'auditor'] },
        'statement-rs': { roles: ['reader'] },
      },
      name: 'Ingrid Fjeld',
      given_name: 'Ingrid',
      family_name: 'Fjeld',
      preferred_username: 'ingrid',
      birthdate: '1979-03-17',
      email: 'ingrid@fjord.test',
      idp_altsub: '9578-6000-4-246810',
      originator:
        'CN=IdP - Fjord Bank - Bank CA 2,OU=555555555,O=Fjord Bank ASA,C=NO;OriginatorId=7001;OriginatorName=FJORD',
      branch_code: 'NO-0150',
    });
    expect(typeof claims.jti).toBe('string');
    expect(claims.iat).toBe(Y2030);
    expect(claims.exp).toBe(Y2030 + 600);
    expect(claims.auth_time).toBe(Y2030);
    for (const idOnly of ['nnin_altsub', 'additionalCertInfo', 'updated_at', 'tid', 'at_hash', 'c_hash'])
      expect(claims, idOnly).not.toHaveProperty(idOnly);
  });

  it('ID token: typ ID, aud the client, nonce, at_hash, ID-only claims, no roles', async () => {
    const { header, claims } = await verifyToken(idp, t.id_token as string, 'teller-web');
    expect(header.alg).toBe('RS256');
    expect(claims).toMatchObject({
      iss: issuer,
      aud: 'teller-web',
      sub: INGRID_SUB,
      typ: 'ID',
      azp: 'teller-web',
      nonce: 'nonce-42',
      session_state: t.session_state,
      sid: t.sid,
      at_hash: halfHash(t.access_token),
      acr: 'urn:idp:bid;LOA=4',
      amr: 'BID',
      name: 'Ingrid Fjeld',
      preferred_username: 'ingrid',
      birthdate: '1979-03-17',
      email: 'ingrid@fjord.test',
      idp_altsub: '9578-6000-4-246810',
      nnin_altsub: '17037912345',
      tid: 'fjord-tenant',
      updated_at: 1712345678901,
      branch_code: 'NO-0150',
      additionalCertInfo: {
        certValidFrom: 1650000000000,
        certValidTo: 1750000000000,
        serialNumber: '889900',
        keyAlgorithm: 'RSA',
        keySize: '2048',
        policyOid: '2.16.578.1.16.1.12.1.1',
        monetaryLimitAmount: '0',
        monetaryLimitCurrency: 'NOK',
        certQualified: true,
        versionNumber: '3',
        subjectName: 'CN=Fjeld\\, Ingrid,O=Fjord Bank ASA,C=NO',
      },
    });
    expect(claims.iat).toBe(Y2030);
    expect(claims.exp).toBe(Y2030 + 600);
    expect(claims.auth_time).toBe(Y2030);
    for (const accessOnly of ['realm_access', 'resource_access', 'scope', 'allowed-origins'])
      expect(claims, accessOnly).not.toHaveProperty(accessOnly);
  });

  it('refresh token: HS256, typ Refresh, aud the issuer, roles and scope, no user claims', () => {
    const { header, claims } = decode(t.refresh_token);
    expect(header.alg).toBe('HS256');
    expect(claims).toMatchObject({
      iss: issuer,
      aud: issuer,
      sub: INGRID_SUB,
      typ: 'Refresh',
      azp: 'teller-web',
      nonce: 'nonce-42',
      session_state: t.session_state,
      sid: t.sid,
      scope: 'openid profile email nnin_altsub ledger.read statements',
      realm_access: { roles: ['customer', 'teller'] },
      resource_access: {
        'ledger-api': { roles: ['viewer', 'auditor'] },
        'statement-rs': { roles: ['reader'] },
      },
    });
    expect(claims.iat).toBe(Y2030);
    expect(claims.exp).toBe(Y2030 + 3600);
    for (const userClaim of ['name', 'email', 'idp_altsub', 'nnin_altsub', 'acr', 'auth_time'])
      expect(claims, userClaim).not.toHaveProperty(userClaim);
  });

  it('gives every token its own jti', () => {
    const jtis = [t.access_token, t.id_token as string, t.refresh_token].map((x) => decode(x).claims.jti);
    expect(new Set(jtis).size).toBe(3);
  });

  it.each([
    {
      who: 'teller-web (eligible) with the scope',
      client: 'teller-web',
      scope: 'openid nnin_altsub',
      expected: '17037912345',
    },
    {
      who: 'teller-web (eligible) without the scope',
      client: 'teller-web',
      scope: 'openid',
      expected: undefined,
    },
    {
      who: 'counter-app (not eligible) with the scope',
      client: 'counter-app',
      scope: 'openid nnin_altsub',
      expected: undefined,
    },
  ] as const)(
    'nnin_altsub for $who: ID token $expected, access token never',
    async ({ client, scope, expected }) => {
      const redirectUri =
        client === 'teller-web' ? 'http://app.fjord.test/cb' : 'http://counter.fjord.test/return';
      const code = await codeFor(idp, { client, scope, redirectUri });
      const answer = await exchangeCode(idp, code, { client, redirectUri });
      expect(answer.status, answer.text).toBe(200);
      expect(decode(answer.json.id_token as string).claims.nnin_altsub).toBe(expected);
      expect(decode(answer.json.access_token).claims).not.toHaveProperty('nnin_altsub');
    },
  );

  it('omits profile and email claims when those scopes are not granted', async () => {
    const plain = await loginTokens(idp, { scope: 'openid' });
    for (const token of [plain.access_token, plain.id_token as string]) {
      const { claims } = decode(token);
      for (const gated of ['name', 'given_name', 'family_name', 'birthdate', 'updated_at', 'email'])
        expect(claims, gated).not.toHaveProperty(gated);
      expect(claims.preferred_username).toBe('ingrid');
      expect(claims.idp_altsub).toBe('9578-6000-4-246810');
    }
    expect(decode(plain.access_token).claims).not.toHaveProperty('aud');
  });

  it('gives a user without fixture sub a stable derived sub and default claims', async () => {
    const tokens = await loginTokens(idp, { user: 'ola', scope: 'openid profile' });
    const { claims } = decode(tokens.id_token as string);
    expect(claims.sub).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(claims).toMatchObject({ acr: '2', amr: 'MinID', name: 'Ola Strand', preferred_username: 'ola' });
    const again = await loginTokens(idp, { user: 'ola' });
    expect(decode(again.access_token).claims.sub).toBe(claims.sub);
  });

  it('marks an offline_access refresh token typ Offline', async () => {
    const tokens = await loginTokens(idp, { scope: 'openid offline_access' });
    expect(decode(tokens.refresh_token).claims.typ).toBe('Offline');
    expect((await refresh(idp, tokens.refresh_token)).status).toBe(200);
  });
});

describe('the clock: tokens carry the fixed time', () => {
  const fixed = useIdp({ clock: '2030-01-01T00:00:00Z', frozen: true });

  it('stamps iat, exp and auth_time from the frozen clock', async () => {
    const t = await loginTokens(fixed, { scope: 'openid idp_proof' });
    for (const [token, lifespan] of [
      [t.access_token, 600],
      [t.id_token as string, 600],
      [t.idp_proof as string, 600],
      [t.refresh_token, 3600],
    ] as const) {
      const { claims } = decode(token);
      expect(claims.iat).toBe(Y2030);
      expect(claims.exp).toBe(Y2030 + lifespan);
      if (claims.typ !== 'Refresh') expect(claims.auth_time).toBe(Y2030);
    }
    await verifyToken(fixed, t.access_token);
  });

  it('moves only when advanced; auth_time stays at login across a refresh', async () => {
    const first = await clientCredentials(fixed, 'ledger.read');
    expect(decode(first.json.access_token).claims.iat).toBe(Y2030);
    const t = await loginTokens(fixed);
    fixed.provider.clock.advance(125);
    const next = await refresh(fixed, t.refresh_token);
    const { claims } = decode(next.json.access_token);
    expect(claims.iat).toBe(Y2030 + 125);
    expect(claims.auth_time).toBe(Y2030);
    fixed.provider.clock.set({ now: Y2030, frozen: true });
  });

  it('expires access tokens by the mock clock: introspection turns inactive', async () => {
    const { json } = await clientCredentials(fixed, 'ledger.read');
    expect((await introspect(fixed, json.access_token)).json.active).toBe(true);
    fixed.provider.clock.advance(600);
    expect((await introspect(fixed, json.access_token)).json).toEqual({ active: false });
    fixed.provider.clock.set({ now: Y2030, frozen: true });
  });
});

describe('the fixtures keys clock and seed', () => {
  it('start the clock frozen at clock.start and make ids reproducible', async () => {
    const { dir, remove } = tempDir();
    try {
      const file = join(dir, 'fjord-2030.yaml');
      const text = (await readFile(FJORD_FIXTURES, 'utf8')).replace(
        'realm: fjord\n',
        'realm: fjord\nseed: fjord-seed\nclock: { start: 2030-01-01T00:00:00Z, frozen: true }\n',
      );
      await writeFile(file, text);
      const first: unknown[] = [];
      for (let run = 0; run < 2; run++) {
        const server = await startIdp({ fixtures: file });
        try {
          const { claims } = decode((await clientCredentials(server, 'ledger.read')).json.access_token);
          expect(claims.iat).toBe(Y2030);
          first.push(claims.jti);
        } finally {
          await server.close();
        }
      }
      expect(first[0]).toBe(first[1]);
    } finally {
      remove();
    }
  });
});
