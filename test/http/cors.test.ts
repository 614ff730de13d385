// CORS as Keycloak's web origins: a client's registered origins may call the realm from a browser;
// discovery and the JWKS answer any origin; other origins get no CORS headers.
import { describe, expect, it } from 'vitest';
import { useIdp } from '../helpers/server.js';

const idp = useIdp();

describe('CORS', () => {
  it.each([
    ['token', 'http://kiosk.fjord.test', 'http://kiosk.fjord.test'],
    ['token', 'http://app.fjord.test', 'http://app.fjord.test'],
    ['userinfo', 'http://kiosk.fjord.test', 'http://kiosk.fjord.test'],
    ['token', 'http://evil.test', null],
    ['discovery', 'http://evil.test', '*'],
    ['certs', 'http://evil.test', '*'],
  ] as const)('preflight to %s from %s allows %s', async (endpoint, origin, allowed) => {
    const response = await fetch(idp.endpoints[endpoint], {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization',
      },
    });
    expect(response.headers.get('access-control-allow-origin')).toBe(allowed);
    if (allowed !== null) {
      expect(response.status).toBe(204);
      expect(response.headers.get('access-control-allow-headers')).toContain('Authorization');
    }
  });

  it('lets a registered origin read a token response', async () => {
    const response = await fetch(idp.endpoints.token, {
      method: 'POST',
      headers: { origin: 'http://kiosk.fjord.test', 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials&client_id=kiosk-spa',
    });
    expect(response.headers.get('access-control-allow-origin')).toBe('http://kiosk.fjord.test');
    expect(response.headers.get('vary')).toContain('Origin');
  });

  it('adds nothing without an Origin header', async () => {
    const response = await fetch(idp.endpoints.discovery);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });
});
