// The fixtures' `brand`: the word in the alternative-subject claim, the proof scope and response field and
// the acr values. The bundled default (`idp`) is what every other test checks.
import { describe, expect, it } from 'vitest';
import { brandOf } from '../../src/fixtures/brand.js';
import type { FixturesInput } from '../../src/fixtures/schema.js';
import { startMockIdp } from '../../src/server.js';
import { basic, get, postForm } from '../helpers/http.js';
import type { TokenResponse } from '../helpers/flows.js';
import { verifyToken } from '../helpers/jwt.js';
import { useIdp } from '../helpers/server.js';

const ALTSUB = '9578-6000-4-135790';

const acme: FixturesInput = {
  realm: 'acme',
  brand: 'acme',
  clients: {
    web: {
      secret: 'web-pass',
      redirectUris: ['http://web.acme.test/cb'],
      scopes: ['openid', 'profile', 'acme_proof'],
    },
    robot: {
      secret: 'robot-pass',
      grants: ['client_credentials'],
      scopes: ['profile', 'acme_proof'],
    },
  },
  users: {
    astrid: { acr: 'urn:acme:bid;LOA=4', claims: { name: 'Astrid Acme', acme_altsub: ALTSUB } },
  },
};

const idp = useIdp({ fixtures: acme });

/** The code flow for astrid with `scope`, through login_hint. */
async function signIn(scope: string, extra: Record<string, string> = {}): Promise<TokenResponse> {
  const params = new URLSearchParams({
    response_type: 'code',
    client_id: 'web',
    redirect_uri: 'http://web.acme.test/cb',
    scope,
    login_hint: 'astrid',
    ...extra,
  });
  const response = await fetch(`${idp.endpoints.auth}?${params}`, { redirect: 'manual' });
  expect(response.status, await response.text()).toBe(302);
  const code = new URL(response.headers.get('location') as string).searchParams.get('code') as string;
  const answer = await postForm<TokenResponse>(
    idp.endpoints.token,
    { grant_type: 'authorization_code', code, redirect_uri: 'http://web.acme.test/cb' },
    { authorization: basic('web', 'web-pass') },
  );
  expect(answer.status, answer.text).toBe(200);
  return answer.json;
}

describe('brand acme', () => {
  it.each([
    ['urn:acme:bis', 'urn:acme:bis;LOA=3'],
    ['urn:idp:bis urn:acme:bid', 'urn:acme:bid;LOA=4'],
    ['urn:idp:bis', 'urn:acme:bid;LOA=4'],
  ])('acr_values %s signs in at %s, in the access, ID and refreshed tokens', async (acrValues, acr) => {
    const tokens = await signIn('openid', { acr_values: acrValues });
    const access = await verifyToken(idp, tokens.access_token);
    const id = await verifyToken(idp, String(tokens.id_token), 'web');
    expect([access.claims['acr'], id.claims['acr']]).toEqual([acr, acr]);
    const refreshed = await postForm<TokenResponse>(
      idp.endpoints.token,
      { grant_type: 'refresh_token', refresh_token: String(tokens.refresh_token) },
      { authorization: basic('web', 'web-pass') },
    );
    expect((await verifyToken(idp, refreshed.json.access_token)).claims['acr']).toBe(acr);
  });

  it.each([
    ['the altsub claim', 'altsub', 'acme_altsub'],
    ['the proof scope and response field', 'proof', 'acme_proof'],
    ['the BID acr value', 'acrBid', 'urn:acme:bid'],
    ['the BIS acr value', 'acrBis', 'urn:acme:bis'],
  ] as const)('names %s after the brand', (_what, key, name) => {
    expect(idp.provider.realm.brand[key]).toBe(name);
    expect(brandOf()[key]).toBe(name.replace('acme', 'idp'));
  });

  it('lists the brand proof scope in discovery, not idp_proof', async () => {
    const { json } = await get(idp.endpoints.discovery);
    expect(json['scopes_supported']).toContain('acme_proof');
    expect(json['scopes_supported']).not.toContain('idp_proof');
  });

  it('answers acme_proof in the token response, its token carrying acme_altsub', async () => {
    const t = await signIn('openid acme_proof');
    expect(Object.keys(t)).toContain('acme_proof');
    expect(Object.keys(t)).not.toContain('idp_proof');
    expect(t.scope).toBe('openid acme_proof');
    const proof = await verifyToken(idp, t['acme_proof'] as string);
    expect(proof.claims.typ).toBe('Proof');
    expect(proof.claims['acme_altsub']).toBe(ALTSUB);
    expect(proof.claims['idp_altsub']).toBeUndefined();
  });

  it.each(['access_token', 'id_token'] as const)(
    'puts acme_altsub and the acme acr into the %s',
    async (name) => {
      const t = await signIn('openid');
      const { claims } = await verifyToken(idp, t[name] as string);
      expect(claims['acme_altsub']).toBe(ALTSUB);
      expect(claims.acr).toBe('urn:acme:bid;LOA=4');
    },
  );

  it('answers no proof field without the scope', async () => {
    const t = await signIn('openid');
    expect(Object.keys(t).filter((k) => k.endsWith('_proof'))).toEqual([]);
  });

  it('refuses idp_proof as an unknown scope', async () => {
    const params = new URLSearchParams({
      response_type: 'code',
      client_id: 'web',
      redirect_uri: 'http://web.acme.test/cb',
      scope: 'openid idp_proof',
      login_hint: 'astrid',
    });
    const response = await fetch(`${idp.endpoints.auth}?${params}`, { redirect: 'manual' });
    const location = new URL(response.headers.get('location') as string);
    expect(location.searchParams.get('error')).toBe('invalid_scope');
    expect(location.searchParams.get('error_description')).toBe(
      'Invalid scopes: idp_proof (client "web" may request: openid profile acme_proof)',
    );
  });

  it('leaves acme_proof out of a client_credentials grant that names no scope', async () => {
    const { status, json } = await postForm<TokenResponse>(
      idp.endpoints.token,
      { grant_type: 'client_credentials' },
      { authorization: basic('robot', 'robot-pass') },
    );
    expect(status).toBe(200);
    expect(json.scope).toBe('profile');
  });

  it('shows acme_altsub on the login page', async () => {
    const params = new URLSearchParams({
      response_type: 'code',
      client_id: 'web',
      redirect_uri: 'http://web.acme.test/cb',
      scope: 'openid',
    });
    const page = await (await fetch(`${idp.endpoints.auth}?${params}`)).text();
    expect(page).toContain(`<span class="k">acme_altsub</span> <span class="v">${ALTSUB}</span>`);
    expect(page).not.toContain('idp_altsub');
  });
});

