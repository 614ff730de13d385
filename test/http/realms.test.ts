// Several realms in one process: each fixtures file is a realm at /realms/{realm} with its
// own keys, clock, ids, sessions and QA API; a realm's tokens mean nothing to another realm.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FixturesInput } from '../../src/fixtures/schema.js';
import { PATHS } from '../../src/realm/paths.js';
import { startMockIdp } from '../../src/server.js';
import { basic, get, postForm } from '../helpers/http.js';
import { runBin, startServe } from '../helpers/cli.js';
import { tempDir } from '../helpers/files.js';
import { FJORD_FIXTURES, useIdp, Y2030 } from '../helpers/server.js';

/** A second realm, given as an object. */
const HARBOR: FixturesInput = {
  realm: 'harbor',
  clients: {
    'harbor-job': { secret: 'harbor-secret', grants: ['client_credentials'] },
    'harbor-api': { secret: 'harbor-api-secret', grants: [] },
  },
};

const token = (base: string, client: string, secret: string) =>
  postForm<{ access_token: string }>(
    base + PATHS.token,
    { grant_type: 'client_credentials' },
    { authorization: basic(client, secret) },
  );

describe('two realms in one server', () => {
  const idp = useIdp({ fixtures: [FJORD_FIXTURES, HARBOR], clock: Y2030, frozen: true });
  let fjord: string;
  let harbor: string;
  beforeAll(() => {
    fjord = `${idp.url}/realms/fjord`;
    harbor = `${idp.url}/realms/harbor`;
  });

  it('lists both realms, the first first; the single-realm fields are the first realm', () => {
    expect(Object.keys(idp.realms)).toEqual(['fjord', 'harbor']);
    expect(idp.realms['harbor']?.issuer).toBe(harbor);
    expect(idp.realms['harbor']?.url).toBe(idp.url);
    expect(idp.issuer).toBe(fjord);
    expect(idp.provider).toBe(idp.realms['fjord']?.provider);
  });

  it.each([
    ['fjord', 'ledger-sync', 'sync:pa ss+w%rd/ø'],
    ['harbor', 'harbor-job', 'harbor-secret'],
  ])('realm %s serves its own discovery, clients and keys', async (name, client, secret) => {
    const base = `${idp.url}/realms/${name}`;
    const { json: discovery } = await get<{ issuer: string; jwks_uri: string }>(base + PATHS.discovery);
    expect(discovery.issuer).toBe(base);
    const answer = await token(base, client, secret);
    expect(answer.status, answer.text).toBe(200);
    const { payload } = await jwtVerify(
      answer.json.access_token,
      createRemoteJWKSet(new URL(discovery.jwks_uri)),
      {
        issuer: base,
      },
    );
    expect(payload.azp).toBe(client);
  });

  it('a client of one realm is unknown to the other', async () => {
    const answer = await token(fjord, 'harbor-job', 'harbor-secret');
    expect(answer.status).toBe(401);
    expect((answer.json as unknown as { error: string }).error).toBe('invalid_client');
  });

  it("each realm signs with its own key; a realm's token is not active at the other", async () => {
    type Jwks = { keys: { kid: string }[] };
    const fjordKeys = (await get<Jwks>(fjord + PATHS.certs)).json.keys;
    const harborKeys = (await get<Jwks>(harbor + PATHS.certs)).json.keys;
    expect(fjordKeys?.[0]?.kid).not.toBe(harborKeys?.[0]?.kid);
    const harborToken = (await token(harbor, 'harbor-job', 'harbor-secret')).json.access_token;
    expect(decodeProtectedHeader(harborToken).kid).toBe(harborKeys?.[0]?.kid);
    const atFjord = await postForm(
      fjord + PATHS.introspect,
      { token: harborToken },
      {
        authorization: basic('ledger-api', 'ledger-rs-pass'),
      },
    );
    expect(atFjord.json).toEqual({ active: false });
    const atHarbor = await postForm(
      harbor + PATHS.introspect,
      { token: harborToken },
      {
        authorization: basic('harbor-api', 'harbor-api-secret'),
      },
    );
    expect(atHarbor.json['active']).toBe(true);
  });

  it('each realm has its own clock and QA API', async () => {
    const moved = await fetch(`${harbor}/mock/clock`, {
      method: 'POST',
      body: JSON.stringify({ seconds: 3600 }),
    });
    expect(moved.status).toBe(200);
    expect(idp.realms['harbor']?.clock.nowSeconds()).toBe(Y2030 + 3600);
    expect(idp.realms['fjord']?.clock.nowSeconds()).toBe(Y2030);
    // A fault queued at harbor does not touch fjord.
    await fetch(`${harbor}/mock/faults`, {
      method: 'POST',
      body: JSON.stringify({ endpoint: 'token', status: 503, count: 1 }),
    });
    expect((await token(fjord, 'ledger-sync', 'sync:pa ss+w%rd/ø')).status).toBe(200);
    expect((await token(harbor, 'harbor-job', 'harbor-secret')).status).toBe(503);
    expect(
      idp.realms['fjord']?.requests({ endpoint: 'token' }).every((r) => r.path.startsWith('/realms/fjord/')),
    ).toBe(true);
    expect(idp.realms['harbor']?.requests({ endpoint: 'token', status: 503 })).toHaveLength(1);
  });

  it('mint() of a realm mints for that realm', async () => {
    const minted = await idp.realms['harbor']?.mint({ type: 'access', client: 'harbor-job' });
    expect(minted?.claims['iss']).toBe(harbor);
  });

  it('an unknown realm is 404 naming the realms served', async () => {
    const { status, json } = await get(`${idp.url}/realms/nope${PATHS.discovery}`);
    expect(status).toBe(404);
    expect(json).toEqual({
      error: 'Realm does not exist',
      error_description: 'This server serves realms "fjord", "harbor"',
    });
  });
});

