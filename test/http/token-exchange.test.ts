// Token exchange (RFC 8693) as Keycloak's standard token exchange: an active access token of the realm for a
// token of the calling client, same user and session, `aud` the audience; every refusal with its answer.
import { randomUUID } from 'node:crypto';
import {
  calculateJwkThumbprint,
  createRemoteJWKSet,
  exportJWK,
  generateKeyPair,
  jwtVerify,
  SignJWT,
} from 'jose';
import * as oidc from 'openid-client';
import { describe, expect, it } from 'vitest';
import { ACCESS_TOKEN_TYPE, grantsFixtures, REFRESH_TOKEN_TYPE, TOKEN_EXCHANGE } from '../helpers/grants.js';
import {
  basicFor,
  clientCredentials,
  loginTokens,
  refresh,
  type SecretClient,
  type TokenResponse,
} from '../helpers/flows.js';
import { postForm, type Answer } from '../helpers/http.js';
import { decode, verifyToken } from '../helpers/jwt.js';
import { useIdp } from '../helpers/server.js';

const idp = useIdp(() => ({
  fixtures: grantsFixtures({
    // Gets DPoP-bound tokens by client credentials and exchanges them.
    'bound-agent': {
      secret: 'bound-pass',
      grants: ['client_credentials', TOKEN_EXCHANGE],
      scopes: ['ledger.read', 'statements'],
    },
  }),
}));

/** ingrid's tokens from teller-web: ledger.read makes ledger-api an audience of the access token. */
const login = (scope = 'openid profile ledger.read statements'): Promise<TokenResponse> =>
  loginTokens(idp, { scope });

/** A token exchange by `caller`; a parameter given as a list is sent once per value. */
function exchange(
  subjectToken: string,
  params: Record<string, string | string[]> = {},
  caller: SecretClient | { authorization: string; dpop?: string } = 'ledger-api',
): Promise<Answer> {
  const body = new URLSearchParams({
    grant_type: TOKEN_EXCHANGE,
    subject_token: subjectToken,
    subject_token_type: ACCESS_TOKEN_TYPE,
  });
  for (const [name, value] of Object.entries(params)) {
    body.delete(name);
    for (const v of Array.isArray(value) ? value : [value]) body.append(name, v);
  }
  const { authorization, dpop } = typeof caller === 'string' ? { authorization: basicFor(caller) } : caller;
  return postForm(idp.endpoints.token, body.toString(), {
    authorization,
    ...(dpop !== undefined ? { headers: { dpop } } : {}),
  });
}

