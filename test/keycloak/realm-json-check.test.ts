// A realm JSON's mistakes at FILE:LINE:COL from `mock-idp check` and at start; what it cannot honour named
// once on stderr at start.
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, runBin, startServe } from '../helpers/cli.js';
import { tempDir } from '../helpers/files.js';

const ACME = fileURLToPath(new URL('../fixtures-data/keycloak/acme-realm.json', import.meta.url));

const BROKEN = [
  {
    name: 'a JSON syntax error (a missing comma)',
    file: 'syntax.json',
    text: '{\n  "realm": "broken",\n  "clients": [\n    { "clientId": "a" }\n    { "clientId": "b" }\n  ]\n}\n',
    lines: ['syntax.json:5:5 Missing , or : between flow sequence items'],
  },
  {
    name: 'values of the wrong type',
    file: 'types.json',
    text: [
      '{',
      '  "realm": "typos",',
      '  "users": [',
      '    { "username": "ann", "enabled": "yes" }',
      '  ],',
      '  "clients": [',
      '    { "clientId": "web", "redirectUris": "http://localhost/cb" }',
      '  ]',
      '}',
      '',
    ].join('\n'),
    lines: [
      'types.json:4:37 "users.0.enabled": Invalid input: expected boolean, received string',
      'types.json:7:42 "clients.0.redirectUris": Invalid input: expected array, received string',
    ],
  },
  {
    // Keycloak (Jackson) refuses such a file; YAML's flow style would read it.
    name: 'a trailing comma',
    file: 'commas.json',
    text: '{\n  "realm": "commas",\n  "clients": [\n    { "clientId": "a" },\n  ]\n}\n',
    lines: ['commas.json:4:24 trailing comma before ]: JSON allows no comma after the last item'],
  },
  {
    name: 'a role without a name, in a realm JSON text not named .json',
    file: 'realm.txt',
    text: '{ "realm": "nameless",\n  "roles": { "realm": [ { "description": "no name" } ] } }\n',
    lines: ['realm.txt:2:25 "roles.realm.0.name": Invalid input: expected string, received undefined'],
  },
  // Fields Keycloak's representations do not have: `kc.sh import` refuses the file ("Unrecognized field").
  {
    name: 'a misspelled client field',
    file: 'client-field.json',
    text: '{\n  "realm": "typos",\n  "clients": [\n    { "clientId": "cli", "directAccessGrantEnabled": true }\n  ]\n}\n',
    lines: [
      'client-field.json:4:26 "clients.0.directAccessGrantEnabled": a client has no field "directAccessGrantEnabled" (did you mean "directAccessGrantsEnabled"?); Keycloak refuses to import a realm with a field it does not know',
    ],
  },
  {
    name: 'a misspelled user field',
    file: 'user-field.json',
    text: '{\n  "realm": "typos",\n  "users": [\n    { "username": "ann", "emailVerfied": true }\n  ]\n}\n',
    lines: [
      'user-field.json:4:26 "users.0.emailVerfied": a user has no field "emailVerfied" (did you mean "emailVerified"?); Keycloak refuses to import a realm with a field it does not know',
    ],
  },
  {
    name: 'a misspelled realm field',
    file: 'realm-field.json',
    text: '{\n  "realm": "typos",\n  "acessTokenLifespan": 60,\n  "users": []\n}\n',
    lines: [
      'realm-field.json:3:3 "acessTokenLifespan": a realm has no field "acessTokenLifespan" (did you mean "accessTokenLifespan"?); Keycloak refuses to import a realm with a field it does not know',
    ],
  },
  {
    name: 'a misspelled authentication flow field',
    file: 'flow-field.json',
    text: [
      '{',
      '  "realm": "flows",',
      '  "authenticationFlows": [',
      '    { "alias": "browser-mfa", "providerId": "basic-flow", "topLevl": true }',
      '  ]',
      '}',
      '',
    ].join('\n'),
    lines: [
      'flow-field.json:4:59 "authenticationFlows.0.topLevl": an authentication flow has no field "topLevl" (did you mean "topLevel"?); Keycloak refuses to import a realm with a field it does not know',
    ],
  },
  {
    name: "a misspelled field of an authentication flow's execution",
    file: 'execution-field.json',
    text: [
      '{',
      '  "realm": "flows",',
      '  "authenticationFlows": [',
      '    { "alias": "browser-mfa", "authenticationExecutions": [',
      '      { "authenticator": "auth-cookie", "requirment": "ALTERNATIVE" }',
      '    ] }',
      '  ]',
      '}',
      '',
    ].join('\n'),
    lines: [
      'execution-field.json:5:41 "authenticationFlows.0.authenticationExecutions.0.requirment": an authentication flow\'s execution has no field "requirment" (did you mean "requirement"?); Keycloak refuses to import a realm with a field it does not know',
    ],
  },
  {
    name: 'a misspelled authenticator configuration field',
    file: 'authenticator-config-field.json',
    text: [
      '{',
      '  "realm": "flows",',
      '  "authenticatorConfig": [',
      '    { "alias": "otp-config", "confg": { "otp.length": "6" } }',
      '  ]',
      '}',
      '',
    ].join('\n'),
    lines: [
      'authenticator-config-field.json:4:30 "authenticatorConfig.0.confg": an authenticator\'s configuration has no field "confg" (did you mean "config"?); Keycloak refuses to import a realm with a field it does not know',
    ],
  },
  {
    name: 'a misspelled field of a sub-component',
    file: 'component-field.json',
    text: [
      '{',
      '  "realm": "ldap",',
      '  "components": {',
      '    "org.keycloak.storage.UserStorageProvider": [',
      '      { "name": "ldap", "providerId": "ldap", "subComponents": {',
      '        "org.keycloak.storage.ldap.mappers.LDAPStorageMapper": [',
      '          { "name": "email", "providerID": "user-attribute-ldap-mapper", "config": {} }',
      '        ]',
      '      } }',
      '    ]',
      '  }',
      '}',
      '',
    ].join('\n'),
    lines: [
      'component-field.json:7:30 "components.org.keycloak.storage.UserStorageProvider.0.subComponents.org.keycloak.storage.ldap.mappers.LDAPStorageMapper.0.providerID": a component has no field "providerID" (did you mean "providerId"?); Keycloak refuses to import a realm with a field it does not know',
    ],
  },
  {
    name: 'a misspelled identity provider field',
    file: 'identity-provider-field.json',
    text: [
      '{',
      '  "realm": "brokers",',
      '  "identityProviders": [',
      '    { "alias": "github", "providerId": "github", "trustEmails": true }',
      '  ]',
      '}',
      '',
    ].join('\n'),
    lines: [
      'identity-provider-field.json:4:50 "identityProviders.0.trustEmails": an identity provider has no field "trustEmails" (did you mean "trustEmail"?); Keycloak refuses to import a realm with a field it does not know',
    ],
  },
  {
    name: 'a misspelled identity provider mapper field',
    file: 'identity-provider-mapper-field.json',
    text: [
      '{',
      '  "realm": "brokers",',
      '  "identityProviderMappers": [',
      '    { "name": "source", "identityProviderAlias": "github", "identityProviderMaper": "hardcoded-attribute-idp-mapper" }',
      '  ]',
      '}',
      '',
    ].join('\n'),
    lines: [
      'identity-provider-mapper-field.json:4:60 "identityProviderMappers.0.identityProviderMaper": an identity provider\'s mapper has no field "identityProviderMaper" (did you mean "identityProviderMapper"?); Keycloak refuses to import a realm with a field it does not know',
    ],
  },
  {
    name: 'a misspelled required action field',
    file: 'required-action-field.json',
    text: [
      '{',
      '  "realm": "actions",',
      '  "requiredActions": [',
      '    { "alias": "CONFIGURE_TOTP", "providerId": "CONFIGURE_TOTP", "enabled": true, "defaultActon": false }',
      '  ]',
      '}',
      '',
    ].join('\n'),
    lines: [
      'required-action-field.json:4:83 "requiredActions.0.defaultActon": a required action has no field "defaultActon" (did you mean "defaultAction"?); Keycloak refuses to import a realm with a field it does not know',
    ],
  },
  {
    name: "a misspelled field of a user's federated identity",
    file: 'federated-identity-field.json',
    text: [
      '{',
      '  "realm": "brokers",',
      '  "users": [',
      '    { "username": "ann", "federatedIdentities": [ { "identityProvider": "github", "userId": "42", "username": "ann" } ] }',
      '  ]',
      '}',
      '',
    ].join('\n'),
    lines: [
      'federated-identity-field.json:4:99 "users.0.federatedIdentities.0.username": a user\'s federated identity has no field "username" (did you mean "userName"?); Keycloak refuses to import a realm with a field it does not know',
    ],
  },
  {
    name: 'a misspelled client scope mapping field',
    file: 'client-scope-mapping-field.json',
    text: [
      '{',
      '  "realm": "mappings",',
      '  "clientScopeMappings": {',
      '    "account": [ { "client": "web", "role": ["manage-account"] } ]',
      '  }',
      '}',
      '',
    ].join('\n'),
    lines: [
      'client-scope-mapping-field.json:4:37 "clientScopeMappings.account.0.role": a scope mapping has no field "role" (did you mean "roles"?); Keycloak refuses to import a realm with a field it does not know',
    ],
  },
];