describe('realms and seeds', () => {
  it('two realms with the same seed get different secrets and ids; one realm alone is unchanged', async () => {
    const other: FixturesInput = { ...HARBOR, seed: 'same' };
    const both = await startMockIdp({
      fixtures: [
        { ...HARBOR, realm: 'a', seed: 'same' },
        { ...other, realm: 'b' },
      ],
    });
    const alone = await startMockIdp({ fixtures: { ...HARBOR, realm: 'a', seed: 'same' } });
    const alone2 = await startMockIdp({ fixtures: { ...HARBOR, realm: 'a', seed: 'same' } });
    try {
      const jti = async (base: string): Promise<unknown> => {
        const { json } = await token(base, 'harbor-job', 'harbor-secret');
        return JSON.parse(Buffer.from(json.access_token.split('.')[1] ?? '', 'base64url').toString())['jti'];
      };
      const [a, b] = [await jti(`${both.url}/realms/a`), await jti(`${both.url}/realms/b`)];
      expect(a).not.toBe(b);
      expect(both.realms['a']?.provider.secret.kid).not.toBe(both.realms['b']?.provider.secret.kid);
      // Alone, a seed gives the same ids on every run, as before.
      expect(await jti(`${alone.url}/realms/a`)).toBe(await jti(`${alone2.url}/realms/a`));
    } finally {
      await Promise.all([both.close(), alone.close(), alone2.close()]);
    }
  });
});

describe('several realms: refusals', () => {
  it.each([
    ['--key with several files', { keyFile: 'k.pem' }, /--key.*one realm/],
    ['--issuer with several files', { issuer: 'http://x.test/realms/fjord' }, /--issuer.*one realm/],
  ])('%s is refused', async (_name, extra, message) => {
    await expect(startMockIdp({ fixtures: [FJORD_FIXTURES, HARBOR], ...extra })).rejects.toThrow(message);
  });

  it('two sources of one realm name are refused, naming both', async () => {
    await expect(startMockIdp({ fixtures: [HARBOR, FJORD_FIXTURES, HARBOR] })).rejects.toThrow(
      'fixtures[2]: realm "harbor" is already served from fixtures[0]: each fixtures file must name its own realm',
    );
  });
});

describe('serve with several --fixtures', () => {
  const tmp = tempDir();
  const dir = tmp.dir;
  afterAll(() => tmp.remove());
  beforeAll(async () => {
    await writeFile(
      join(dir, 'one.yaml'),
      'realm: one\nclients:\n  job: { secret: s1, grants: [client_credentials] }\n',
    );
    await writeFile(
      join(dir, 'two.yaml'),
      'realm: two\nclients:\n  job: { secret: s2, grants: [client_credentials] }\n',
    );
    await writeFile(
      join(dir, 'again.yaml'),
      '# the same realm again\n\nrealm: one\nclients:\n  job: { secret: s1, grants: [client_credentials] }\n',
    );
  });

  it('prints one ready line per realm, the first first, and serves both', async () => {
    const server = await startServe(
      ['--port', '0', '--fixtures', join(dir, 'one.yaml'), '--fixtures', join(dir, 'two.yaml'), '--watch'],
      {},
    );
    try {
      await expect
        .poll(
          () =>
            server
              .stdout()
              .split('\n')
              .filter((l) => l.includes('listening on')).length,
        )
        .toBe(2);
      const lines = server
        .stdout()
        .split('\n')
        .filter((l) => l.includes('listening on'));
      expect(lines[0]).toMatch(/^mock-idp listening on http:\/\/127\.0\.0\.1:\d+\/realms\/one$/);
      expect(lines[1]).toMatch(/^mock-idp listening on http:\/\/127\.0\.0\.1:\d+\/realms\/two$/);
      const two = /listening on (\S+)/.exec(lines[1] ?? '')?.[1] ?? '';
      expect((await token(two, 'job', 's2')).status).toBe(200);
      // --watch watches every file: an edit of the second is served.
      await writeFile(
        join(dir, 'two.yaml'),
        'realm: two\nclients:\n  job: { secret: s3, grants: [client_credentials] }\n',
      );
      await expect.poll(async () => (await token(two, 'job', 's3')).status, { timeout: 5000 }).toBe(200);
      expect(server.stdout()).toContain(`reloaded ${join(dir, 'two.yaml')}`);
    } finally {
      await server.stop();
    }
  });

  it('a realm name given twice: exit 1 naming both files, nothing listening', async () => {
    const result = await runBin([
      '--port',
      '0',
      '--fixtures',
      join(dir, 'one.yaml'),
      '--fixtures',
      join(dir, 'again.yaml'),
    ]);
    expect(result.code).toBe(1);
    expect(result.stdout).not.toContain('listening on');
    expect(result.stderr).toContain(
      `${join(dir, 'again.yaml')}:3:8 realm "one" is already served from ${join(dir, 'one.yaml')}: each fixtures file must name its own realm`,
    );
  });
});
