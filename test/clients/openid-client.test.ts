// openid-client v6, used as an application would, against the fjord fixtures on a real server.
import * as client from 'openid-client';
import { beforeAll, describe, expect, it } from 'vitest';
import { SECRETS } from '../helpers/flows.js';
import { vaultSignerKey } from '../helpers/jwt.js';
import { codeFlow, type CodeFlowTokens } from '../helpers/openid-client.js';
import { useIdp } from '../helpers/server.js';

const INGRID_SUB = '7f3e2a10-5b6c-4d7e-8f90-a1b2c3d4e5f6';
/** mock-idp listens on http://; openid-client refuses that unless told otherwise. */
const insecure = { execute: [client.allowInsecureRequests] };

const idp = useIdp();

const discover = (
  clientId: string,
  metadata?: string | Partial<client.ClientMetadata>,
  auth?: client.ClientAuth,
): Promise<client.Configuration> => client.discovery(new URL(idp.issuer), clientId, metadata, auth, insecure);

describe('openid-client', () => {
  it('discovers the provider metadata', async () => {
    const config = await discover('teller-web', SECRETS['teller-web']);
    const meta = config.serverMetadata();
    expect(meta.issuer).toBe(idp.issuer);
    expect(meta.token_endpoint).toBe(idp.endpoints.token);
    expect(meta.jwks_uri).toBe(idp.endpoints.certs);
    expect(meta.introspection_endpoint).toBe(idp.endpoints.introspect);
    expect(meta.code_challenge_methods_supported).toContain('S256');
    expect(meta.supportsPKCE()).toBe(true);
  });

  it.each<[string, () => client.ClientAuth]>([
    ['client_secret_basic (form-urlencoded secret)', () => client.ClientSecretBasic(SECRETS['ledger-sync'])],
    ['client_secret_post', () => client.ClientSecretPost(SECRETS['ledger-sync'])],
  ])('clientCredentialsGrant with %s', async (_name, auth) => {
    const config = await discover('ledger-sync', undefined, auth());
    const tokens = await client.clientCredentialsGrant(config, { scope: 'ledger.read' });
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.scope).toBe('ledger.read');
    expect(tokens.expires_in).toBe(600);
    expect(tokens.id_token).toBeUndefined();
  });

  it('surfaces invalid_scope as a ResponseBodyError', async () => {
    const config = await discover('ledger-sync', undefined, client.ClientSecretBasic(SECRETS['ledger-sync']));
    const error = await client
      .clientCredentialsGrant(config, { scope: 'ledger.delete' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(client.ResponseBodyError);
    expect((error as client.ResponseBodyError).error).toBe('invalid_scope');
    expect((error as client.ResponseBodyError).status).toBe(400);
  });

  describe('authorization code with PKCE and nonce, then refresh, introspection and userinfo', () => {
    let config: client.Configuration;
    let tokens: CodeFlowTokens;

    beforeAll(async () => {
      config = await discover('teller-web', SECRETS['teller-web']);
      tokens = await codeFlow(config, {
        redirect_uri: 'http://app.fjord.test/cb',
        scope: 'openid profile nnin_altsub ledger.read',
        login_hint: 'ingrid',
      });
    });

    it('gets a validated ID token with the user claims', () => {
      const claims = tokens.claims();
      expect(claims).toMatchObject({
        iss: idp.issuer,
        aud: 'teller-web',
        sub: INGRID_SUB,
        name: 'Ingrid Fjeld',
        nnin_altsub: '17037912345',
      });
      expect(tokens.scope).toBe('openid profile nnin_altsub ledger.read');
    });

    it('refreshTokenGrant returns a new validated token set for the same user', async () => {
      const next = await client.refreshTokenGrant(config, tokens.refresh_token as string, {
        scope: 'openid ledger.read',
      });
      expect(next.access_token).not.toBe(tokens.access_token);
      expect(next.scope).toBe('openid ledger.read');
      expect(next.claims()?.sub).toBe(INGRID_SUB);
    });

    it('tokenIntrospection by an eligible resource server', async () => {
      const rs = await discover('ledger-api', undefined, client.ClientSecretBasic(SECRETS['ledger-api']));
      const result = await client.tokenIntrospection(rs, tokens.access_token);
      expect(result).toMatchObject({
        active: true,
        client_id: 'teller-web',
        username: 'ingrid',
        sub: INGRID_SUB,
        token_type: 'Bearer',
        nnin_altsub: '17037912345',
      });
    });

    it('fetchUserInfo with the expected subject', async () => {
      const info = await client.fetchUserInfo(config, tokens.access_token, INGRID_SUB);
      expect(info).toMatchObject({ sub: INGRID_SUB, name: 'Ingrid Fjeld', preferred_username: 'ingrid' });
    });

    it('fetchUserInfo rejects another expected subject', async () => {
      await expect(client.fetchUserInfo(config, tokens.access_token, 'someone-else')).rejects.toThrow();
    });
  });

  describe('private_key_jwt (PrivateKeyJwt)', () => {
    let config: client.Configuration;
    beforeAll(async () => {
      config = await discover('vault-signer', undefined, client.PrivateKeyJwt(await vaultSignerKey(), {}));
    });

    it('clientCredentialsGrant', async () => {
      const tokens = await client.clientCredentialsGrant(config, { scope: 'ledger.read' });
      expect(tokens.scope).toBe('ledger.read');
    });

    it('authorization code with PKCE', async () => {
      const tokens = await codeFlow(config, {
        redirect_uri: 'http://127.0.0.1:9/vault/cb',
        scope: 'openid profile',
        login_hint: 'ola',
      });
      expect(tokens.claims()).toMatchObject({
        aud: 'vault-signer',
        name: 'Ola Strand',
        preferred_username: 'ola',
      });
    });

    it('is refused with another key (invalid client assertion)', async () => {
      const { privateKey } = await crypto.subtle.generateKey(
        {
          name: 'RSASSA-PKCS1-v1_5',
          modulusLength: 2048,
          publicExponent: new Uint8Array([1, 0, 1]),
          hash: 'SHA-256',
        },
        false,
        ['sign', 'verify'],
      );
      const wrong = await discover(
        'vault-signer',
        undefined,
        client.PrivateKeyJwt({ key: privateKey, kid: 'vault-signer-2024' }),
      );
      const error = await client
        .clientCredentialsGrant(wrong, { scope: 'ledger.read' })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(client.ResponseBodyError);
      expect((error as client.ResponseBodyError).status).toBe(401);
    });
  });
});
