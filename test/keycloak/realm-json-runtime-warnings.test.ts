// What Keycloak would read past in a realm JSON, when a change at run time brings it (PUT /mock/fixtures,
// the admin API, serve --watch): logged as the server logs it at start, once; PUT /mock/fixtures also
// answers it.
import type KcAdminClient from '@keycloak/keycloak-admin-client';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { adminClient, adminRequest } from '../helpers/admin.js';
import { tempDir } from '../helpers/files.js';
import { useCli, useIdp } from '../helpers/server.js';

const SCOPES =
  "(the realm's client scopes: acr, address, basic, email, microprofile-jwt, offline_access, organization, phone, profile, reports, roles, web-origins)";

/** A realm JSON whose client "web" has these default client scopes. */
const realmJson = (scopes: string) =>
  [
    '{',
    '  "realm": "warned",',
    '  "clientScopes": [ { "name": "reports", "protocol": "openid-connect" } ],',
    '  "clients": [',
    `    { "clientId": "web", "secret": "s", "defaultClientScopes": [${scopes}] }`,
    '  ]',
    '}',
    '',
  ].join('\n');
const CLEAN = realmJson('"email"');
/** "report" (a typo of "reports") at line 5, column 74. */
const TYPO = realmJson('"email", "report"');
const typoWarning = (source: string) =>
  `${source}:5:74 warning: "clients.0.defaultClientScopes.1": client "web" names the client scope "report", which the realm does not define (did you mean "reports"?); Keycloak leaves it out, and so does mock-idp ${SCOPES}`;

const tmp = tempDir();
const file = join(tmp.dir, 'warned.json');
beforeAll(() => writeFileSync(file, CLEAN));
afterAll(() => tmp.remove());

/** The server's warn lines, captured. */
const warned: string[] = [];
const logger = createLogger(
  'warn',
  () => undefined,
  (line) => warned.push(line),
);
beforeEach(() => {
  warned.length = 0;
});

describe('PUT /mock/fixtures with a realm JSON', () => {
  const idp = useIdp(() => ({ fixtures: file, logger }));

  it('answers the warnings it brings and logs them, once', async () => {
    const put = async () => {
      const response = await fetch(`${idp.issuer}/mock/fixtures`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: TYPO,
      });
      return { status: response.status, json: (await response.json()) as Record<string, unknown> };
    };
    const first = await put();
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ realm: 'warned', warnings: [typoWarning('body')] });
    expect(warned).toEqual([typoWarning('body')]);
    // The same text again: answered again, not logged again.
    const again = await put();
    expect(again.json['warnings']).toEqual([typoWarning('body')]);
    expect(warned).toEqual([typoWarning('body')]);
  });
});

describe('a change through the admin API', () => {
  const idp = useIdp(() => ({ fixtures: file, logger }));
  let kc: KcAdminClient;
  beforeAll(async () => {
    kc = await adminClient(idp, 'warned');
  });

  it.each([
    {
      name: 'PUT /admin/realms/{realm}',
      change: () => adminRequest(idp, kc, 'warned', 'PUT', '', { defaultDefaultClientScopes: ['reportz'] }),
      line: `${file}: warning: "defaultDefaultClientScopes.0": the realm names the client scope "reportz", which the realm does not define (did you mean "reports"?); Keycloak leaves it out, and so does mock-idp ${SCOPES} (at defaultDefaultClientScopes.0)`,
    },
    {
      name: 'a partial import',
      change: () =>
        adminRequest(idp, kc, 'warned', 'POST', '/partialImport', {
          clients: [{ clientId: 'cli', publicClient: true, optionalClientScopes: ['nosuch'] }],
        }),
      // Index 7: after "web", the 6 clients Keycloak makes in every realm (account, admin-cli…).
      line: `${file}: warning: "clients.7.optionalClientScopes.0": client "cli" names the client scope "nosuch", which the realm does not define; Keycloak leaves it out, and so does mock-idp ${SCOPES} (at clients.7.optionalClientScopes.0)`,
    },
    {
      name: 'a realm made (POST /admin/realms)',
      change: () =>
        adminRequest(idp, kc, '', 'POST', '', {
          realm: 'made',
          clients: [{ clientId: 'cli', publicClient: true, defaultClientScopes: ['nosuch'] }],
        }),
      line: 'realm made: warning: "clients.0.defaultClientScopes.0": client "cli" names the client scope "nosuch", which the realm does not define; Keycloak leaves it out, and so does mock-idp (the realm\'s client scopes: acr, address, basic, email, microprofile-jwt, offline_access, organization, phone, profile, roles, web-origins) (at clients.0.defaultClientScopes.0)',
    },
    {
      name: 'a client whose mapper mock-idp cannot run (POST /clients)',
      change: () =>
        adminRequest(idp, kc, 'warned', 'POST', '/clients', {
          clientId: 'scripted',
          protocolMappers: [
            { name: 's', protocol: 'openid-connect', protocolMapper: 'oidc-script-based-protocol-mapper' },
          ],
        }),
      line: `${file}: not supported, ignored: protocol mapper type "oidc-script-based-protocol-mapper" (first in client "scripted"): its claims are left out`,
    },
  ])('$name logs the warning it brings, and not again those said before', async ({ change, line }) => {
    expect((await change()).status).toBeLessThan(300);
    expect(warned).toEqual([line]);
  });
});

describe('serve --watch, reloading a realm JSON', () => {
  const watched = join(tmp.dir, 'watched.json');
  beforeAll(() => writeFileSync(watched, CLEAN));
  const server = useCli(() => ['--fixtures', watched, '--watch', '--quiet']);

  it('logs the warnings the edit brings, as at start', async () => {
    expect(server.stderr()).toBe('');
    writeFileSync(watched, TYPO);
    await server.waitFor('stdout', (t) => t.includes(`mock-idp: reloaded ${watched}`));
    // (The watcher may also have seen the file half written, and said so: not a warning.)
    const warnings = server
      .stderr()
      .split('\n')
      .filter((line) => line.includes(' warning: '));
    expect(warnings).toEqual([typoWarning(watched)]);
  });
});
