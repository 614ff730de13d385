// A hand-written Keycloak realm JSON with every feature mock-idp reads, served and used as Keycloak 26 is:
// openid-client 6 for the password grant and the code flow, tokens verified with jose against the JWKS.
import { fileURLToPath } from 'node:url';
import * as client from 'openid-client';
import { beforeAll, describe, expect, it } from 'vitest';
import { basic, postForm } from '../helpers/http.js';
import { verifyToken, type Claims } from '../helpers/jwt.js';
import { codeFlow } from '../helpers/openid-client.js';
import { useIdp } from '../helpers/server.js';

const ACME = fileURLToPath(new URL('../fixtures-data/keycloak/acme-realm.json', import.meta.url));
const SECRETS = {
  'web-app': 'web-secret',
  reports: 'reports-secret',
  'billing-job': 'job-secret',
  narrow: 'narrow-secret',
} as const;
const PASSWORDS = { alice: 'alice-pw', bob: 'bob-pw', dave: 'dave-pw' } as const;
const ACCOUNT_ROLES = ['manage-account', 'manage-account-links', 'view-profile'];
const DEFAULT_REALM_ROLES = ['default-roles-acme', 'offline_access', 'uma_authorization'];
/** mock-idp listens on http://; openid-client refuses that unless told otherwise. */
const insecure = { execute: [client.allowInsecureRequests] };

const idp = useIdp({ fixtures: ACME });

function discover(clientId: keyof typeof SECRETS | 'spa'): Promise<client.Configuration> {
  const auth = clientId === 'spa' ? client.None() : client.ClientSecretBasic(SECRETS[clientId]);
  return client.discovery(new URL(idp.issuer), clientId, undefined, auth, insecure);
}

/** The password grant through openid-client, as a suite written against Keycloak calls it. */
async function passwordTokens(
  clientId: keyof typeof SECRETS | 'spa',
  username: string,
  password: string,
  scope = 'openid',
): Promise<client.TokenEndpointResponse> {
  return client.genericGrantRequest(await discover(clientId), 'password', { username, password, scope });
}

/** Every token of a password grant, verified with jose against the realm's JWKS. */
async function verified(
  clientId: keyof typeof SECRETS | 'spa',
  user: keyof typeof PASSWORDS,
  scope?: string,
): Promise<{ access: Claims; id: Claims; refresh: Claims; response: client.TokenEndpointResponse }> {
  const response = await passwordTokens(clientId, user, PASSWORDS[user], scope);
  const access = (await verifyToken(idp, response.access_token)).claims;
  const id = (await verifyToken(idp, response.id_token as string, clientId)).claims;
  // The refresh token is HS256 as Keycloak's: read, not verified with the JWKS.
  const refresh = JSON.parse(
    Buffer.from((response.refresh_token as string).split('.')[1] as string, 'base64url').toString(),
  ) as Claims;
  return { access, id, refresh, response };
}

const sorted = (values: unknown): string[] => [...(values as string[])].sort();
const rolesOf = (claims: Claims): { realm: string[]; resources: Record<string, string[]> } => ({
  realm: sorted((claims['realm_access'] as { roles: string[] } | undefined)?.roles ?? []),
  resources: Object.fromEntries(
    Object.entries((claims['resource_access'] ?? {}) as Record<string, { roles: string[] }>).map(([c, r]) => [
      c,
      sorted(r.roles),
    ]),
  ),
});

