// A realm JSON's mistakes at FILE:LINE:COL from `mock-idp check` and at start; what it cannot honour named
// once on stderr at start.
import { writeFileSync } from 'node:fs';
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

describe('a realm JSON that mock-idp reads', () => {
  beforeAll(() => ensureBuilt());

  it('passes mock-idp check, counted as a realm', async () => {
    const result = await runBin(['check', ACME]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    // 12 clients: the file's 6, and the 6 Keycloak makes in every realm (account, admin-cli, realm-management…).
    expect(result.stdout.trim()).toMatch(
      /acme-realm\.json: OK \(realm "acme": 12 clients, 4 users, 15 scopes\)$/,
    );
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
