// `mock-idp serve --watch`: edits to the fixtures file apply at once; a broken edit keeps the last good fixtures.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_FIXTURES } from '../helpers/bundled.js';
import { runBin } from '../helpers/cli.js';
import { tempDir } from '../helpers/files.js';
import { basic, call, postForm } from '../helpers/http.js';
import { useCli } from '../helpers/server.js';

const tmp = tempDir();
const file = join(tmp.dir, 'users.yaml');
const original = readFileSync(DEFAULT_FIXTURES, 'utf8');

beforeAll(() => {
  writeFileSync(file, original);
});
afterAll(() => {
  tmp.remove();
});
const server = useCli(['--fixtures', file, '--watch', '--quiet']);

const mintFor = (user: string) =>
  call('POST', `${server.base}/mock/tokens`, { type: 'access', client: 'web-app', user });

/** Retries until the server answers as expected (the reload is debounced). */
async function eventually(check: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** How many clients the bundled fixtures have (the reload line counts them). */
const CLIENTS = Object.keys((parseYaml(original) as { clients: object }).clients).length;
const withUser = (name: string) => `${original}\n  ${name}:\n    claims: { name: ${name} }\n`;

describe('serve --watch', () => {
  it('a good edit is served at once and logged', async () => {
    expect((await mintFor('dave')).status).toBe(400);
    writeFileSync(file, withUser('dave'));
    await eventually(async () => (await mintFor('dave')).status === 200);
    await server.waitFor('stdout', (t) =>
      t.includes(`mock-idp: reloaded ${file} (${CLIENTS} clients, 4 users)`),
    );
  });

  it('a broken edit names file:line:col and keeps the last good fixtures', async () => {
    const broken = `${withUser('dave')}    bogus: 1\n`;
    writeFileSync(file, broken);
    const line = broken.split('\n').findIndex((l) => l.includes('bogus')) + 1;
    const problem = `${file}:${line}:5 unknown key "bogus" in "users.dave"`;
    // Waits for this edit's own message: the watcher may also see the file half written (a write is a
    // truncate and then the bytes) and say "not reloaded" about that first.
    await server.waitFor('stderr', (t) => t.includes(problem));
    expect(server.stderr()).toContain('not reloaded, keeping the last good fixtures');
    expect((await mintFor('dave')).status).toBe(200);
    expect((await mintFor('alice')).status).toBe(200);
  });

  it('a misspelled section is told first and once, not as every name it makes unknown', async () => {
    const typo = withUser('dave').replace(/^clients:/m, 'clientz:');
    writeFileSync(file, typo);
    const line = typo.split('\n').findIndex((l) => l.startsWith('clientz:')) + 1;
    const problem = `${file}:${line}:1 unknown key "clientz" in the top level (did you mean "clients"?)`;
    await server.waitFor('stderr', (t) => t.includes(problem));
    // This edit's report (the watcher may also have reported the file half written).
    const report = server
      .stderr()
      .split(/^(?=mock-idp: )/m)
      .find((r) => r.includes(problem));
    expect(report?.trimEnd().split('\n')).toEqual([
      `mock-idp: ${file} not reloaded, keeping the last good fixtures:`,
      problem,
    ]);
    expect((await mintFor('dave')).status).toBe(200);
  });

  it('an editor-style replace (write elsewhere, rename over) is picked up', async () => {
    const next = join(tmp.dir, '.users.yaml.swp');
    writeFileSync(next, withUser('erin'));
    renameSync(next, file);
    await eventually(async () => (await mintFor('erin')).status === 200);
    expect((await mintFor('dave')).status).toBe(400);
  });

  it('a reload ends the clients registered dynamically (they live until the fixtures are replaced)', async () => {
    const registration = `${server.base}/clients-registrations/openid-connect`;
    const created = await call('POST', registration, { grant_types: ['client_credentials'] });
    expect(created.status).toBe(201);
    const { client_id: id, client_secret: secret } = created.json as Record<string, string>;
    const token = () =>
      postForm(
        `${server.base}/protocol/openid-connect/token`,
        { grant_type: 'client_credentials' },
        basic(id as string, secret as string),
      );
    expect((await token()).status).toBe(200);
    writeFileSync(file, withUser('frida'));
    await eventually(async () => (await mintFor('frida')).status === 200);
    expect((await token()).status).toBe(401);
  });

  it('--watch without --fixtures is a usage error', async () => {
    const { code, stderr } = await runBin(['serve', '--watch', '--port', '0']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/--watch needs --fixtures FILE/);
  });
});