describe('brand in the fixtures', () => {
  it('refuses a client scope idp_proof under another brand', async () => {
    const fixtures: FixturesInput = {
      ...acme,
      clients: { web: { secret: 'x', redirectUris: ['http://web.acme.test/cb'], scopes: ['idp_proof'] } },
    };
    await expect(startMockIdp({ fixtures })).rejects.toThrow(
      'unknown scope "idp_proof" (known: openid, profile, email, offline_access, nnin_altsub, acme_proof)',
    );
  });

  it.each([
    ['ACME', 'a brand word is lower-case letters, digits or "-" (at most 32)'],
    ['ac_me', 'a brand word is lower-case letters, digits or "-" (at most 32)'],
    ['', 'a brand word is lower-case letters, digits or "-" (at most 32)'],
  ])('refuses brand %j', async (brand, message) => {
    await expect(startMockIdp({ fixtures: { ...acme, brand } })).rejects.toThrow(message);
  });

  it('follows a brand changed by PUT /mock/fixtures', async () => {
    const other = await startMockIdp({ fixtures: acme });
    try {
      const yaml =
        'realm: acme\nbrand: zeta\nclients:\n  web: { secret: s, redirectUris: [http://web.acme.test/cb] }\n';
      const put = await fetch(`${other.issuer}/mock/fixtures`, {
        method: 'PUT',
        headers: { 'content-type': 'application/yaml' },
        body: yaml,
      });
      expect(put.status, await put.text()).toBe(200);
      const { json } = await get(`${other.issuer}/.well-known/openid-configuration`);
      expect(json['scopes_supported']).toContain('zeta_proof');
      expect(json['scopes_supported']).not.toContain('acme_proof');
      expect(other.provider.realm.brand.acrBis).toBe('urn:zeta:bis');
    } finally {
      await other.close();
    }
  });

  it('defaults to idp: the built-in scope is idp_proof', async () => {
    const plain = await startMockIdp({
      fixtures: {
        clients: { robot: { secret: 'x', grants: ['client_credentials'], scopes: ['idp_proof'] } },
      },
    });
    try {
      expect(plain.provider.realm.brand.word).toBe('idp');
      expect(plain.provider.realm.scopes.has('idp_proof')).toBe(true);
      expect(plain.provider.realm.scopes.has('acme_proof')).toBe(false);
    } finally {
      await plain.close();
    }
  });
});