describe('token exchange', () => {
  it('an access token for ledger-api becomes one for statement-rs: aud the audience, azp the caller, same user and session', async () => {
    const subject = await login();
    const answer = await exchange(subject.access_token, { audience: 'statement-rs' });
    expect(answer.status, answer.text).toBe(200);
    // Keycloak's response without a refresh token: refresh_expires_in 0, issued_token_type last.
    expect(Object.keys(answer.json)).toEqual([
      'access_token',
      'expires_in',
      'refresh_expires_in',
      'token_type',
      'not-before-policy',
      'session_state',
      'scope',
      'sid',
      'issued_token_type',
    ]);
    expect(answer.json).toMatchObject({
      expires_in: 600,
      refresh_expires_in: 0,
      token_type: 'bearer',
      // No scope asked for: the caller's default scopes, as Keycloak gives them, not the subject token's.
      scope: 'profile email ledger.read ledger.write statements',
      issued_token_type: ACCESS_TOKEN_TYPE,
      sid: subject.sid,
    });
    const { claims } = await verifyToken(idp, answer.json['access_token'] as string, 'statement-rs');
    const before = decode(subject.access_token).claims;
    expect(claims).toMatchObject({
      aud: 'statement-rs',
      azp: 'ledger-api',
      sub: before.sub,
      sid: before.sid,
      session_state: before.sid,
      typ: 'Bearer',
      name: 'Ingrid Fjeld',
    });
    // Keycloak's standard exchange writes no actor claim.
    expect(claims).not.toHaveProperty('act');
    expect(claims.jti).not.toBe(before.jti);
  });

  it("audience narrows aud and resource_access: another client's roles are dropped", async () => {
    const subject = await login();
    expect(decode(subject.access_token).claims['resource_access']).toEqual({
      'ledger-api': { roles: ['viewer', 'auditor'] },
      'statement-rs': { roles: ['reader'] },
    });
    const answer = await exchange(subject.access_token, { audience: 'statement-rs' });
    expect(answer.status, answer.text).toBe(200);
    const { claims } = await verifyToken(idp, answer.json['access_token'] as string, 'statement-rs');
    expect(claims['aud']).toBe('statement-rs');
    expect(claims['resource_access']).toEqual({ 'statement-rs': { roles: ['reader'] } });
    expect(claims['realm_access']).toEqual({ roles: ['customer', 'teller'] });
  });

  it('several audience parameters: aud is each of them, resource_access theirs', async () => {
    const subject = await login();
    const answer = await exchange(subject.access_token, {
      audience: ['statement-rs', 'ledger-api'],
      scope: 'ledger.read statements',
    });
    expect(answer.status, answer.text).toBe(200);
    const { claims } = await verifyToken(idp, answer.json['access_token'] as string, 'statement-rs');
    expect(claims['aud']).toEqual(['statement-rs', 'ledger-api']);
    expect(claims['resource_access']).toEqual({
      'ledger-api': { roles: ['viewer', 'auditor'] },
      'statement-rs': { roles: ['reader'] },
    });
  });

  it('without audience the new token has the audiences of its scopes; scope narrows', async () => {
    const subject = await login();
    const answer = await exchange(subject.access_token, { scope: 'ledger.read' });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json['scope']).toBe('ledger.read');
    const { claims } = await verifyToken(idp, answer.json['access_token'] as string);
    expect(claims).toMatchObject({ aud: 'ledger-api', azp: 'ledger-api', scope: 'ledger.read' });
    expect(claims).not.toHaveProperty('name');
  });

  it("scope may name scopes the subject token lacks, as any request of the caller (Keycloak's standard exchange)", async () => {
    const subject = await login('openid ledger.read');
    const answer = await exchange(subject.access_token, { scope: 'ledger.read ledger.write statements' });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json['scope']).toBe('ledger.read ledger.write statements');
    const { claims } = await verifyToken(idp, answer.json['access_token'] as string, 'ledger-api');
    expect(claims).toMatchObject({ aud: ['ledger-api', 'statement-rs'], azp: 'ledger-api' });
    expect(claims['resource_access']).toMatchObject({
      'ledger-api': { roles: expect.arrayContaining(['editor']) },
    });
  });

  it("no scope asked for: the caller's default scopes, whatever the subject token has; no ID token", async () => {
    const subject = await login('openid ledger.read');
    const answer = await exchange(subject.access_token);
    expect(answer.status, answer.text).toBe(200);
    // ledger-api's scopes but openid, offline_access and the special ones, as client_credentials gives them.
    expect(answer.json['scope']).toBe('profile email ledger.read ledger.write statements');
    expect(decode(subject.access_token).claims['scope']).toBe('openid ledger.read');
    expect(answer.json).not.toHaveProperty('id_token');
  });

  it('audience may name a client the user has roles of though no scope of the token gives it', async () => {
    const subject = await login('openid statements');
    const before = decode(subject.access_token).claims;
    expect(before).toMatchObject({ aud: 'statement-rs', resource_access: { 'ledger-api': {} } });
    const answer = await exchange(
      subject.access_token,
      { audience: 'ledger-api', scope: 'statements' },
      'statement-rs',
    );
    expect(answer.status, answer.text).toBe(200);
    const { claims } = await verifyToken(idp, answer.json['access_token'] as string, 'ledger-api');
    expect(claims).toMatchObject({ aud: 'ledger-api', azp: 'statement-rs' });
    expect(claims['resource_access']).toEqual({ 'ledger-api': { roles: ['viewer', 'auditor'] } });
  });

  it('the azp of a token may exchange it, and so may its audience', async () => {
    const first = await exchange((await login()).access_token, { audience: 'statement-rs' });
    const token = first.json['access_token'] as string;
    expect(decode(token).claims).toMatchObject({ aud: 'statement-rs', azp: 'ledger-api' });
    const byAzp = await exchange(token, { audience: 'ledger-api' });
    expect(byAzp.status, byAzp.text).toBe(200);
    const byAudience = await exchange(token, { audience: 'ledger-api' }, 'statement-rs');
    expect(byAudience.status, byAudience.text).toBe(200);
    expect(decode(byAudience.json['access_token'] as string).claims).toMatchObject({
      aud: 'ledger-api',
      azp: 'statement-rs',
    });
  });

  it("a service account's token: the new token is for that service account", async () => {
    const job = await clientCredentials(idp, 'ledger.read statements');
    expect(job.status, job.text).toBe(200);
    const answer = await exchange(job.json.access_token, { audience: 'statement-rs' });
    expect(answer.status, answer.text).toBe(200);
    const before = decode(job.json.access_token).claims;
    const { claims } = await verifyToken(idp, answer.json['access_token'] as string, 'statement-rs');
    expect(claims).toMatchObject({
      sub: before.sub,
      sid: before.sid,
      azp: 'ledger-api',
      realm_access: { roles: ['sync-job'] },
    });
  });

  it('scope openid issues an ID token for the caller', async () => {
    const subject = await login();
    const answer = await exchange(subject.access_token, { scope: 'openid profile' });
    expect(answer.status, answer.text).toBe(200);
    const { claims } = await verifyToken(idp, answer.json['id_token'] as string, 'ledger-api');
    expect(claims).toMatchObject({ azp: 'ledger-api', sub: decode(subject.access_token).claims.sub });
  });

  it('requested_token_type refresh_token: a refresh token of the same session, which refreshes', async () => {
    const subject = await login();
    const answer = await exchange(subject.access_token, {
      requested_token_type: REFRESH_TOKEN_TYPE,
      scope: 'ledger.read',
    });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json).toMatchObject({ refresh_expires_in: 3600, issued_token_type: REFRESH_TOKEN_TYPE });
    const refreshToken = answer.json['refresh_token'] as string;
    expect(decode(refreshToken).claims).toMatchObject({
      azp: 'ledger-api',
      sid: subject.sid,
      typ: 'Refresh',
    });
    const refreshed = await refresh(idp, refreshToken, { client: 'ledger-api' });
    expect(refreshed.status, refreshed.text).toBe(200);
    expect(decode(refreshed.json.access_token).claims).toMatchObject({ azp: 'ledger-api', sid: subject.sid });
  });

  it("a refresh token got with audience refreshes to tokens that keep the exchange's aud and resource_access", async () => {
    const subject = await login();
    const answer = await exchange(subject.access_token, {
      requested_token_type: REFRESH_TOKEN_TYPE,
      audience: 'statement-rs',
    });
    expect(answer.status, answer.text).toBe(200);
    const refreshed = await refresh(idp, answer.json['refresh_token'] as string, { client: 'ledger-api' });
    expect(refreshed.status, refreshed.text).toBe(200);
    for (const token of [answer.json['access_token'] as string, refreshed.json.access_token]) {
      const { claims } = await verifyToken(idp, token, 'statement-rs');
      expect(claims['aud']).toBe('statement-rs');
      expect(claims['resource_access']).toEqual({ 'statement-rs': { roles: ['reader'] } });
    }
  });

  it('openid-client genericGrantRequest exchanges and reads issued_token_type', async () => {
    const config = await oidc.discovery(
      new URL(idp.issuer),
      'ledger-api',
      undefined,
      oidc.ClientSecretBasic('ledger-rs-pass'),
      { execute: [oidc.allowInsecureRequests] },
    );
    const subject = await login();
    const tokens = await oidc.genericGrantRequest(config, TOKEN_EXCHANGE, {
      subject_token: subject.access_token,
      subject_token_type: ACCESS_TOKEN_TYPE,
      audience: 'statement-rs',
      scope: 'statements',
    });
    expect(tokens['issued_token_type']).toBe(ACCESS_TOKEN_TYPE);
    expect(tokens.refresh_token).toBeUndefined();
    const { payload } = await jwtVerify(
      tokens.access_token,
      createRemoteJWKSet(new URL(idp.endpoints.certs)),
      {
        issuer: idp.issuer,
        audience: 'statement-rs',
        currentDate: idp.clock.now(),
      },
    );
    expect(payload).toMatchObject({ azp: 'ledger-api', scope: 'statements', sid: subject.sid });
  });

  describe('refusals', () => {
    it.each<[string, (token: TokenResponse) => Promise<Answer>, number, Record<string, string>]>([
      [
        'a client that does not list the grant',
        (t) => exchange(t.access_token, {}, 'teller-web'),
        400,
        {
          error: 'unauthorized_client',
          error_description: 'Client "teller-web" is not allowed the token exchange grant',
        },
      ],
      [
        'a public client',
        (t) =>
          postForm(idp.endpoints.token, {
            grant_type: TOKEN_EXCHANGE,
            client_id: 'kiosk-spa',
            subject_token: t.access_token,
            subject_token_type: ACCESS_TOKEN_TYPE,
          }),
        400,
        { error: 'invalid_client', error_description: 'Public client is not allowed to exchange token' },
      ],
      [
        'no subject_token',
        () =>
          postForm(
            idp.endpoints.token,
            { grant_type: TOKEN_EXCHANGE, subject_token_type: ACCESS_TOKEN_TYPE },
            basicFor('ledger-api'),
          ),
        400,
        {
          error: 'invalid_request',
          error_description: "Parameter 'subject_token' required for standard token exchange",
        },
      ],
      [
        'no subject_token_type',
        (t) =>
          postForm(
            idp.endpoints.token,
            { grant_type: TOKEN_EXCHANGE, subject_token: t.access_token },
            basicFor('ledger-api'),
          ),
        400,
        {
          error: 'invalid_request',
          error_description: "Parameter 'subject_token_type' required for standard token exchange",
        },
      ],
      [
        'subject_token_type id_token',
        (t) =>
          exchange(t.id_token as string, { subject_token_type: 'urn:ietf:params:oauth:token-type:id_token' }),
        400,
        {
          error: 'invalid_request',
          error_description: `Parameter 'subject_token' supports access tokens only (${ACCESS_TOKEN_TYPE})`,
        },
      ],
      [
        'requested_token_type id_token',
        (t) =>
          exchange(t.access_token, { requested_token_type: 'urn:ietf:params:oauth:token-type:id_token' }),
        400,
        {
          error: 'invalid_request',
          error_description: `requested_token_type unsupported: "urn:ietf:params:oauth:token-type:id_token" (supported: ${ACCESS_TOKEN_TYPE}, ${REFRESH_TOKEN_TYPE})`,
        },
      ],
      [
        'requested_subject (impersonation)',
        (t) => exchange(t.access_token, { requested_subject: 'ola' }),
        400,
        {
          error: 'invalid_request',
          error_description: "Parameter 'requested_subject' is not supported for standard token exchange",
        },
      ],
      [
        'a subject_token that is not a JWT',
        () => exchange('not-a-token'),
        400,
        {
          error: 'invalid_request',
          error_description:
            'Invalid token: subject_token is not an active access token of this realm: not a JWT (malformed token)',
        },
      ],
      [
        'a refresh token as subject_token',
        (t) => exchange(t.refresh_token),
        400,
        {
          error: 'invalid_request',
          error_description:
            'Invalid token: subject_token is not an active access token of this realm: typ "Refresh" where an access token is needed',
        },
      ],
      [
        'a revoked subject_token',
        async (t) => {
          const revoked = await postForm(
            idp.endpoints.revoke,
            { token: t.access_token },
            basicFor('teller-web'),
          );
          expect(revoked.status).toBe(200);
          return exchange(t.access_token);
        },
        400,
        {
          error: 'invalid_request',
          error_description:
            'Invalid token: subject_token is not an active access token of this realm: revoked',
        },
      ],
      [
        'a subject_token whose session ended',
        async (t) => {
          await fetch(`${idp.issuer}/mock/sessions/${t.sid}`, { method: 'DELETE' });
          return exchange(t.access_token);
        },
        400,
        {
          error: 'invalid_request',
          error_description:
            'Invalid token: subject_token is not an active access token of this realm: its session has ended (logout, DELETE /mock/sessions, or idle expiry)',
        },
      ],
      [
        'a caller neither the azp nor an audience of the subject_token',
        (t) => exchange(t.access_token, {}, 'statement-rs'),
        403,
        { error: 'access_denied', error_description: 'Client is not within the token audience' },
      ],
      [
        'an audience that is no client of the realm',
        (t) => exchange(t.access_token, { audience: 'nowhere-api' }),
        400,
        {
          error: 'invalid_client',
          error_description: 'Audience not found: "nowhere-api" is not a client of this realm',
        },
      ],
      [
        'several audiences, two of them no client of the realm',
        (t) => exchange(t.access_token, { audience: ['nowhere-api', 'ledger-api', 'elsewhere-api'] }),
        400,
        {
          error: 'invalid_client',
          error_description:
            'Audience not found: "nowhere-api", "elsewhere-api" are not a client of this realm',
        },
      ],
      [
        "an audience the new token's scopes and roles do not give",
        (t) => exchange(t.access_token, { audience: ['ledger-api', 'statement-rs'], scope: 'ledger.read' }),
        400,
        {
          error: 'invalid_request',
          error_description:
            "Requested audience not available: statement-rs (the new token's scopes and roles give: ledger-api)",
        },
      ],
      [
        'a scope the caller may not have (no scope of the realm)',
        (t) => exchange(t.access_token, { scope: 'ledger.read ledger.admin' }),
        400,
        {
          error: 'invalid_scope',
          error_description:
            'Invalid scopes: ledger.admin (client "ledger-api" may request: openid profile email offline_access nnin_altsub idp_proof ledger.read ledger.write statements)',
        },
      ],
      [
        'a refresh token with offline_access',
        async () => {
          const offline = await login('openid offline_access ledger.read');
          return exchange(offline.access_token, {
            requested_token_type: REFRESH_TOKEN_TYPE,
            scope: 'offline_access ledger.read',
          });
        },
        400,
        {
          error: 'invalid_request',
          error_description: 'Scope offline_access not allowed for token exchange',
        },
      ],
    ])('%s', async (_name, request, status, body) => {
      const subject = await login('openid profile ledger.read');
      const answer = await request(subject);
      expect(answer.status, answer.text).toBe(status);
      expect(answer.json).toEqual(body);
    });
  });

  it('a tampered access token (another issuer written in) is refused: bad signature', async () => {
    const subject = await login();
    const [header, payload] = subject.access_token.split('.') as [string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    claims['iss'] = 'http://elsewhere.test/realms/other';
    const forged = `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.AAAA`;
    const answer = await exchange(forged);
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({
      error: 'invalid_request',
      error_description: `Invalid token: subject_token is not an active access token of this realm: bad signature (kid "${decode(subject.access_token).header.kid}")`,
    });
  });
});

