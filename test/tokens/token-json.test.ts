// The token response's JSON text (src/oauth/token-set.ts tokenResponseJson): for every shape issueTokenSet
// answers with, exactly the text JSON.stringify writes of that object, member order included.
import { describe, expect, it } from 'vitest';
import {
  tokenResponseJson,
  type IssuedTokenResponse,
  type TokenResponse,
} from '../../src/oauth/token-set.js';

const JWS = 'eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6ImsxIn0.eyJzdWIiOiJ4In0.c2lnbmF0dXJlLV9f';
const base = {
  access_token: JWS,
  expires_in: 300,
  refresh_expires_in: 1800,
  refresh_token: `${JWS}r`,
  token_type: 'Bearer',
};

/** The object as issueTokenSet builds it: optional members spread in at their places. */
function response(o: {
  id_token?: string;
  session_state?: string;
  idp_proof?: string;
  scope?: string;
  sid?: string;
  token_type?: string;
  notBefore?: number;
}): TokenResponse {
  return {
    ...base,
    token_type: o.token_type ?? base.token_type,
    ...(o.id_token !== undefined ? { id_token: o.id_token } : {}),
    'not-before-policy': o.notBefore ?? 0,
    ...(o.session_state !== undefined ? { session_state: o.session_state } : {}),
    scope: o.scope ?? 'openid profile',
    sid: o.sid ?? '0c2f6d1e-1234-4abc-8def-0123456789ab',
    ...(o.idp_proof !== undefined ? { idp_proof: o.idp_proof } : {}),
  };
}

describe('tokenResponseJson', () => {
  it.each([
    ['client_credentials (no ID token, no session_state)', {}],
    ['a code exchange', { id_token: `${JWS}i`, session_state: 'ab12.salt-_x' }],
    ['with idp_proof', { id_token: `${JWS}i`, session_state: 's', idp_proof: `${JWS}p` }],
    ['an empty scope', { scope: '' }],
    [
      'strings JSON escapes',
      { scope: 'a"b\\c \u2028 ✓', token_type: 'Bear"er', sid: 'x\ny', session_state: '</' },
    ],
    ['a not-before policy', { notBefore: 1_795_423_035 }],
  ])('%s: JSON.stringify’s text', (_name, o) => {
    const r = response(o);
    expect(tokenResponseJson(r)).toBe(JSON.stringify(r));
    expect(JSON.parse(tokenResponseJson(r))).toEqual(r);
  });

  it.each([
    ['without a refresh token', false],
    ['with a refresh token', true],
  ])('a token exchange %s: issued_token_type last, JSON.stringify’s text', (_name, withRefresh) => {
    const { refresh_token, ...rest } = response({ session_state: 's', idp_proof: `${JWS}p` });
    const r: IssuedTokenResponse = {
      ...rest,
      ...(withRefresh ? { refresh_token } : { refresh_expires_in: 0 }),
      issued_token_type: 'urn:ietf:params:oauth:token-type:access_token',
    };
    // JSON.stringify of the object in issueTokenSet's member order.
    const ordered: IssuedTokenResponse = {
      access_token: r.access_token,
      expires_in: r.expires_in,
      refresh_expires_in: r.refresh_expires_in,
      ...(r.refresh_token !== undefined ? { refresh_token: r.refresh_token } : {}),
      token_type: r.token_type,
      'not-before-policy': r['not-before-policy'],
      ...(r.session_state !== undefined ? { session_state: r.session_state } : {}),
      scope: r.scope,
      sid: r.sid,
      ...(r.idp_proof !== undefined ? { idp_proof: r.idp_proof } : {}),
      ...(r.issued_token_type !== undefined ? { issued_token_type: r.issued_token_type } : {}),
    };
    expect(tokenResponseJson(r)).toBe(JSON.stringify(ordered));
  });
});
