// Discovery tells the truth (issue 11): every row of the discovery document, and every value of its
// capability lists, is used here through a real client — openid-client v6 where it has the flow, jose where
// it does not — against one realm on a real server. The last test checks that no row is left unused.
import {
  calculateJwkThumbprint,
  CompactEncrypt,
  createRemoteJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  exportJWK,
  generateKeyPair,
  importJWK,
  jwtVerify,
  SignJWT,
  UnsecuredJWT,
  type JWK,
} from 'jose';
import * as client from 'openid-client';
import { describe, expect, it } from 'vitest';
import type { FixturesInput } from '../../src/fixtures/schema.js';
import { get } from '../helpers/http.js';
import { halfHash } from '../helpers/jwt.js';
import { codeFlow } from '../helpers/openid-client.js';
import { useIdp, useLocalServer } from '../helpers/server.js';

const RP = 'http://rp.test/cb';
const PW = 'http://pairwise.example/cb';
const { publicKey, privateKey } = await generateKeyPair('RS256');
const rpJwk = { ...(await exportJWK(publicKey)), kty: 'RSA', kid: 'rp-key', alg: 'RS256', use: 'sig' };
const rpEc = await generateKeyPair('ES256');
const rpEcJwk = { ...(await exportJWK(rpEc.publicKey)), kty: 'EC', kid: 'rp-ec', alg: 'ES256', use: 'sig' };

/** Receives back-channel logout tokens and serves request_uri objects. */
const logoutTokens: string[] = [];
const requestObjects = new Map<string, string>();
const hooks = useLocalServer((req, res) => {
  if (req.method === 'POST') {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const token = new URLSearchParams(body).get('logout_token');
      if (token !== null) logoutTokens.push(token);
      res.writeHead(200).end();
    });
    return;
  }
  const jwt = requestObjects.get(req.url ?? '');
  res.writeHead(jwt === undefined ? 404 : 200, { 'content-type': 'application/oauth-authz-req+jwt' });
  res.end(jwt);
});

const fixtures = (): FixturesInput => ({
  realm: 'rows',
  scopes: { 'orders.read': { resource: 'orders-api', roles: ['read'] } },
  clients: {
    rp: {
      secret: 'rp-secret',
      authMethods: ['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'client_secret_jwt'],
      jwks: { keys: [rpJwk, rpEcJwk] },
      redirectUris: [RP],
      grants: [
        'authorization_code',
        'refresh_token',
        'implicit',
        'password',
        'client_credentials',
        'urn:ietf:params:oauth:grant-type:token-exchange',
        'urn:ietf:params:oauth:grant-type:jwt-bearer',
        'urn:ietf:params:oauth:grant-type:device_code',
        'urn:openid:params:grant-type:ciba',
      ],
      frontchannelLogoutUri: 'http://rp.test/frontchannel',
      backchannelLogoutUri: `${hooks.url}/backchannel`,
    },
    pairwise: {
      secret: 'pw-secret',
      redirectUris: [PW],
      subjectType: 'pairwise',
      userinfoSigned: true,
    },
    'orders-api': { secret: 'api-secret', grants: [] },
  },
  users: {
    alice: {
      password: 'alice-pw',
      claims: { name: 'Alice Aas', given_name: 'Alice', family_name: 'Aas', email: 'alice@rows.test' },
    },
  },
});

const idp = useIdp(() => ({ fixtures: fixtures() }));
const insecure = client.allowInsecureRequests;

/** openid-client's view of the provider, for a client, from discovery. */
function discover(
  id: string,
  auth: client.ClientAuth,
  metadata: Partial<client.ClientMetadata> = {},
  more: ((config: client.Configuration) => void)[] = [],
): Promise<client.Configuration> {
  return client.discovery(new URL(idp.issuer), id, metadata, auth, { execute: [insecure, ...more] });
}
const rpBasic = (): Promise<client.Configuration> => discover('rp', client.ClientSecretBasic('rp-secret'));

/** The browser's part: authorize with login_hint signs alice in at once; answers where it is sent. */
async function browse(url: URL): Promise<URL> {
  url.searchParams.set('login_hint', 'alice');
  const response = await fetch(url, { redirect: 'manual' });
  const text = await response.text();
  if (response.status === 200 && text.includes('<form method="post"')) {
    // form_post: the hidden fields as openid-client's docs feed them back (in the fragment).
    const action = /<form method="post" action="([^"]*)"/.exec(text)?.[1] as string;
    const fields = new URLSearchParams();
    for (const m of text.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g))
      fields.set(
        m[1] as string,
        (m[2] as string).replace(/&#(\d+);/g, (_s, n: string) => String.fromCharCode(Number(n))),
      );
    const target = new URL(action);
    target.hash = fields.toString();
    return target;
  }
  expect(response.status, text).toBe(302);
  return new URL(response.headers.get('location') as string);
}

