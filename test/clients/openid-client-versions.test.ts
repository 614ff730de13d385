// openid-client v6 through the code flow under interface versions 1 and 2: ID token, refresh and userinfo.
import * as client from 'openid-client';
import { describe, expect, it } from 'vitest';
import { SECRETS } from '../helpers/flows.js';
import { decode } from '../helpers/jwt.js';
import { codeFlow } from '../helpers/openid-client.js';
import { useIdp } from '../helpers/server.js';

const INGRID_SUB = '7f3e2a10-5b6c-4d7e-8f90-a1b2c3d4e5f6';
const insecure = { execute: [client.allowInsecureRequests] };

const idp = useIdp();

describe.each([
  ['1', undefined, 'BID'],
  ['2', 2, ['bid']],
] as const)('openid-client, api_version=%s', (apiVersion, apiVer, amr) => {
  it('code flow with PKCE and nonce, refresh and userinfo in the same version', async () => {
    const config = await client.discovery(
      new URL(idp.issuer),
      'teller-web',
      SECRETS['teller-web'],
      undefined,
      insecure,
    );
    const tokens = await codeFlow(config, {
      redirect_uri: 'http://app.fjord.test/cb',
      scope: 'openid profile',
      login_hint: 'ingrid',
      api_version: apiVersion,
    });
    // openid-client verified the ID token's signature, iss, aud, nonce and times.
    const claims = tokens.claims();
    expect(claims).toMatchObject({ sub: INGRID_SUB, acr: 'urn:idp:bid;LOA=4', amr });
    expect(claims?.['api_ver']).toBe(apiVer);
    expect(decode(tokens.access_token).claims['api_ver']).toBe(apiVer);

    const next = await client.refreshTokenGrant(config, tokens.refresh_token as string);
    expect(next.claims()).toMatchObject({ sub: INGRID_SUB, amr });
    expect(next.claims()?.['api_ver']).toBe(apiVer);
    expect(decode(next.access_token).claims['api_ver']).toBe(apiVer);

    const info = await client.fetchUserInfo(config, next.access_token, INGRID_SUB);
    expect(info).toMatchObject({ sub: INGRID_SUB, name: 'Ingrid Fjeld' });
  });
});