/** A DPoP key pair and its thumbprint. */
async function holder() {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  const jwk = await exportJWK(publicKey);
  return { privateKey, jwk, jkt: await calculateJwkThumbprint(jwk) };
}
const key = await holder();
const otherKey = await holder();

describe('a DPoP-bound subject_token (as Keycloak: only its own client, only with a proof of its key)', () => {
  const BOUND_AGENT = `Basic ${btoa('bound-agent:bound-pass')}`;
  const proof = (signer = key): Promise<string> =>
    new SignJWT({ htm: 'POST', htu: idp.endpoints.token, jti: randomUUID() })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: signer.jwk })
      .setIssuedAt(idp.clock.nowSeconds())
      .sign(signer.privateKey);
  /** bound-agent's access token, bound to `key`. */
  async function boundToken(): Promise<string> {
    const answer = await postForm(
      idp.endpoints.token,
      { grant_type: 'client_credentials', scope: 'ledger.read statements' },
      { authorization: BOUND_AGENT, headers: { dpop: await proof() } },
    );
    expect(answer.status, answer.text).toBe(200);
    expect(decode(answer.json['access_token'] as string).claims['cnf']).toEqual({ jkt: key.jkt });
    return answer.json['access_token'] as string;
  }

  it('with a proof of its key: exchanged, and the new token is bound to that key', async () => {
    const answer = await exchange(
      await boundToken(),
      { audience: 'statement-rs' },
      { authorization: BOUND_AGENT, dpop: await proof() },
    );
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json['token_type']).toBe('DPoP');
    const { claims } = await verifyToken(idp, answer.json['access_token'] as string, 'statement-rs');
    expect(claims).toMatchObject({ aud: 'statement-rs', azp: 'bound-agent', cnf: { jkt: key.jkt } });
  });

  it.each<[string, () => Promise<Answer>, string]>([
    [
      'without a proof',
      async () => exchange(await boundToken(), {}, { authorization: BOUND_AGENT }),
      'DPoP proof is missing: the subject_token is DPoP-bound, send a proof of its key',
    ],
    [
      'with a proof of another key',
      async () =>
        exchange(await boundToken(), {}, { authorization: BOUND_AGENT, dpop: await proof(otherKey) }),
      `DPoP proof and token binding verification failed: the proof's key thumbprint ${otherKey.jkt} is not the subject_token's cnf.jkt ${key.jkt}`,
    ],
    [
      'by another client (an audience of the token), even with a proof of its key',
      async () =>
        exchange(await boundToken(), {}, { authorization: basicFor('ledger-api'), dpop: await proof() }),
      'Sender-constrained token exchange rejected as the token was not issued for the requesting client (the subject_token is DPoP-bound and was issued to "bound-agent")',
    ],
  ])('%s: 400 invalid_request', async (_name, request, description) => {
    const answer = await request();
    expect(answer.status, answer.text).toBe(400);
    expect(answer.json).toEqual({ error: 'invalid_request', error_description: description });
  });
});