const fragmentOf = (url: URL): URLSearchParams => new URLSearchParams(url.hash.slice(1));

/** The rows each test below uses: `field` or `field=value` for each value of a capability list. */
const used = new Set<string>();
const uses = (...rows: string[]): void => rows.forEach((row) => used.add(row));

describe('every discovery row through a real client', () => {
  it('code flow (S256, query): openid-client validates the ID token, then refresh, userinfo, introspection', async () => {
    const config = await rpBasic();
    const tokens = await codeFlow(config, {
      redirect_uri: RP,
      scope: 'openid profile email orders.read',
      login_hint: 'alice',
    });
    const claims = tokens.claims();
    expect(claims).toMatchObject({ iss: idp.issuer, aud: 'rp', name: 'Alice Aas', email: 'alice@rows.test' });
    expect(decodeProtectedHeader(tokens.id_token as string).alg).toBe('RS256');
    const meta = config.serverMetadata();
    for (const name of meta.claims_supported ?? []) expect(claims, name).toHaveProperty(name);
    expect(meta.scopes_supported).toEqual(
      expect.arrayContaining(['openid', 'profile', 'email', 'orders.read']),
    );
    const jwks = createRemoteJWKSet(new URL(meta.jwks_uri as string));
    const { payload } = await jwtVerify(tokens.access_token, jwks, {
      issuer: idp.issuer,
      audience: 'orders-api',
    });
    expect(payload.resource_access).toEqual({ 'orders-api': { roles: ['read'] } });

    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token as string);
    expect(refreshed.claims()?.sub).toBe(claims?.sub);
    const userinfo = await client.fetchUserInfo(config, refreshed.access_token, claims?.sub as string);
    expect(userinfo).toMatchObject({ sub: claims?.sub, name: 'Alice Aas' });
    const api = await discover('orders-api', client.ClientSecretBasic('api-secret'));
    expect(await client.tokenIntrospection(api, refreshed.access_token)).toMatchObject({
      active: true,
      sub: claims?.sub,
    });
    uses(
      'issuer',
      'authorization_endpoint',
      'token_endpoint',
      'jwks_uri',
      'userinfo_endpoint',
      'introspection_endpoint',
      'claims_supported',
      'claim_types_supported=normal',
      'scopes_supported',
      'response_types_supported=code',
      'response_modes_supported=query',
      'code_challenge_methods_supported=S256',
      'grant_types_supported=authorization_code',
      'grant_types_supported=refresh_token',
      'id_token_signing_alg_values_supported=RS256',
      'token_endpoint_auth_methods_supported=client_secret_basic',
      'subject_types_supported=public',
    );
  });

  it("token_introspection_endpoint (Keycloak's name) serves openid-client as introspection_endpoint does", async () => {
    const { json: meta } = await get<client.ServerMetadata>(idp.endpoints.discovery);
    expect(meta['token_introspection_endpoint']).toBe(meta.introspection_endpoint);
    const api = new client.Configuration(
      { ...meta, introspection_endpoint: meta['token_introspection_endpoint'] as string },
      'orders-api',
      undefined,
      client.ClientSecretBasic('api-secret'),
    );
    client.allowInsecureRequests(api);
    const job = await client.clientCredentialsGrant(await rpBasic(), { scope: 'orders.read' });
    expect(await client.tokenIntrospection(api, job.access_token)).toMatchObject({ active: true, azp: 'rp' });
    uses('token_introspection_endpoint', 'grant_types_supported=client_credentials');
  });

  it('revocation_endpoint: a token openid-client revokes is inactive at introspection', async () => {
    const config = await rpBasic();
    const { access_token } = await client.clientCredentialsGrant(config, { scope: 'orders.read' });
    await client.tokenRevocation(config, access_token);
    const api = await discover('orders-api', client.ClientSecretBasic('api-secret'));
    expect(await client.tokenIntrospection(api, access_token)).toEqual({ active: false });
    uses('revocation_endpoint');
  });

  it.each<[string, () => client.ClientAuth]>([
    ['client_secret_post', () => client.ClientSecretPost('rp-secret')],
    ['private_key_jwt', () => client.PrivateKeyJwt({ key: privateKey, kid: 'rp-key' })],
    ['client_secret_jwt', () => client.ClientSecretJwt('rp-secret')],
  ])('token_endpoint_auth_methods_supported=%s: client_credentials with it', async (method, auth) => {
    const tokens = await client.clientCredentialsGrant(await discover('rp', auth()), {
      scope: 'orders.read',
    });
    expect(decodeJwt(tokens.access_token)['azp']).toBe('rp');
    uses(`token_endpoint_auth_methods_supported=${method}`);
    if (method === 'private_key_jwt') uses('token_endpoint_auth_signing_alg_values_supported=RS256');
    if (method === 'client_secret_jwt') uses('token_endpoint_auth_signing_alg_values_supported=HS256');
  });

  it.each(['HS384', 'HS512'])(
    'token_endpoint_auth_signing_alg_values_supported=%s: openid-client with a ClientAuth signing it with the secret',
    async (alg) => {
      // openid-client's ClientSecretJwt signs HS256 only; a ClientAuth function may sign with any alg.
      const hmac: client.ClientAuth = async (as, c, body) => {
        const assertion = await new SignJWT({ jti: crypto.randomUUID() })
          .setProtectedHeader({ alg })
          .setIssuer(c.client_id)
          .setSubject(c.client_id)
          .setAudience(as.issuer)
          .setIssuedAt()
          .setExpirationTime('1m')
          .sign(new TextEncoder().encode('rp-secret'));
        body.set('client_assertion_type', 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer');
        body.set('client_assertion', assertion);
      };
      const tokens = await client.clientCredentialsGrant(await discover('rp', hmac), {
        scope: 'orders.read',
      });
      expect(decodeJwt(tokens.access_token)['azp']).toBe('rp');
      uses(`token_endpoint_auth_signing_alg_values_supported=${alg}`);
    },
  );

  it('grant_types_supported=token-exchange: openid-client genericGrantRequest, the new token for orders-api', async () => {
    const config = await rpBasic();
    const subject = await client.genericGrantRequest(config, 'password', {
      username: 'alice',
      password: 'alice-pw',
      scope: 'openid orders.read',
    });
    const exchanged = await client.genericGrantRequest(
      config,
      'urn:ietf:params:oauth:grant-type:token-exchange',
      {
        subject_token: subject.access_token,
        subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
        audience: 'orders-api',
      },
    );
    expect(exchanged['issued_token_type']).toBe('urn:ietf:params:oauth:token-type:access_token');
    const { payload } = await jwtVerify(
      exchanged.access_token,
      createRemoteJWKSet(new URL(idp.endpoints.certs)),
      {
        issuer: idp.issuer,
        audience: 'orders-api',
      },
    );
    expect(payload).toMatchObject({
      azp: 'rp',
      sub: subject.claims()?.sub,
      sid: decodeJwt(subject.access_token)['sid'],
    });
    uses('grant_types_supported=urn:ietf:params:oauth:grant-type:token-exchange');
  });

  it('grant_types_supported=jwt-bearer: openid-client genericGrantRequest with an assertion rp signed', async () => {
    const now = Math.floor(Date.now() / 1000);
    const assertion = await new SignJWT({ jti: crypto.randomUUID() })
      .setProtectedHeader({ alg: 'RS256', kid: 'rp-key' })
      .setIssuer('rp')
      .setSubject('alice')
      .setAudience(idp.issuer)
      .setIssuedAt(now)
      .setExpirationTime(now + 60)
      .sign(privateKey);
    const tokens = await client.genericGrantRequest(
      await rpBasic(),
      'urn:ietf:params:oauth:grant-type:jwt-bearer',
      { assertion, scope: 'openid profile' },
    );
    expect(tokens.claims()).toMatchObject({ iss: idp.issuer, aud: 'rp', name: 'Alice Aas' });
    uses('grant_types_supported=urn:ietf:params:oauth:grant-type:jwt-bearer');
  });

  it('grant_types_supported=password: openid-client genericGrantRequest, ID token validated', async () => {
    const tokens = await client.genericGrantRequest(await rpBasic(), 'password', {
      username: 'alice',
      password: 'alice-pw',
      scope: 'openid profile',
    });
    expect(tokens.claims()).toMatchObject({ iss: idp.issuer, aud: 'rp', name: 'Alice Aas' });
    uses('grant_types_supported=password');
  });

  it('code_challenge_methods_supported=plain: the verifier sent as the challenge', async () => {
    const config = await rpBasic();
    const verifier = client.randomPKCECodeVerifier();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: RP,
      scope: 'openid',
      code_challenge: verifier,
      code_challenge_method: 'plain',
    });
    const tokens = await client.authorizationCodeGrant(config, await browse(url), {
      pkceCodeVerifier: verifier,
    });
    expect(tokens.claims()?.aud).toBe('rp');
    uses('code_challenge_methods_supported=plain');
  });

  it.each(['fragment', 'form_post'])(
    'response_types_supported=id_token (implicit) with response_mode %s: openid-client implicitAuthentication',
    async (mode) => {
      const config = await discover('rp', client.ClientSecretBasic('rp-secret'), {}, [
        client.useIdTokenResponseType,
      ]);
      const nonce = client.randomNonce();
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: RP,
        scope: 'openid profile',
        nonce,
        ...(mode === 'form_post' ? { response_mode: 'form_post' } : {}),
      });
      const claims = await client.implicitAuthentication(config, await browse(url), nonce);
      expect(claims).toMatchObject({ aud: 'rp', name: 'Alice Aas' });
      uses(
        'response_types_supported=id_token',
        `response_modes_supported=${mode}`,
        'grant_types_supported=implicit',
      );
    },
  );

  it('response_types_supported=code id_token (hybrid): openid-client checks c_hash and s_hash', async () => {
    const config = await discover('rp', client.ClientSecretBasic('rp-secret'), {}, [
      client.useCodeIdTokenResponseType,
    ]);
    const nonce = client.randomNonce();
    const state = client.randomState();
    const url = client.buildAuthorizationUrl(config, { redirect_uri: RP, scope: 'openid', nonce, state });
    const tokens = await client.authorizationCodeGrant(config, await browse(url), {
      expectedNonce: nonce,
      expectedState: state,
    });
    expect(tokens.claims()?.nonce).toBe(nonce);
    uses('response_types_supported=code id_token');
  });

  it.each(['token', 'id_token token', 'code token', 'code id_token token'])(
    'response_types_supported=%s: jose verifies every token, at_hash and c_hash match',
    async (responseType) => {
      const url = new URL(idp.endpoints.auth);
      url.search = new URLSearchParams({
        response_type: responseType,
        client_id: 'rp',
        redirect_uri: RP,
        scope: 'openid',
        nonce: 'n-1',
        state: 's-1',
      }).toString();
      const fields = fragmentOf(await browse(url));
      expect(fields.get('state')).toBe('s-1');
      const jwks = createRemoteJWKSet(new URL(idp.endpoints.certs));
      const accessToken = fields.get('access_token') as string;
      await jwtVerify(accessToken, jwks, { issuer: idp.issuer });
      expect(fields.get('refresh_token')).toBeNull();
      const idToken = fields.get('id_token');
      if (responseType.includes('id_token')) {
        const { payload } = await jwtVerify(idToken as string, jwks, { issuer: idp.issuer, audience: 'rp' });
        expect(payload['nonce']).toBe('n-1');
        expect(payload['at_hash']).toBe(halfHash(accessToken));
        if (responseType.startsWith('code'))
          expect(payload['c_hash']).toBe(halfHash(fields.get('code') as string));
      } else {
        expect(idToken).toBeNull();
      }
      if (responseType.startsWith('code')) {
        const config = await rpBasic();
        const callback = new URL(RP);
        callback.searchParams.set('code', fields.get('code') as string);
        const exchanged = await client.authorizationCodeGrant(
          config,
          callback,
          { expectedNonce: 'n-1' },
          undefined,
        );
        expect(exchanged.claims()?.aud).toBe('rp');
      }
      uses(`response_types_supported=${responseType}`);
    },
  );

  it('response_types_supported=none: the browser is sent back with the state only', async () => {
    const url = new URL(idp.endpoints.auth);
    url.search = new URLSearchParams({
      response_type: 'none',
      client_id: 'rp',
      redirect_uri: RP,
      scope: 'openid',
      state: 's-2',
    }).toString();
    const back = await browse(url);
    expect(back.searchParams.get('state')).toBe('s-2');
    expect(back.searchParams.get('code')).toBeNull();
    uses('response_types_supported=none');
  });

  it('request_parameter_supported with request_object_signing_alg_values_supported=RS256: buildAuthorizationUrlWithJAR', async () => {
    const config = await rpBasic();
    const plain = client.buildAuthorizationUrl(config, { redirect_uri: RP, scope: 'openid', state: 'jar' });
    const url = await client.buildAuthorizationUrlWithJAR(config, plain.searchParams, {
      key: privateKey,
      kid: 'rp-key',
    });
    expect(url.searchParams.get('request')).not.toBeNull();
    const back = await browse(url);
    expect(back.searchParams.get('state')).toBe('jar');
    const tokens = await client.authorizationCodeGrant(config, back, { expectedState: 'jar' });
    expect(tokens.claims()?.aud).toBe('rp');
    uses('request_parameter_supported', 'request_object_signing_alg_values_supported=RS256');
  });

  it('request_object_encryption_alg/enc_values_supported: the JAR of buildAuthorizationUrlWithJAR encrypted with jose to the enc key of jwks_uri', async () => {
    const config = await rpBasic();
    const meta = config.serverMetadata();
    const { json } = await get<{ keys: JWK[] }>(meta.jwks_uri as string);
    const encKey = json.keys.find((k) => k.use === 'enc') as JWK;
    const algs = meta['request_object_encryption_alg_values_supported'] as string[];
    const encs = meta['request_object_encryption_enc_values_supported'] as string[];
    for (const [i, enc] of encs.entries()) {
      const alg = algs[i % algs.length] as string;
      const state = `jwe-${alg}-${enc}`;
      const plain = client.buildAuthorizationUrl(config, { redirect_uri: RP, scope: 'openid', state });
      const jar = await client.buildAuthorizationUrlWithJAR(config, plain.searchParams, {
        key: privateKey,
        kid: 'rp-key',
      });
      const request = await new CompactEncrypt(
        new TextEncoder().encode(jar.searchParams.get('request') as string),
      )
        .setProtectedHeader({ alg, enc, kid: encKey.kid as string, cty: 'JWT' })
        .encrypt(await importJWK({ ...encKey, alg }, alg));
      const url = new URL(idp.endpoints.auth);
      url.search = new URLSearchParams({ client_id: 'rp', request }).toString();
      const back = await browse(url);
      expect(back.searchParams.get('state')).toBe(state);
      const tokens = await client.authorizationCodeGrant(config, back, { expectedState: state });
      expect(tokens.claims()?.aud).toBe('rp');
      uses(`request_object_encryption_alg_values_supported=${alg}`);
      uses(`request_object_encryption_enc_values_supported=${enc}`);
    }
  });

  it('request_uri_parameter_supported with request_object_signing_alg_values_supported=none: jose UnsecuredJWT fetched by the server', async () => {
    const jwt = new UnsecuredJWT({
      client_id: 'rp',
      response_type: 'code',
      redirect_uri: RP,
      scope: 'openid',
      state: 'by-uri',
    })
      .setIssuer('rp')
      .setAudience(idp.issuer)
      .encode();
    requestObjects.set('/ro-1', jwt);
    const url = new URL(idp.endpoints.auth);
    url.search = new URLSearchParams({ client_id: 'rp', request_uri: `${hooks.url}/ro-1` }).toString();
    const back = await browse(url);
    expect(back.searchParams.get('state')).toBe('by-uri');
    const tokens = await client.authorizationCodeGrant(await rpBasic(), back, { expectedState: 'by-uri' });
    expect(tokens.claims()?.aud).toBe('rp');
    uses('request_uri_parameter_supported', 'request_object_signing_alg_values_supported=none');
  });

  it('claims_parameter_supported=false: a claims request parameter is ignored, not an error', async () => {
    const config = await rpBasic();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: RP,
      scope: 'openid',
      claims: JSON.stringify({ id_token: { email: { essential: true } } }),
    });
    const tokens = await client.authorizationCodeGrant(config, await browse(url));
    expect(tokens.claims()?.['email']).toBeUndefined();
    expect(config.serverMetadata().claims_parameter_supported).toBe(false);
    uses('claims_parameter_supported');
  });

  it('pushed_authorization_request_endpoint: openid-client buildAuthorizationUrlWithPAR, then the code flow', async () => {
    const config = await rpBasic();
    const meta = config.serverMetadata();
    expect(meta.require_pushed_authorization_requests).toBe(false);
    const url = await client.buildAuthorizationUrlWithPAR(config, {
      redirect_uri: RP,
      scope: 'openid',
      login_hint: 'alice',
    });
    expect(url.searchParams.get('request_uri')).toMatch(/^urn:ietf:params:oauth:request_uri:/);
    const tokens = await client.authorizationCodeGrant(config, await browse(url));
    expect(tokens.claims()?.aud).toBe('rp');
    uses('pushed_authorization_request_endpoint', 'require_pushed_authorization_requests');
  });

  it('registration_endpoint: openid-client dynamicClientRegistration, then the new client signs alice in', async () => {
    const config = await client.dynamicClientRegistration(
      new URL(idp.issuer),
      { redirect_uris: ['http://new.test/cb'], token_endpoint_auth_method: 'client_secret_basic' },
      undefined,
      { execute: [insecure] },
    );
    const url = client.buildAuthorizationUrl(config, { redirect_uri: 'http://new.test/cb', scope: 'openid' });
    const tokens = await client.authorizationCodeGrant(config, await browse(url));
    expect(tokens.claims()?.aud).toBe(config.clientMetadata().client_id);
    uses('registration_endpoint');
  });

  it('subject_types_supported=pairwise and userinfo_signing_alg_values_supported=RS256: openid-client with a pairwise client', async () => {
    const config = await discover('pairwise', client.ClientSecretBasic('pw-secret'), {
      userinfo_signed_response_alg: 'RS256',
    });
    const url = client.buildAuthorizationUrl(config, { redirect_uri: PW, scope: 'openid profile' });
    const tokens = await client.authorizationCodeGrant(config, await browse(url));
    const sub = tokens.claims()?.sub as string;
    const publicSub = decodeJwt((await client.clientCredentialsGrant(await rpBasic())).access_token);
    expect(sub).not.toBe(publicSub['sub']);
    const rp = await client.genericGrantRequest(await rpBasic(), 'password', {
      username: 'alice',
      password: 'alice-pw',
      scope: 'openid',
    });
    expect(sub).not.toBe(rp.claims()?.sub);
    const userinfo = await client.fetchUserInfo(config, tokens.access_token, sub);
    expect(userinfo).toMatchObject({ sub, name: 'Alice Aas' });
    const raw = await get(idp.endpoints.userinfo, { authorization: `Bearer ${tokens.access_token}` });
    expect(raw.headers.get('content-type')).toMatch(/^application\/jwt/);
    expect(decodeProtectedHeader(raw.text).alg).toBe('RS256');
    uses('subject_types_supported=pairwise', 'userinfo_signing_alg_values_supported=RS256');
  });

  it('ES256 rows at api_version=3: an ES256 client assertion and request object (openid-client), an ES256 ID token', async () => {
    const ecAuth = client.PrivateKeyJwt({ key: rpEc.privateKey, kid: 'rp-ec' });
    const config = await discover('rp', ecAuth);
    const plain = client.buildAuthorizationUrl(config, {
      redirect_uri: RP,
      scope: 'openid',
      state: 'jar-ec',
      api_version: '3',
    });
    const url = await client.buildAuthorizationUrlWithJAR(config, plain.searchParams, {
      key: rpEc.privateKey,
      kid: 'rp-ec',
    });
    expect(decodeProtectedHeader(url.searchParams.get('request') as string).alg).toBe('ES256');
    const tokens = await client.authorizationCodeGrant(config, await browse(url), {
      expectedState: 'jar-ec',
    });
    expect(decodeProtectedHeader(tokens.id_token as string).alg).toBe('ES256');
    expect(tokens.claims()).toMatchObject({ aud: 'rp', api_ver: 3 });
    uses(
      'id_token_signing_alg_values_supported=ES256',
      'request_object_signing_alg_values_supported=ES256',
      'token_endpoint_auth_signing_alg_values_supported=ES256',
    );
  });

  it('userinfo_signing_alg_values_supported=ES256: the signed userinfo of a version 3 sign-in', async () => {
    const config = await discover('pairwise', client.ClientSecretBasic('pw-secret'), {
      userinfo_signed_response_alg: 'ES256',
    });
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: PW,
      scope: 'openid profile',
      api_version: '3',
    });
    const tokens = await client.authorizationCodeGrant(config, await browse(url));
    const sub = tokens.claims()?.sub as string;
    expect(await client.fetchUserInfo(config, tokens.access_token, sub)).toMatchObject({
      sub,
      name: 'Alice Aas',
    });
    const raw = await get(idp.endpoints.userinfo, { authorization: `Bearer ${tokens.access_token}` });
    expect(decodeProtectedHeader(raw.text).alg).toBe('ES256');
    uses('userinfo_signing_alg_values_supported=ES256');
  });

  it('dpop_signing_alg_values_supported: openid-client proofs signed with each, the tokens DPoP-bound', async () => {
    const config = await rpBasic();
    const algs = config.serverMetadata().dpop_signing_alg_values_supported ?? [];
    for (const alg of algs) {
      // openid-client signs an Ed25519 key as `Ed25519`; its documented option remaps that to `EdDSA`.
      const keyPair = await client.randomDPoPKeyPair(alg === 'EdDSA' ? 'Ed25519' : alg);
      const remap: client.ModifyAssertionOptions = {
        [client.modifyAssertion]: (header) => {
          if (alg === 'EdDSA') header.alg = 'EdDSA';
        },
      };
      const DPoP = client.getDPoPHandle(config, keyPair, remap);
      const tokens = await client.clientCredentialsGrant(config, { scope: 'orders.read' }, { DPoP });
      expect(tokens.token_type, alg).toBe('dpop');
      const jkt = await calculateJwkThumbprint(await exportJWK(keyPair.publicKey));
      expect(decodeJwt(tokens.access_token)['cnf'], alg).toEqual({ jkt });
      uses(`dpop_signing_alg_values_supported=${alg}`);
    }
  });

  it('end_session_endpoint with front- and back-channel logout (sessions named by sid)', async () => {
    const config = await rpBasic();
    const url = client.buildAuthorizationUrl(config, { redirect_uri: RP, scope: 'openid' });
    const tokens = await client.authorizationCodeGrant(config, await browse(url));
    const sid = tokens.claims()?.['sid'] as string;
    const logout = client.buildEndSessionUrl(config, {
      id_token_hint: tokens.id_token as string,
      post_logout_redirect_uri: RP,
      state: 'bye',
    });
    const page = await fetch(logout, { redirect: 'manual' });
    const html = await page.text();
    expect(page.status).toBe(200);
    const frame = new URL(
      (/<iframe class="frontchannel" src="([^"]*)"/.exec(html)?.[1] as string).replace(
        /&#(\d+);/g,
        (_s, n: string) => String.fromCharCode(Number(n)),
      ),
    );
    expect(Object.fromEntries(frame.searchParams)).toEqual({ iss: idp.issuer, sid });
    expect(html).toContain(`data-next="${RP}?state=bye"`);
    await expect.poll(() => logoutTokens.length).toBeGreaterThan(0);
    const { payload } = await jwtVerify(
      logoutTokens.at(-1) as string,
      createRemoteJWKSet(new URL(idp.endpoints.certs)),
      {
        issuer: idp.issuer,
        audience: 'rp',
      },
    );
    expect(payload['sid']).toBe(sid);
    const api = await discover('orders-api', client.ClientSecretBasic('api-secret'));
    expect(await client.tokenIntrospection(api, tokens.access_token)).toEqual({ active: false });
    uses(
      'end_session_endpoint',
      'frontchannel_logout_supported',
      'frontchannel_logout_session_supported',
      'backchannel_logout_supported',
      'backchannel_logout_session_supported',
    );
  });

  it('check_session_iframe: the OIDC Session Management page a relying party loads', async () => {
    const meta = (await rpBasic()).serverMetadata();
    const page = await get(meta['check_session_iframe'] as string);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.text).toContain('message');
    uses('check_session_iframe');
  });

  it('device_authorization_endpoint: openid-client initiateDeviceAuthorization, approval, pollDeviceAuthorizationGrant', async () => {
    const config = await rpBasic();
    const started = await client.initiateDeviceAuthorization(config, { scope: 'openid' });
    const decided = await fetch(`${idp.issuer}/mock/device`, {
      method: 'POST',
      body: JSON.stringify({ user_code: started.user_code, user: 'alice', decision: 'approve' }),
    });
    expect(decided.status).toBe(200);
    const tokens = await client.pollDeviceAuthorizationGrant(config, { ...started, interval: 0 });
    expect(tokens.claims()?.aud).toBe('rp');
    uses(
      'device_authorization_endpoint',
      'grant_types_supported=urn:ietf:params:oauth:grant-type:device_code',
    );
  });

  it('backchannel_authentication_endpoint (poll mode, no user_code): openid-client CIBA, approval, poll', async () => {
    const config = await rpBasic();
    const meta = config.serverMetadata();
    expect(meta.backchannel_token_delivery_modes_supported).toEqual(['poll']);
    expect(meta.backchannel_user_code_parameter_supported).toBe(false);
    const started = await client.initiateBackchannelAuthentication(config, {
      scope: 'openid',
      login_hint: 'alice',
    });
    const decided = await fetch(`${idp.issuer}/mock/ciba`, {
      method: 'POST',
      body: JSON.stringify({ auth_req_id: started.auth_req_id, decision: 'approve' }),
    });
    expect(decided.status).toBe(200);
    const tokens = await client.pollBackchannelAuthenticationGrant(config, { ...started, interval: 0 });
    expect(tokens.claims()?.aud).toBe('rp');
    uses(
      'backchannel_authentication_endpoint',
      'backchannel_token_delivery_modes_supported=poll',
      'backchannel_user_code_parameter_supported',
      'grant_types_supported=urn:openid:params:grant-type:ciba',
    );
  });

  it('no row of the discovery document is left unused', async () => {
    const { json } = await get<Record<string, unknown>>(`${idp.issuer}/.well-known/openid-configuration`);
    const rows = Object.entries(json).flatMap(([field, value]) =>
      Array.isArray(value) && field !== 'claims_supported' && field !== 'scopes_supported'
        ? value.map((v) => `${field}=${String(v)}`)
        : [field],
    );
    expect(rows.filter((row) => !used.has(row))).toEqual([]);
  });
});
