// hostnameBackchannelDynamic (`--hostname-backchannel-dynamic`): with a fixed issuer, discovery names the
// browser-facing endpoints under the issuer and the back-channel ones under the request's own origin, as
// Keycloak does; tokens keep the issuer as `iss`, client assertions may name either token endpoint, and the
// device authorization answer's verification_uri (a browser opens it) is under the issuer.
import { describe, expect, it } from 'vitest';
import { clientCredentials } from '../helpers/flows.js';
import { DEVICE_CODE, grantsFixtures } from '../helpers/grants.js';
import { get, postForm } from '../helpers/http.js';
import { ASSERTION_TYPE, clientAssertion, decode } from '../helpers/jwt.js';
import { runBin } from '../helpers/cli.js';
import { FJORD_FIXTURES, idpAt, useCliPerTest, useIdp } from '../helpers/server.js';

const ISSUER = 'https://idp.fjord.test/realms/fjord';

/** Each discovery field, and whether a browser (front) or a server (back) calls it. */
const FIELDS: [string, 'front' | 'back', string][] = [
  ['authorization_endpoint', 'front', '/protocol/openid-connect/auth'],
  ['end_session_endpoint', 'front', '/protocol/openid-connect/logout'],
  ['check_session_iframe', 'front', '/protocol/openid-connect/login-status-iframe.html'],
  ['token_endpoint', 'back', '/protocol/openid-connect/token'],
  ['introspection_endpoint', 'back', '/protocol/openid-connect/token/introspect'],
  ['token_introspection_endpoint', 'back', '/protocol/openid-connect/token/introspect'],
  ['userinfo_endpoint', 'back', '/protocol/openid-connect/userinfo'],
  ['revocation_endpoint', 'back', '/protocol/openid-connect/revoke'],
  ['jwks_uri', 'back', '/protocol/openid-connect/certs'],
  ['pushed_authorization_request_endpoint', 'back', '/protocol/openid-connect/ext/par/request'],
  ['registration_endpoint', 'back', '/clients-registrations/openid-connect'],
  ['device_authorization_endpoint', 'back', '/protocol/openid-connect/auth/device'],
  ['backchannel_authentication_endpoint', 'back', '/protocol/openid-connect/ext/ciba/auth'],
];

describe('hostnameBackchannelDynamic with a fixed issuer', () => {
  const idp = useIdp({ issuer: ISSUER, hostnameBackchannelDynamic: true });
  /** The realm base URL as a service in another network reaches it (here: localhost instead of 127.0.0.1). */
  const reached = (): string => `${idp.url.replace('127.0.0.1', 'localhost')}/realms/fjord`;

  it('every URL field of discovery is covered by the table below', async () => {
    const { json } = await get(`${reached()}/.well-known/openid-configuration`);
    const urlFields = Object.entries(json)
      .filter(([name, value]) => name !== 'issuer' && typeof value === 'string' && /^https?:/.test(value))
      .map(([name]) => name);
    expect(urlFields.sort()).toEqual(FIELDS.map(([name]) => name).sort());
  });

  it.each(FIELDS)('%s is a %s-channel URL', async (field, channel, path) => {
    for (const base of [reached(), `${idp.url}/realms/fjord`]) {
      const { json } = await get(`${base}/.well-known/openid-configuration`);
      expect(json['issuer']).toBe(ISSUER);
      expect(json[field]).toBe(`${channel === 'front' ? ISSUER : base}${path}`);
    }
  });

  it('a token from the back-channel token endpoint names the issuer', async () => {
    const token = await clientCredentials(idpAt(reached()), 'ledger.read');
    expect(token.status).toBe(200);
    expect(decode(token.json.access_token).claims['iss']).toBe(ISSUER);
  });

  it.each([
    ['the issuer', () => ISSUER],
    ["the issuer's token endpoint", () => `${ISSUER}/protocol/openid-connect/token`],
    ['the token endpoint discovery named', () => `${reached()}/protocol/openid-connect/token`],
  ])('a client assertion may name %s', async (_name, audience) => {
    const assertion = await clientAssertion(idpAt(reached()), { audience: audience() });
    const { status, text } = await postForm(`${reached()}/protocol/openid-connect/token`, {
      grant_type: 'client_credentials',
      client_assertion_type: ASSERTION_TYPE,
      client_assertion: assertion,
    });
    expect(status, text).toBe(200);
  });

  // The device and CIBA endpoints are back-channel ones: an assertion may name the URL discovery gave.
  it.each([
    ['device_authorization_endpoint', { scope: 'openid' }],
    ['backchannel_authentication_endpoint', { scope: 'openid', login_hint: 'ingrid' }],
  ])('a client assertion may name the %s discovery named', async (field, body) => {
    const endpoint = String((await get(`${reached()}/.well-known/openid-configuration`)).json[field]);
    expect(endpoint.startsWith(reached())).toBe(true);
    const assertion = await clientAssertion(idpAt(reached()), { audience: endpoint });
    const { status, json } = await postForm(endpoint, {
      ...body,
      client_assertion_type: ASSERTION_TYPE,
      client_assertion: assertion,
    });
    // Authenticated: refused only because vault-signer does not list the grant.
    expect(status, JSON.stringify(json)).toBe(400);
    expect(json['error']).toBe('unauthorized_client');
  });

  it('a client assertion for another host is refused', async () => {
    const assertion = await clientAssertion(idpAt(reached()), {
      audience: 'http://elsewhere.test/realms/fjord/protocol/openid-connect/token',
    });
    const { status, json } = await postForm(`${reached()}/protocol/openid-connect/token`, {
      grant_type: 'client_credentials',
      client_assertion_type: ASSERTION_TYPE,
      client_assertion: assertion,
    });
    expect(status).toBe(401);
    expect(json['error']).toBe('unauthorized_client');
  });
});

