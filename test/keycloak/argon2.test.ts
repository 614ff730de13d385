// Keycloak 24 and newer store passwords as argon2 hashes: a realm export's hash is checked with Node's own
// crypto.argon2 (Node 24.7 and newer); on an older Node, and for parameters it cannot derive, the start names
// them and those users cannot use the password grant. The hash below is one Keycloak made (argon2id, its
// defaults: 7,168 KiB, 5 iterations, 1 lane) for the password "iceberg", as a public realm export holds it.
import * as crypto from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, startServe, type ServeProcess } from '../helpers/cli.js';
import { tempDir } from '../helpers/files.js';

const NODE_HAS_ARGON2 = typeof (crypto as unknown as { argon2?: unknown }).argon2 === 'function';

/** A password credential as Keycloak exports it, with argon2 parameters. */
function argon2Credential(secret: { value: string; salt: string }, parameters: Record<string, string>) {
  return {
    type: 'password',
    secretData: JSON.stringify({ ...secret, additionalParameters: {} }),
    credentialData: JSON.stringify({
      hashIterations: 5,
      algorithm: 'argon2',
      additionalParameters: Object.fromEntries(Object.entries(parameters).map(([k, v]) => [k, [v]])),
    }),
  };
}

const KEYCLOAK_DEFAULTS = { hashLength: '32', memory: '7168', type: 'id', version: '1.3', parallelism: '1' };
const ICEBERG = { value: 'BuViHNDGmCq80fvpty/QoggTI8NSt0CuNDGgeoa5f5A=', salt: 'RJ0aLMQ2qKbZuROs7qQhcA==' };

const REALM = {
  realm: 'iceberg',
  enabled: true,
  clients: [{ clientId: 'shop', secret: 'shop-secret', directAccessGrantsEnabled: true }],
  users: [
    { username: 'peter', enabled: true, credentials: [argon2Credential(ICEBERG, KEYCLOAK_DEFAULTS)] },
    // Parameters Node cannot derive (version 1.0) and a cost beyond the bound (4 GiB).
    {
      username: 'olga',
      enabled: true,
      credentials: [argon2Credential(ICEBERG, { ...KEYCLOAK_DEFAULTS, version: '1.0' })],
    },
    {
      username: 'hugo',
      enabled: true,
      credentials: [argon2Credential(ICEBERG, { ...KEYCLOAK_DEFAULTS, memory: '4194304' })],
    },
    // A salt shorter than argon2 takes (4 bytes).
    {
      username: 'sam',
      enabled: true,
      credentials: [argon2Credential({ ...ICEBERG, salt: 'c2FsdA==' }, KEYCLOAK_DEFAULTS)],
    },
  ],
};

const tmp = tempDir();
const file = join(tmp.dir, 'iceberg-realm.json');
let serve: ServeProcess;
beforeAll(async () => {
  await ensureBuilt();
  writeFileSync(file, JSON.stringify(REALM, null, 2));
  serve = await startServe(['--port', '0', '--fixtures', file]);
});
afterAll(async () => {
  await serve.stop();
  tmp.remove();
});

function passwordGrant(username: string, password: string): Promise<Response> {
  return fetch(`${serve.base}/protocol/openid-connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'password',
      client_id: 'shop',
      client_secret: 'shop-secret',
      username,
      password,
    }),
  });
}

const unsupported = (why: string) =>
  `${file}: not supported, ignored: password hashes of ${why} (users with one cannot use the password grant; give "value" instead)`;

describe.runIf(NODE_HAS_ARGON2)(`argon2 hashes on Node ${process.versions.node}`, () => {
  it("Keycloak's argon2id hash takes its password: a token verified with jose", async () => {
    const answer = await passwordGrant('peter', 'iceberg');
    expect(answer.status).toBe(200);
    const { access_token } = (await answer.json()) as { access_token: string };
    const jwks = createRemoteJWKSet(new URL(`${serve.base}/protocol/openid-connect/certs`));
    const { payload } = await jwtVerify(access_token, jwks, { issuer: serve.base });
    expect(payload['preferred_username']).toBe('peter');
  });

  it.each([
    ['a wrong password', 'peter', 'Iceberg'],
    ['a version Node does not derive', 'olga', 'iceberg'],
    ['a cost beyond the bound', 'hugo', 'iceberg'],
    ['a salt too short', 'sam', 'iceberg'],
  ])('%s: 401 invalid_grant', async (_what, username, password) => {
    const answer = await passwordGrant(username, password);
    expect(answer.status).toBe(401);
    expect(await answer.json()).toEqual({
      error: 'invalid_grant',
      error_description: 'Invalid user credentials',
    });
  });

  it('the start names the three hashes it cannot check, once each', () => {
    expect(serve.stderr().trimEnd().split('\n')).toEqual([
      unsupported('algorithm "argon2" version 1.0 (only 1.3 is derived)'),
      unsupported(
        'algorithm "argon2" with 5 iterations, 4194304 KiB and parallelism 1 (at most 100, 1048576 KiB and 64)',
      ),
      unsupported('algorithm "argon2" with a 4-byte salt and a 32-byte hash (at least 8 and 4)'),
    ]);
  });
});

describe.runIf(!NODE_HAS_ARGON2)(`argon2 hashes on Node ${process.versions.node} (no crypto.argon2)`, () => {
  it('the start names argon2 once, with the Node version that derives it', () => {
    expect(serve.stderr().trimEnd().split('\n')).toEqual([
      unsupported(
        `algorithm "argon2" on Node ${process.versions.node} (Node 24.7 and newer derive it: crypto.argon2)`,
      ),
    ]);
  });

  it('a user with such a hash cannot use the password grant: 401 invalid_grant', async () => {
    const answer = await passwordGrant('peter', 'iceberg');
    expect(answer.status).toBe(401);
    expect(await answer.json()).toEqual({
      error: 'invalid_grant',
      error_description: 'Invalid user credentials',
    });
  });
});
