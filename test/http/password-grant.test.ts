// grant_type=password (direct access grants): per client, users.{u}.password; Keycloak's answers for bad credentials.
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import type { FixturesInput } from '../../src/fixtures/schema.js';
import { basic, postForm } from '../helpers/http.js';
import { useIdp } from '../helpers/server.js';

const FIXTURES: FixturesInput = {
  realm: 'direct',
  clients: {
    cli: { secret: 'cli-secret', grants: ['password', 'refresh_token'] },
    'public-cli': { authMethods: ['none'], grants: ['password'] },
    web: { secret: 'web-secret', redirectUris: ['http://web.test/cb'] },
    api: { secret: 'api-secret', grants: [] },
  },
  users: {
    kari: { password: 'kari-pass ø', claims: { name: 'Kari Nordmann' } },
    nils: { claims: { name: 'Nils Uten Passord' } },
  },
};

const idp = useIdp({ fixtures: FIXTURES });
let jwks: ReturnType<typeof createLocalJWKSet>;
beforeAll(async () => {
  jwks = createLocalJWKSet((await (await fetch(idp.endpoints.certs)).json()) as JSONWebKeySet);
});

const CLI = basic('cli', 'cli-secret');
const password = (form: Record<string, string>, authorization = CLI) =>
  postForm<Record<string, string>>(
    idp.endpoints.token,
    { grant_type: 'password', ...form },
    { authorization },
  );

describe('grant_type=password', () => {
  it('signs the user in: access, refresh and (with openid) ID token, a session of its own', async () => {
    const answer = await password({ username: 'kari', password: 'kari-pass ø', scope: 'openid profile' });
    expect(answer.status, answer.text).toBe(200);
    const { payload } = await jwtVerify(answer.json['id_token'] ?? '', jwks, {
      issuer: idp.issuer,
      audience: 'cli',
    });
    expect(payload).toMatchObject({
      preferred_username: 'kari',
      name: 'Kari Nordmann',
      sid: answer.json['sid'],
    });
    expect(answer.text).not.toContain('kari-pass');
    const refreshed = await postForm(
      idp.endpoints.token,
      { grant_type: 'refresh_token', refresh_token: answer.json['refresh_token'] ?? '' },
      { authorization: CLI },
    );
    expect(refreshed.status, refreshed.text).toBe(200);
  });

  it('a public client that lists the grant may use it', async () => {
    const answer = await postForm(idp.endpoints.token, {
      grant_type: 'password',
      client_id: 'public-cli',
      username: 'kari',
      password: 'kari-pass ø',
    });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json['id_token']).toBeUndefined();
  });

  it.each([
    ['a wrong password', { username: 'kari', password: 'nope' }],
    ['an unknown user', { username: 'nobody', password: 'kari-pass ø' }],
    ['a user without a password', { username: 'nils', password: '' + 'anything' }],
    ['a prototype name as user', { username: 'constructor', password: 'x' }],
  ])('%s: 401 invalid_grant "Invalid user credentials" (one answer for all)', async (_name, form) => {
    const answer = await password(form);
    expect(answer.status).toBe(401);
    expect(answer.json).toEqual({ error: 'invalid_grant', error_description: 'Invalid user credentials' });
  });

  it.each([
    ['no username', { password: 'x' }, 400, 'invalid_request'],
    ['no password', { username: 'kari' }, 400, 'invalid_request'],
  ])('%s: %i %s', async (_name, form, status, error) => {
    const answer = await password(form);
    expect(answer.status).toBe(status);
    expect(answer.json['error']).toBe(error);
  });

  it.each([
    [
      'web',
      'web-secret',
      "(grants: authorization_code, refresh_token); add password to the client's grants in the fixtures (clients.web.grants: [authorization_code, refresh_token, password])",
    ],
    [
      'api',
      'api-secret',
      "(grants: none); add password to the client's grants in the fixtures (clients.api.grants: [password])",
    ],
  ])(
    'client %s does not list the grant: 400 unauthorized_client, saying how to allow it',
    async (id, secret, hint) => {
      const answer = await password({ username: 'kari', password: 'kari-pass ø' }, basic(id, secret));
      expect(answer.status).toBe(400);
      expect(answer.json).toEqual({
        error: 'unauthorized_client',
        error_description: `Client not allowed for direct access grants: client "${id}" does not list password ${hint}`,
      });
    },
  );
});