describe('token exchange in a Keycloak realm', () => {
  const kc = useIdp(() => ({
    fixtures: {
      realm: 'harbor',
      users: [{ username: 'kari', enabled: true, credentials: [{ type: 'password', value: 'kari-pw' }] }],
      clientScopes: [{ name: 'orders', protocol: 'openid-connect' }],
      clients: [
        {
          clientId: 'orders-api',
          secret: 'orders-secret',
          directAccessGrantsEnabled: true,
          attributes: { 'standard.token.exchange.enabled': 'true' },
          defaultClientScopes: ['profile', 'orders'],
          optionalClientScopes: ['email'],
        },
      ],
    },
  }));
  const auth = { authorization: `Basic ${Buffer.from('orders-api:orders-secret').toString('base64')}` };
  const scopes = (answer: Answer): string[] => String(answer.json['scope']).split(' ').sort();

  it("no scope asked for: the caller's default client scopes, not the optional ones the subject token has", async () => {
    const subject = await postForm(
      kc.endpoints.token,
      { grant_type: 'password', username: 'kari', password: 'kari-pw', scope: 'openid email' },
      auth,
    );
    expect(subject.status, subject.text).toBe(200);
    expect(scopes(subject)).toEqual(['email', 'openid', 'orders', 'profile']);
    const body = {
      grant_type: TOKEN_EXCHANGE,
      subject_token: String(subject.json['access_token']),
      subject_token_type: ACCESS_TOKEN_TYPE,
    };
    const plain = await postForm(kc.endpoints.token, body, auth);
    expect(plain.status, plain.text).toBe(200);
    expect(scopes(plain)).toEqual(['orders', 'profile']);
    const asked = await postForm(kc.endpoints.token, { ...body, scope: 'email' }, auth);
    expect(scopes(asked)).toEqual(['email', 'orders', 'profile']);
  });
});
