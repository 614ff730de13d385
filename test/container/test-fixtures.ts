// A fixtures file the container tests write themselves (realm ci-realm), and the calls they share.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { tempDir } from '../helpers/files.js';
import { basic } from '../helpers/http.js';

export const TEST_FIXTURES = `
realm: ci-realm
scopes:
  payments.read:
    resource: payments-api
    roles: [read]
clients:
  batch-job:
    secret: batch-secret
    grants: [client_credentials]
    scopes: [payments.read]
  payments-api:
    secret: rs-secret
    grants: [client_credentials]
users:
  alice:
    claims: { name: Alice Nordmann }
`;

/** Writes `text` to a fresh temporary directory; `remove()` deletes it. */
export async function writeTempFixtures(
  text: string = TEST_FIXTURES,
): Promise<{ path: string; remove: () => Promise<void> }> {
  const { dir, remove } = tempDir();
  const path = join(dir, 'users.yaml');
  await writeFile(path, text);
  return { path, remove: async () => remove() };
}

/** client_credentials for batch-job; returns the access token. */
export async function clientCredentials(tokenEndpoint: string): Promise<string> {
  const response = await fetch(tokenEndpoint, {
    method: 'POST',
    headers: { authorization: basic('batch-job', 'batch-secret') },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'payments.read' }),
  });
  const text = await response.text();
  expect(response.status, text).toBe(200);
  const body = JSON.parse(text) as { access_token: string; id_token?: string };
  expect(body.id_token).toBeUndefined();
  return body.access_token;
}
