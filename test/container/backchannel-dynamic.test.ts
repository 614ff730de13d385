// MockIdpContainer.withHostnameBackchannelDynamic(): the server's command line checked without Docker; in
// Docker, a fixed issuer on another host, and the back-channel URLs where the test process reached it.
import { describe, expect, it } from 'vitest';
import { MockIdpContainer } from '../../src/testcontainers/index.js';
import { decode } from '../helpers/jwt.js';
import { containerTestsSkipReason, skipContainerTests, useContainer } from './docker.js';

const ISSUER = 'http://idp.example.test/realms/mock';

describe('MockIdpContainer.withHostnameBackchannelDynamic', () => {
  it('serve --hostname-backchannel-dynamic, beside the fixed issuer', async () => {
    const container = new MockIdpContainer().withIssuer(ISSUER).withHostnameBackchannelDynamic();
    const args = await (container as unknown as { cliArguments(): Promise<string[]> }).cliArguments();
    expect(args).toEqual(['serve', '--issuer', ISSUER, '--hostname-backchannel-dynamic']);
  });
});

describe.skipIf(skipContainerTests)(
  `MockIdpContainer.withHostnameBackchannelDynamic in Docker ${containerTestsSkipReason ?? ''}`,
  () => {
    const idp = useContainer(() =>
      new MockIdpContainer().withIssuer(ISSUER).withHostnameBackchannelDynamic().start(),
    );

    it('discovery names the token endpoint and JWKS where the test reached it; iss stays the issuer', async () => {
      const discovery = (await (await fetch(idp.getDiscoveryUrl())).json()) as Record<string, unknown>;
      expect(discovery['issuer']).toBe(ISSUER);
      expect(discovery['authorization_endpoint']).toBe(`${ISSUER}/protocol/openid-connect/auth`);
      expect(discovery['token_endpoint']).toBe(idp.getTokenEndpoint());
      expect(discovery['jwks_uri']).toBe(idp.getJwksUri());
      const token = await idp.getTokenResponse({ client: 'batch-job' });
      expect(decode(token.access_token).claims['iss']).toBe(ISSUER);
    });
  },
);