/** What Keycloak reads past (with a line in its log): warned of, and the file still loads. */
const WARNED = [
  {
    name: 'a client scope a client names and the realm does not define',
    file: 'scope.json',
    text: [
      '{',
      '  "realm": "scopes",',
      '  "clientScopes": [ { "name": "reports", "protocol": "openid-connect" } ],',
      '  "clients": [',
      '    { "clientId": "web", "defaultClientScopes": ["email", "report"], "optionalClientScopes": ["nosuchscope"] }',
      '  ]',
      '}',
      '',
    ].join('\n'),
    lines: [
      'scope.json:5:59 warning: "clients.0.defaultClientScopes.1": client "web" names the client scope "report", which the realm does not define (did you mean "reports"?); Keycloak leaves it out, and so does mock-idp (the realm\'s client scopes: acr, address, basic, email, microprofile-jwt, offline_access, organization, phone, profile, reports, roles, web-origins)',
      'scope.json:5:95 warning: "clients.0.optionalClientScopes.0": client "web" names the client scope "nosuchscope", which the realm does not define; Keycloak leaves it out, and so does mock-idp (the realm\'s client scopes: acr, address, basic, email, microprofile-jwt, offline_access, organization, phone, profile, reports, roles, web-origins)',
    ],
  },
  {
    name: 'a misspelled client scope field (Keycloak ignores unknown fields there)',
    file: 'scope-field.json',
    text: '{\n  "realm": "scopes",\n  "clientScopes": [\n    { "name": "reports", "descripton": "Reports" }\n  ]\n}\n',
    lines: [
      'scope-field.json:4:26 warning: "clientScopes.0.descripton": a client scope has no field "descripton" (did you mean "description"?); Keycloak ignores it, and so does mock-idp',
    ],
  },
  {
    name: "a misspelled field of a user's consent (Keycloak ignores unknown fields there)",
    file: 'consent-field.json',
    text: [
      '{',
      '  "realm": "consents",',
      '  "users": [',
      '    { "username": "ann", "clientConsents": [ { "clientId": "web", "grantedClientScope": ["email"] } ] }',
      '  ]',
      '}',
      '',
    ].join('\n'),
    lines: [
      'consent-field.json:4:67 warning: "users.0.clientConsents.0.grantedClientScope": a user\'s consent has no field "grantedClientScope" (did you mean "grantedClientScopes"?); Keycloak ignores it, and so does mock-idp',
    ],
  },
  {
    name: 'a misspelled client policy field (Keycloak then reads no client policy)',
    file: 'policy-field.json',
    text: [
      '{',
      '  "realm": "policies",',
      '  "clientPolicies": {',
      '    "policies": [ { "name": "strict", "conditions": [ { "condition": "client-roles", "configurtion": { "roles": ["x"] } } ] } ]',
      '  }',
      '}',
      '',
    ].join('\n'),
    lines: [
      'policy-field.json:4:86 warning: "clientPolicies.policies.0.conditions.0.configurtion": a client policy\'s condition has no field "configurtion" (did you mean "configuration"?); Keycloak then reads none of the realm\'s client policies (it logs "Failed to deserialize client policies"), and mock-idp does not apply them',
    ],
  },
  {
    name: 'a misspelled client profile field (Keycloak then reads no client profile)',
    file: 'profile-field.json',
    text: [
      '{',
      '  "realm": "policies",',
      '  "clientProfiles": {',
      '    "profiles": [ { "name": "fapi", "executor": [] } ]',
      '  }',
      '}',
      '',
    ].join('\n'),
    lines: [
      'profile-field.json:4:37 warning: "clientProfiles.profiles.0.executor": a client profile has no field "executor" (did you mean "executors"?); Keycloak then reads none of the realm\'s client profiles (it logs "Failed to deserialize client profiles"), and mock-idp does not apply them',
    ],
  },
];

