// openid-client v6 with a pairwise client and signed userinfo (userinfo_signed_response_alg RS256): the
// library validates the application/jwt answer (signature by the realm JWKS, iss, aud) and the subject.
import * as client from 'openid-client';
import { describe, expect, it } from 'vitest';
import type { FixturesInput } from '../../src/fixtures/schema.js';
import { codeFlow, type CodeFlowTokens } from '../helpers/openid-client.js';
import { useIdp } from '../helpers/server.js';

const KARI_SUB = '0c9d8e7f-6a5b-4c3d-8e1f-2a3b4c5d6e7f';

const FIXTURES: FixturesInput = {
  realm: 'rp',
  clients: {
    shop: {
      secret: 'shop-secret',
      redirectUris: ['https://shop.example/cb'],
      subjectType: 'pairwise',
      userinfoSigned: true,
    },
    bank: { secret: 'bank-secret', redirectUris: ['https://bank.example/cb'], subjectType: 'pairwise' },
    news: { secret: 'news-secret', redirectUris: ['https://news.example/cb'], userinfoSigned: true },
  },
  users: { kari: { sub: KARI_SUB, claims: { name: 'Kari Nordmann' } } },
};

const idp = useIdp({ fixtures: FIXTURES });

/** Code flow with PKCE as an app does it; login_hint signs kari in at once. */
async function signIn(
  id: string,
  metadata: Partial<client.ClientMetadata>,
): Promise<{ config: client.Configuration; tokens: CodeFlowTokens }> {
  const config = await client.discovery(new URL(idp.issuer), id, metadata, undefined, {
    execute: [client.allowInsecureRequests],
  });
  const tokens = await codeFlow(config, {
    redirect_uri: `https://${id}.example/cb`,
    scope: 'openid profile',
    login_hint: 'kari',
  });
  return { config, tokens };
}

describe('openid-client: signed userinfo and pairwise subjects', () => {
  it.each<[string, boolean]>([
    ['shop', true],
    ['news', false],
  ])('fetchUserInfo validates the signed answer of %s (pairwise: %s)', async (id, pairwise) => {
    const { config, tokens } = await signIn(id, {
      client_secret: `${id}-secret`,
      userinfo_signed_response_alg: 'RS256',
    });
    const sub = tokens.claims()?.sub as string;
    expect(sub === KARI_SUB).toBe(!pairwise);
    const info = await client.fetchUserInfo(config, tokens.access_token, sub);
    expect(info).toMatchObject({ sub, name: 'Kari Nordmann', iss: idp.issuer, aud: id });
  });

  it('fetchUserInfo refuses the signed answer when it expects another subject', async () => {
    const { config, tokens } = await signIn('shop', {
      client_secret: 'shop-secret',
      userinfo_signed_response_alg: 'RS256',
    });
    await expect(client.fetchUserInfo(config, tokens.access_token, KARI_SUB)).rejects.toThrow();
  });

  it('two pairwise clients see the same user under different subs; userinfo agrees with each ID token', async () => {
    const shop = await signIn('shop', {
      client_secret: 'shop-secret',
      userinfo_signed_response_alg: 'RS256',
    });
    const bank = await signIn('bank', { client_secret: 'bank-secret' });
    const shopSub = shop.tokens.claims()?.sub as string;
    const bankSub = bank.tokens.claims()?.sub as string;
    expect(new Set([shopSub, bankSub, KARI_SUB]).size).toBe(3);
    expect((await client.fetchUserInfo(bank.config, bank.tokens.access_token, bankSub)).sub).toBe(bankSub);
    const introspection = await client.tokenIntrospection(bank.config, bank.tokens.access_token);
    expect(introspection).toMatchObject({ active: true, sub: bankSub, username: 'kari' });
  });
});