describe('hostnameBackchannelDynamic: the device authorization answer', () => {
  const idp = useIdp(() => ({
    issuer: ISSUER,
    hostnameBackchannelDynamic: true,
    fixtures: grantsFixtures({
      'tv-box': { authMethods: ['none'], grants: [DEVICE_CODE], scopes: ['openid'] },
    }),
  }));

  // The device endpoint is back-channel, but the user opens verification_uri in a browser: the issuer's.
  it.each([
    ['another origin (localhost)', () => `${idp.url.replace('127.0.0.1', 'localhost')}/realms/fjord`],
    ['the listening origin', () => `${idp.url}/realms/fjord`],
  ])('reached at %s, names the /device page under the issuer', async (_name, base) => {
    const endpoint = String(
      (await get(`${base()}/.well-known/openid-configuration`)).json['device_authorization_endpoint'],
    );
    expect(endpoint).toBe(`${base()}/protocol/openid-connect/auth/device`);
    const { status, json, text } = await postForm(endpoint, { client_id: 'tv-box', scope: 'openid' });
    expect(status, text).toBe(200);
    expect(json['verification_uri']).toBe(`${ISSUER}/device`);
    expect(json['verification_uri_complete']).toBe(`${ISSUER}/device?user_code=${String(json['user_code'])}`);
  });
});

describe('without it, a fixed issuer names every endpoint', () => {
  const idp = useIdp({ issuer: ISSUER });
  it.each(FIELDS)('%s is under the issuer', async (field, _channel, path) => {
    const { json } = await get(`${idp.url}/realms/fjord/.well-known/openid-configuration`);
    expect(json[field]).toBe(`${ISSUER}${path}`);
  });
});

describe('--hostname-backchannel-dynamic and KC_HOSTNAME_BACKCHANNEL_DYNAMIC', () => {
  const serve = useCliPerTest(['serve', '--host', '127.0.0.1', '--port', '0', '--fixtures', FJORD_FIXTURES]);
  const tokenEndpoint = async (base: string): Promise<unknown> =>
    (await get(`${base}/.well-known/openid-configuration`)).json['token_endpoint'];

  it.each<[string, string[], Record<string, string>, 'request' | 'issuer']>([
    ['the flag', ['--hostname-backchannel-dynamic'], {}, 'request'],
    ['the flag with =true', ['--hostname-backchannel-dynamic=true'], {}, 'request'],
    ['the flag with =false', ['--hostname-backchannel-dynamic=false'], {}, 'issuer'],
    ['KC_HOSTNAME_BACKCHANNEL_DYNAMIC=true', [], { KC_HOSTNAME_BACKCHANNEL_DYNAMIC: 'true' }, 'request'],
    ['KC_HOSTNAME_BACKCHANNEL_DYNAMIC=false', [], { KC_HOSTNAME_BACKCHANNEL_DYNAMIC: 'false' }, 'issuer'],
  ])('%s: the token endpoint follows the %s', async (_name, args, env, follows) => {
    const s = await serve(['--issuer', ISSUER, ...args], env);
    const base = s.base.replace(/ .*$/, '');
    expect(await tokenEndpoint(base)).toBe(
      `${follows === 'request' ? base : ISSUER}/protocol/openid-connect/token`,
    );
  });

  it('without a fixed issuer it does nothing, and says so', async () => {
    const s = await serve(['--hostname-backchannel-dynamic']);
    await s.waitFor('stderr', (text) => text.includes('does nothing without a fixed issuer'));
    expect(await tokenEndpoint(s.base)).toBe(`${s.base}/protocol/openid-connect/token`);
  });

  it('a value that is not true or false is refused', async () => {
    const result = await runBin(['serve', '--port', '0', '--hostname-backchannel-dynamic=yes please']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      "error: option '--hostname-backchannel-dynamic [bool]' argument 'yes please' is invalid. true or false.",
    );
  });
});
