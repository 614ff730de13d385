// grant_type=authorization_code: single-use, expiring codes bound to client, redirect_uri and PKCE.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { RealmContext } from '../../realm/context.js';
import type { Grant } from '../../tokens/claims.js';
import { invalidDPoPProof, invalidGrant, invalidRequest, unauthorizedClient } from '../errors.js';
import { sessionUser, type GrantDefinition, type GrantRequest } from './grant.js';
import type { CodeGrant } from '../../store/state-store.js';

function checkPkce(code: CodeGrant, verifier: string | undefined): void {
  if (code.codeChallenge === undefined) {
    // A verifier without a challenge is a PKCE downgrade (RFC 9700 §2.1.1); Keycloak refuses it too.
    if (verifier !== undefined)
      throw invalidGrant('PKCE code verifier specified but challenge not present in authorization');
    return;
  }
  if (verifier === undefined) throw invalidGrant('PKCE code verifier not specified');
  if (!/^[A-Za-z0-9\-._~]{43,128}$/.test(verifier))
    throw invalidGrant('PKCE verification failed: code_verifier is not 43-128 unreserved characters');
  const computed =
    code.codeChallengeMethod === 'plain'
      ? verifier
      : createHash('sha256').update(verifier, 'ascii').digest('base64url');
  const a = Buffer.from(computed);
  const b = Buffer.from(code.codeChallenge);
  if (a.length !== b.length || !timingSafeEqual(a, b))
    throw invalidGrant('PKCE verification failed: code_verifier does not match code_challenge');
}

export async function grantAuthorizationCode(
  p: RealmContext,
  { client, params, dpop }: GrantRequest,
): Promise<Grant> {
  if (!client.grants.includes('authorization_code')) {
    throw unauthorizedClient(`Client "${client.id}" is not allowed the authorization_code grant`);
  }
  const codeValue = params.require('code');
  const redirectUri = params.get('redirect_uri');
  const code = await p.store.takeCode(codeValue);
  if (code === undefined) {
    // RFC 6749 §4.1.2: a code used twice revokes the tokens of its first exchange; Keycloak ends the session.
    const replayed = await p.store.spentCodeSession(codeValue);
    if (replayed !== undefined) {
      await p.store.endSession(replayed, 'revoked');
      throw invalidGrant(
        'Code not valid: it was already used, so the tokens of its first exchange are revoked and its session ended',
      );
    }
    throw invalidGrant('Code not valid (unknown, or already used: codes are single-use)');
  }
  if (code.expiresAt <= p.clock.nowSeconds()) throw invalidGrant('Code is expired');
  if (code.clientId !== client.id) throw invalidGrant('Code was issued to another client');
  if (redirectUri === undefined) throw invalidRequest('Missing parameter: redirect_uri');
  if (redirectUri !== code.redirectUri)
    throw invalidGrant('Incorrect redirect_uri: it must repeat the redirect_uri of the authorize request');
  checkPkce(code, params.get('code_verifier'));
  // RFC 9449 §10: a code bound by dpop_jkt is exchanged only with a proof of that key.
  if (code.dpopJkt !== undefined && dpop === undefined)
    throw invalidDPoPProof(
      'DPoP proof required: the authorization request bound this code to a key with dpop_jkt',
    );
  if (code.dpopJkt !== undefined && dpop !== undefined && dpop.jkt !== code.dpopJkt)
    throw invalidDPoPProof(
      `Invalid DPoP proof: its key's thumbprint ${dpop.jkt} is not the dpop_jkt ${code.dpopJkt} the code is bound to`,
    );
  const session = await p.store.activeSession(code.sessionId);
  if (session === undefined) throw invalidGrant('Session not active');
  const subject = sessionUser(p.realm, code.username);
  await p.store.markCodeSpent(code);
  return {
    client,
    subject,
    serviceAccount: false,
    scopes: code.scopes,
    sessionId: session.id,
    authTime: session.authTime,
    ...(code.nonce !== undefined ? { nonce: code.nonce } : {}),
    apiVersion: code.apiVersion ?? 1,
    ...(code.method !== undefined ? { method: code.method } : {}),
  };
}

export const authorizationCodeGrant = {
  type: 'authorization_code',
  parameters: ['code', 'redirect_uri', 'code_verifier'],
  issuesIdToken: true,
  handle: grantAuthorizationCode,
} as const satisfies GrantDefinition;