describe('a realm JSON with mistakes', () => {
  const tmp = tempDir();
  beforeAll(() => {
    ensureBuilt();
    for (const { file, text } of BROKEN) writeFileSync(join(tmp.dir, file), text);
  });
  afterAll(() => tmp.remove());
  const shown = (stderr: string): string[] =>
    stderr
      .trimEnd()
      .split('\n')
      .map((l) => l.replace(`${tmp.dir}/`, ''));

  it.each(BROKEN)('mock-idp check names $name at its line and column', async ({ file, lines }) => {
    const result = await runBin(['check', join(tmp.dir, file)]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(shown(result.stderr)).toEqual(lines);
  });

  it.each(BROKEN)(
    'mock-idp serve refuses $name before it listens, with the same lines',
    async ({ file, lines }) => {
      const result = await runBin(['serve', '--port', '0', '--fixtures', join(tmp.dir, file)]);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(shown(result.stderr)).toEqual(lines);
    },
  );
});

describe('a realm JSON with what Keycloak reads past', () => {
  const tmp = tempDir();
  beforeAll(() => {
    ensureBuilt();
    for (const { file, text } of WARNED) writeFileSync(join(tmp.dir, file), text);
  });
  afterAll(() => tmp.remove());
  const shown = (text: string): string[] =>
    text
      .trimEnd()
      .split('\n')
      .map((l) => l.replace(`${tmp.dir}/`, ''));

  it.each(WARNED)(
    'mock-idp check warns of $name at its line and column, and passes',
    async ({ file, lines }) => {
      const result = await runBin(['check', join(tmp.dir, file)]);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      const out = shown(result.stdout);
      expect(out.slice(0, -1)).toEqual(lines);
      expect(out.at(-1)).toMatch(new RegExp(`^${file}: OK `));
    },
  );

  it.each(WARNED)(
    'mock-idp serve logs $name as a warning at start, and serves',
    async ({ file, text, lines }) => {
      const serve = await startServe(['--port', '0', '--fixtures', join(tmp.dir, file)]);
      try {
        expect(serve.ready).toMatch(new RegExp(`/realms/${(JSON.parse(text) as { realm: string }).realm}$`));
        expect(shown(serve.stderr())).toEqual(lines);
      } finally {
        await serve.stop();
      }
    },
  );
});

/**
 * Maps whose keys are the realm's own (attributes, config, headers, texts): never walked for fields, so a key
 * that looks like a typo of a field there is taken as it is.
 */
const FREE_KEYS = {
  realm: 'free',
  attributes: { frontendUrl: 'http://localhost', directAccessGrantEnabled: 'x' },
  smtpServer: { host: 'smtp.local', fromm: 'x' },
  browserSecurityHeaders: { xFrameOptions: 'DENY', contentSecurityPolicyy: 'x' },
  localizationTexts: { en: { greeting: 'Hi' } },
  roles: { realm: [{ name: 'r', attributes: { descripton: ['x'] } }] },
  groups: [{ name: 'g', attributes: { nmae: ['x'] } }],
  users: [{ username: 'ann', attributes: { emailVerfied: ['x'] } }],
  clients: [
    {
      clientId: 'web',
      attributes: { 'pkce.code.challenge.method': 'S256', publicClinet: 'x' },
      protocolMappers: [{ name: 'm', protocolMapper: 'oidc-hardcoded-claim-mapper', config: { nmae: 'x' } }],
    },
  ],
  authenticatorConfig: [{ alias: 'c', config: { confg: 'x' } }],
  components: {
    'org.keycloak.keys.KeyProvider': [
      {
        name: 'rsa',
        providerId: 'rsa-generated',
        subComponents: {},
        config: { priority: ['100'], providerID: ['x'] },
      },
    ],
  },
  identityProviders: [{ alias: 'github', providerId: 'github', config: { clientId: 'x', trustEmails: 'x' } }],
  identityProviderMappers: [{ name: 'm', identityProviderAlias: 'github', config: { attribute: 'x' } }],
  requiredActions: [{ alias: 'TERMS_AND_CONDITIONS', config: { defaultActon: 'x' } }],
  clientPolicies: {
    policies: [{ name: 'p', conditions: [{ condition: 'client-roles', configuration: { rolez: ['x'] } }] }],
  },
  clientProfiles: {
    profiles: [
      { name: 'f', executors: [{ executor: 'pkce-enforcer', configuration: { 'auto-configure': true } }] },
    ],
  },
};

describe('a realm JSON with maps of free keys', () => {
  const tmp = tempDir();
  afterAll(() => tmp.remove());
  beforeAll(() => ensureBuilt());

  it('passes mock-idp check without a warning, however their keys are spelled', async () => {
    const file = join(tmp.dir, 'free.json');
    writeFileSync(file, JSON.stringify(FREE_KEYS, null, 2));
    const result = await runBin(['check', file]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout.trimEnd().split('\n')).toEqual([
      // (What mock-idp does not offer is said, as at start: not a warning about the file.)
      expect.stringMatching(/free\.json: not supported, ignored: identityProviders: brokered sign-in/),
      expect.stringMatching(/free\.json: OK \(realm "free"/),
    ]);
  });
});

/** Every realm file of test/fixtures-data/keycloak: written like exports, and a real one. */
const EXPORTS_DIR = fileURLToPath(new URL('../fixtures-data/keycloak/', import.meta.url));
const EXPORTS = readdirSync(EXPORTS_DIR).filter((name) => name.endsWith('.json'));

describe('a real export of Keycloak', () => {
  beforeAll(() => ensureBuilt());

  it('is among them (a listing that lost them would pass)', () => {
    expect(EXPORTS).toEqual(expect.arrayContaining(['cqen-example-realm.json', 'northwind-export.json']));
  });

  it.each(EXPORTS)('%s passes mock-idp check without a warning', async (name) => {
    const file = join(EXPORTS_DIR, name);
    const result = await runBin(['check', file]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines.at(-1)).toMatch(/: OK \(realm /);
    // What mock-idp does not offer may be said (as at start), but no line about the file.
    expect(lines.slice(0, -1).filter((line) => !line.includes(': not supported, ignored: '))).toEqual([]);
  });
});

describe('a realm JSON that mock-idp reads', () => {
  beforeAll(() => ensureBuilt());

  it('passes mock-idp check, counted as a realm, naming what it cannot honour', async () => {
    const result = await runBin(['check', ACME]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    // 12 clients: the file's 6, and the 6 Keycloak makes in every realm (account, admin-cli, realm-management…).
    expect(result.stdout.trim().split('\n')).toEqual([
      `${ACME}: not supported, ignored: protocol mapper type "oidc-script-based-protocol-mapper" (first in client "web-app"): its claims are left out`,
      `${ACME}: not supported, ignored: client "legacy-saml": protocol saml is not served (OpenID Connect only)`,
      expect.stringMatching(/acme-realm\.json: OK \(realm "acme": 12 clients, 4 users, 15 scopes\)$/),
    ]);
  });

  it('names what it cannot honour once on stderr at start: a mapper type two clients use, a SAML client', async () => {
    const serve = await startServe(['--port', '0', '--fixtures', ACME]);
    try {
      expect(serve.ready).toMatch(/\/realms\/acme$/);
      expect(serve.stderr().trimEnd().split('\n')).toEqual([
        `${ACME}: not supported, ignored: protocol mapper type "oidc-script-based-protocol-mapper" (first in client "web-app"): its claims are left out`,
        `${ACME}: not supported, ignored: client "legacy-saml": protocol saml is not served (OpenID Connect only)`,
      ]);
      // Tokens do not repeat it.
      const answer = await fetch(`${serve.base}/protocol/openid-connect/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'password',
          client_id: 'reports',
          client_secret: 'reports-secret',
          username: 'alice',
          password: 'alice-pw',
        }),
      });
      expect(answer.status).toBe(200);
      expect(serve.stderr().match(/not supported/g)).toHaveLength(2);
    } finally {
      await serve.stop();
    }
  });
});
