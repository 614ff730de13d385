// One verify, every refusal: the QA decoder, introspection and userinfo all answer from verifyToken's reason.
import { describe, expect, it } from 'vitest';
import type { MintRequest } from '../../src/index.js';
import { DEFAULT_FIXTURES, WEB_APP } from '../helpers/bundled.js';
import { call, get, postForm } from '../helpers/http.js';
import { useIdp, Y2030 } from '../helpers/server.js';

const idp = useIdp({ fixtures: DEFAULT_FIXTURES, clock: Y2030, frozen: true, seed: 'verify' });
const alice = { client: 'web-app', user: 'alice' } as const;

async function decoder(token: string): Promise<{ valid: unknown; reason: unknown }> {
  const { json } = await call('POST', `${idp.issuer}/mock/tokens/verify`, { token });
  return { valid: json['valid'], reason: json['reason'] };
}

const mint = async (request: Omit<MintRequest, 'client'>): Promise<string> =>
  (await idp.mint({ ...alice, ...request })).token;

describe('each refusal, in words, where introspection says inactive', () => {
  it.each<[string, () => Promise<string>, RegExp]>([
    ['not a JWT', async () => 'hello.world', /^not a JWT \(three base64url parts/],
    ['an unknown kid', () => mint({ type: 'access', signature: 'unknown-key' }), /^unknown kid "/],
    ['a bad signature', () => mint({ type: 'access', signature: 'invalid' }), /^bad signature \(kid "/],
    ['alg none', () => mint({ type: 'access', signature: 'none' }), /^alg none is not accepted/],
    [
      'a foreign issuer',
      () => mint({ type: 'access', claims: { iss: 'http://other.test/realms/x' } }),
      /^foreign issuer "http:\/\/other\.test\/realms\/x"/,
    ],
    [
      'an exp that is not a number',
      () => mint({ type: 'access', claims: { exp: 'soon' } }),
      /^"exp" claim must be a number$/,
    ],
    ['expired', () => mint({ type: 'access', expiresIn: -60 }), /^expired 60 s ago by the mock clock/],
    ['not yet valid', () => mint({ type: 'access', notBefore: '+120' }), /^not valid for another 120 s/],
    ['an unknown typ', () => mint({ type: 'access', claims: { typ: 'Weird' } }), /^unknown typ "Weird"$/],
    [
      'a refresh typ signed RS256',
      () => mint({ type: 'access', claims: { typ: 'Refresh' } }),
      /^typ "Refresh" signed RS256 \(refresh tokens are HS256/,
    ],
  ])('%s', async (_name, make, reason) => {
    const token = await make();
    expect(await decoder(token)).toEqual({ valid: false, reason: expect.stringMatching(reason) });
    const introspected = await postForm(idp.endpoints.introspect, { token }, WEB_APP);
    expect(introspected.json).toEqual({ active: false });
  });

  it('revoked, then its session ended', async () => {
    const token = await mint({ type: 'access' });
    expect(await decoder(token)).toEqual({ valid: true, reason: 'an active access token of this realm' });
    expect((await postForm(idp.endpoints.revoke, { token }, WEB_APP)).status).toBe(200);
    expect(await decoder(token)).toEqual({ valid: false, reason: 'revoked' });

    const other = await mint({ type: 'id' });
    expect(await decoder(other)).toEqual({ valid: true, reason: 'an active id token of this realm' });
    expect((await call('DELETE', `${idp.issuer}/mock/sessions`)).status).toBeLessThan(300);
    expect(await decoder(other)).toEqual({
      valid: false,
      reason: expect.stringMatching(/^its session has ended/),
    });
  });
});

describe('a kind the endpoint does not take', () => {
  it.each(['id', 'refresh', 'proof'] as const)('userinfo refuses an active %s token', async (type) => {
    const token = await mint({ type });
    expect((await decoder(token)).valid).toBe(true);
    const answer = await get(idp.endpoints.userinfo, { authorization: `Bearer ${token}` });
    expect(answer.status).toBe(401);
    expect(answer.json['error']).toBe('invalid_token');
  });
});