describe('a Keycloak realm JSON', () => {
  it('answers the password grant as Keycloak 26: lifespans from the realm, token_type Bearer, scope from the default client scopes', async () => {
    const { response, access, id, refresh } = await verified('web-app', 'alice');
    expect(response.token_type).toBe('bearer'); // openid-client lower-cases it; the JSON says:
    const raw = await postForm<{ token_type: string }>(
      idp.endpoints.token,
      { grant_type: 'password', username: 'alice', password: 'alice-pw', scope: 'openid' },
      basic('web-app', 'web-secret'),
    );
    expect(raw.json.token_type).toBe('Bearer');
    expect(response.expires_in).toBe(120);
    expect(response['refresh_expires_in']).toBe(900);
    expect(response.scope).toBe('openid profile email');
    expect([access['typ'], id['typ'], refresh['typ']]).toEqual(['Bearer', 'ID', 'Refresh']);
    for (const claims of [access, id, refresh]) {
      expect(claims['azp']).toBe('web-app');
      expect(claims['sid']).toBe(access['sid']);
      expect(claims).not.toHaveProperty('session_state');
    }
    expect(access['scope']).toBe('openid profile email');
    expect(refresh['scope']).toBe('openid profile email');
    expect(refresh).not.toHaveProperty('realm_access');
    expect(access['allowed-origins']).toEqual(['http://localhost:3000']);
  });

  it('writes the profile and email claims: username lower-cased, email_verified false when unset, name from the names given', async () => {
    const alice = await verified('web-app', 'alice');
    const bob = await verified('web-app', 'bob');
    for (const claims of [alice.access, alice.id]) {
      expect(claims).toMatchObject({
        preferred_username: 'alice',
        email: 'alice@acme.test',
        email_verified: true,
        name: 'Alice Admin',
        given_name: 'Alice',
        family_name: 'Admin',
      });
    }
    expect(bob.access).toMatchObject({ preferred_username: 'bob', email_verified: false, name: 'Bob' });
    expect(bob.access).not.toHaveProperty('email');
    expect(bob.access).not.toHaveProperty('family_name');
    // A user's id is the `sub`.
    expect(bob.access['sub']).toBe('6a1b0c2d-3e4f-4a5b-8c6d-7e8f9a0b1c2d');
  });

  it.each([
    [
      'alice: a composite role (realm and client composites), a nested group inheriting its parents',
      'web-app',
      'alice',
      ['admin', 'auditor', 'user', ...DEFAULT_REALM_ROLES],
      { account: ACCOUNT_ROLES, billing: ['invoice-read', 'invoice-write'], reports: ['view'] },
      ['reports', 'billing', 'account', 'https://api.acme.test'],
    ],
    [
      'bob: a direct client role, a top-level group',
      'web-app',
      'bob',
      ['user', ...DEFAULT_REALM_ROLES],
      { account: ACCOUNT_ROLES, billing: ['invoice-read'] },
      ['billing', 'account', 'https://api.acme.test'],
    ],
    [
      'dave: a group whose role is a cycle of composites',
      'web-app',
      'dave',
      ['loop-a', 'loop-b', ...DEFAULT_REALM_ROLES],
      { account: ACCOUNT_ROLES },
      ['account', 'https://api.acme.test', 'billing'],
    ],
    [
      'alice at another client: the caller is not its own audience, and that client has no mappers of its own',
      'reports',
      'alice',
      ['admin', 'auditor', 'user', ...DEFAULT_REALM_ROLES],
      { account: ACCOUNT_ROLES, billing: ['invoice-read', 'invoice-write'], reports: ['view'] },
      ['billing', 'account'],
    ],
  ] as const)('%s', async (_name, clientId, user, realmRoles, resources, aud) => {
    const { access, id } = await verified(clientId, user);
    expect(rolesOf(access)).toEqual({ realm: [...realmRoles].sort(), resources });
    expect(sorted(access['aud'])).toEqual([...aud].sort());
    // Roles are the access token's: the ID token has none, and its audience is the client.
    expect(id).not.toHaveProperty('realm_access');
    expect(id['aud']).toBe(clientId);
  });

  // fullScopeAllowed false: only the roles its scope mappings (a composite brings its parts), its client
  // scopes' and its own client roles reach, as Keycloak's TokenManager keeps them; the audience follows.
  it.each([
    [
      "alice: the composite admin in scope brings its parts; reports view by a client scope mapping; uma_authorization by a client scope's",
      'alice',
      ['admin', 'auditor', 'user', 'uma_authorization'],
      { billing: ['invoice-read', 'invoice-write'], reports: ['view'] },
      ['billing', 'reports'],
    ],
    [
      'bob: only what he has of the scope',
      'bob',
      ['user', 'uma_authorization'],
      { billing: ['invoice-read'] },
      ['billing'],
    ],
  ] as const)('a client whose scope is not full, %s', async (_name, user, realmRoles, resources, aud) => {
    const { access } = await verified('narrow', user);
    expect(rolesOf(access)).toEqual({ realm: [...realmRoles].sort(), resources });
    expect(sorted([access['aud']].flat())).toEqual([...aud].sort());
  });

  it('gives a service account its roles, the default roles and the profile claims of the service-account user', async () => {
    const config = await discover('billing-job');
    const tokens = await client.clientCredentialsGrant(config);
    const { claims } = await verifyToken(idp, tokens.access_token);
    expect(rolesOf(claims)).toEqual({
      realm: ['auditor', ...DEFAULT_REALM_ROLES].sort(),
      resources: { account: ACCOUNT_ROLES, reports: ['view'] },
    });
    expect(claims).toMatchObject({
      preferred_username: 'service-account-billing-job',
      email_verified: false,
      client_id: 'billing-job',
      azp: 'billing-job',
      scope: 'profile email',
      typ: 'Bearer',
    });
    expect(sorted(claims['aud'])).toEqual(['account', 'reports']);
  });

  describe('each mapper type, as its config says', () => {
    let alice: Awaited<ReturnType<typeof verified>>;
    let userinfo: client.UserInfoResponse;
    beforeAll(async () => {
      alice = await verified('web-app', 'alice');
      const config = await discover('web-app');
      userinfo = await client.fetchUserInfo(config, alice.response.access_token, client.skipSubjectCheck);
    });
    const claimsIn = (target: 'access' | 'id' | 'userinfo'): Record<string, unknown> =>
      target === 'userinfo' ? userinfo : alice[target];

    it.each([
      [
        'oidc-usermodel-attribute-mapper, nested claim name',
        'access',
        'contact',
        { phone: '+47 400 00 001' },
      ],
      ['oidc-usermodel-attribute-mapper, userinfo', 'userinfo', 'contact', { phone: '+47 400 00 001' }],
      ['oidc-usermodel-attribute-mapper, multivalued', 'access', 'tags', ['red', 'blue']],
      ['oidc-usermodel-attribute-mapper, multivalued, not in the ID token', 'id', 'tags', undefined],
      ['oidc-usermodel-attribute-mapper, jsonType long, ID token only', 'id', 'level', 3],
      ['oidc-usermodel-attribute-mapper, ID token only', 'access', 'level', undefined],
      ['oidc-usermodel-attribute-mapper, jsonType JSON', 'access', 'settings', { theme: 'dark' }],
      ['oidc-usermodel-attribute-mapper, from a parent group', 'access', 'tier', 'gold'],
      [
        'oidc-usermodel-attribute-mapper, aggregated over groups',
        'access',
        'departments',
        ['engineering', 'staff'],
      ],
      ['oidc-usermodel-property-mapper, userinfo only', 'userinfo', 'mail', 'alice@acme.test'],
      ['oidc-usermodel-property-mapper, not in the access token', 'access', 'mail', undefined],
      ['oidc-usermodel-property-mapper (email verified)', 'id', 'email_verified', true],
      ['oidc-group-membership-mapper, full path', 'access', 'groups', ['/staff/engineering/platform']],
      ['oidc-group-membership-mapper, names only', 'id', 'group_names', ['platform']],
      [
        'oidc-group-membership-mapper, names only, not in the access token',
        'access',
        'group_names',
        undefined,
      ],
      ['oidc-hardcoded-claim-mapper, from a client scope', 'access', 'tenant', 'acme'],
      ['oidc-hardcoded-claim-mapper, in the ID token', 'id', 'tenant', 'acme'],
      ['oidc-hardcoded-claim-mapper, jsonType JSON', 'access', 'features', { beta: true }],
      [
        'oidc-hardcoded-claim-mapper, an escaped dot in the name',
        'access',
        'https://acme.test/tenant',
        'acme',
      ],
      [
        'oidc-usermodel-realm-role-mapper, with a prefix, nested',
        'access',
        'roles',
        {
          realm: [
            'realm:admin',
            'realm:default-roles-acme',
            'realm:auditor',
            'realm:user',
            'realm:offline_access',
            'realm:uma_authorization',
          ],
        },
      ],
      [
        'oidc-usermodel-client-role-mapper, one client',
        'access',
        'billing_roles',
        ['invoice-write', 'invoice-read'],
      ],
      ['oidc-script-based-protocol-mapper (not supported)', 'access', 'x', undefined],
    ] as const)('%s: %s token claim %s', (_type, target, claim, value) => {
      expect(claimsIn(target)[claim]).toEqual(value);
    });

    it('oidc-audience-mapper: a custom audience and a client audience in the access token', () => {
      expect(alice.access['aud']).toEqual(expect.arrayContaining(['https://api.acme.test', 'billing']));
    });
  });

  it('signs in through the code flow with openid-client (PKCE S256, which the client requires) and a mixed-case login_hint', async () => {
    const config = await discover('web-app');
    const nonce = client.randomNonce();
    const tokens = await codeFlow(config, {
      redirect_uri: 'http://localhost:3000/callback',
      scope: 'openid phone',
      nonce,
      login_hint: 'Alice',
    });
    expect(tokens.claims()).toMatchObject({ preferred_username: 'alice', nonce, typ: 'ID', azp: 'web-app' });
    expect(tokens.scope).toBe('openid profile email phone');
    const { claims } = await verifyToken(idp, tokens.access_token);
    expect(rolesOf(claims).realm).toContain('admin');

    // A refresh keeps the scopes, the roles and the mappers' claims.
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token as string);
    const again = (await verifyToken(idp, refreshed.access_token)).claims;
    expect(again['scope']).toBe('openid profile email phone');
    expect(rolesOf(again)).toEqual(rolesOf(claims));
    expect(again['tenant']).toBe('acme');

    const withoutPkce = await fetch(
      client.buildAuthorizationUrl(config, {
        redirect_uri: 'http://localhost:3000/callback',
        scope: 'openid',
      }),
      { redirect: 'manual' },
    );
    const refused = new URL(withoutPkce.headers.get('location') as string).searchParams;
    expect(refused.get('error')).toBe('invalid_request');
  });

  it.each([
    ['a wrong password', 'web-app', 'alice', 'nope', 401, 'invalid_grant', 'Invalid user credentials'],
    ['an unknown user', 'web-app', 'zoe', 'alice-pw', 401, 'invalid_grant', 'Invalid user credentials'],
    ['a disabled user', 'web-app', 'carol', 'carol-pw', 400, 'invalid_grant', 'Account disabled'],
  ] as const)('refuses %s', async (_name, clientId, username, password, status, error, description) => {
    const answer = await postForm(
      idp.endpoints.token,
      { grant_type: 'password', username, password },
      basic(clientId, SECRETS[clientId]),
    );
    expect(answer.status).toBe(status);
    expect(answer.json).toEqual({ error, error_description: description });
  });

  it("shows a disabled user the login page with Keycloak's words, not a code", async () => {
    const url = new URL(idp.endpoints.auth);
    url.search = new URLSearchParams({
      client_id: 'spa',
      redirect_uri: 'http://localhost:5173/callback',
      response_type: 'code',
      scope: 'openid',
      login_hint: 'carol',
    }).toString();
    const response = await fetch(url, { redirect: 'manual' });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('Account is disabled, contact your admin.');
  });

  it('lets the public client use the password grant without a secret', async () => {
    const tokens = await passwordTokens('spa', 'bob', 'bob-pw');
    const { claims } = await verifyToken(idp, tokens.access_token);
    expect(claims['azp']).toBe('spa');
    expect(claims['allowed-origins']).toEqual(['http://localhost:5173']);
    // An audience mapper that writes into the ID token only.
    expect(claims['aud']).not.toContain('spa-backend');
    const { claims: id } = await verifyToken(idp, tokens.id_token as string, 'spa');
    expect(id['aud']).toEqual(['spa', 'spa-backend']);
  });

  it('reads post.logout.redirect.uris (## separated) as the client logout redirect URIs', () => {
    expect(idp.provider.realm.clients.get('web-app')?.postLogoutRedirectUris).toEqual([
      'http://localhost:3000/bye',
      'http://localhost:3000/again',
    ]);
    // A SAML client is not served.
    expect(idp.provider.realm.clients.has('legacy-saml')).toBe(false);
  });

  it('client_credentials for a client without a service account: Keycloak 26 answers 401 and its words', async () => {
    const answer = await postForm(
      `${idp.issuer}/protocol/openid-connect/token`,
      { grant_type: 'client_credentials' },
      { authorization: basic('reports', SECRETS.reports) },
    );
    expect(answer.status).toBe(401);
    expect(answer.json).toEqual({
      error: 'unauthorized_client',
      error_description: 'Client not enabled to retrieve service account',
    });
  });

  it('logout to an unregistered post_logout_redirect_uri names what the realm file registers', async () => {
    const query = new URLSearchParams({
      client_id: 'web-app',
      post_logout_redirect_uri: 'http://evil.test/',
    });
    const answer = await fetch(`${idp.issuer}/protocol/openid-connect/logout?${query}`, {
      redirect: 'manual',
    });
    expect(answer.status).toBe(400);
    const shown = /<p class="error" id="error">([^<]*)<\/p>/.exec(await answer.text())?.[1];
    expect(shown?.replaceAll('&#34;', '"')).toBe(
      'Invalid redirect uri: post_logout_redirect_uri "http://evil.test/" is not registered for client "web-app" (client_id): it accepts "http://localhost:3000/*", "http://localhost:3000/bye", "http://localhost:3000/again"; add it to redirectUris or to the attribute "post.logout.redirect.uris" (URIs joined by ##) of this client in the realm file',
    );
  });
});
