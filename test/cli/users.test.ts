// `mock-idp users`, as the real binary: national ids checked by an implementation of the algorithm written
// here (not the generator's), birth dates, names and gender consistent with them, the altsub form,
// determinism per seed, the output loading with `check`, usage errors, and a reader that stops early.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syntheticUsers, type SyntheticUser } from '../../src/users/generate.js';
import { givenNames } from '../../src/users/names.js';
import { tempDir } from '../helpers/files.js';
import { BIN, ensureBuilt, ROOT, runBin } from '../helpers/cli.js';
import { authorizeRedirect, exchangeCode } from '../helpers/flows.js';
import { decode } from '../helpers/jwt.js';
import { startIdp } from '../helpers/server.js';

beforeAll(() => ensureBuilt());

const tmp = tempDir();
const dir = tmp.dir;
afterAll(() => tmp.remove());

/** Fødselsnummer check digits, from the published algorithm: weights, mod 11, 11 → 0, 10 → invalid. */
function validNationalId(id: string): boolean {
  if (!/^\d{11}$/.test(id)) return false;
  const d = [...id].map(Number);
  const mod11 = (weights: number[]): number => {
    const rest = weights.reduce((sum, w, i) => sum + w * (d[i] ?? NaN), 0) % 11;
    return rest === 0 ? 0 : 11 - rest;
  };
  return mod11([3, 7, 6, 1, 8, 9, 4, 5, 2]) === d[9] && mod11([5, 4, 3, 2, 7, 6, 5, 4, 3, 2, 1]) === 0;
}

it.each([
  ['15076500565', true],
  ['15076500566', false],
  ['15076500575', false],
  ['1507650056', false],
])('the check in this test: %s is valid: %s', (id, valid) => {
  expect(validNationalId(id)).toBe(valid);
});

/** The birth year from the two-digit year and the individual number (Skatteetaten's century table). */
function birthYear(yy: number, individual: number): number | undefined {
  if (individual <= 499) return 1900 + yy;
  if (individual <= 749 && yy >= 54) return 1800 + yy;
  if (individual >= 900 && yy >= 40) return 1900 + yy;
  if (yy <= 39) return 2000 + yy;
  return undefined;
}

const MALE = new Set([...givenNames('male', 1950), ...givenNames('male', 2000)]);
const FEMALE = new Set([...givenNames('female', 1950), ...givenNames('female', 2000)]);

type Parsed = Record<string, SyntheticUser>;

async function generate(args: string[]): Promise<{ text: string; users: Parsed }> {
  const result = await runBin(['users', ...args], {}, 30_000);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  const doc = parse(result.stdout) as { users: Parsed };
  return { text: result.stdout, users: doc.users };
}

describe('every generated user of several seeds', () => {
  it.each([['one'], ['two'], ['three'], ['42']])('seed %s: 1,000 consistent identities', async (seed) => {
    const { users } = await generate(['--count', '1000', '--seed', seed]);
    const entries = Object.entries(users);
    expect(entries).toHaveLength(1000);
    const altsubs = new Set<string>();
    const ids = new Set<string>();
    for (const [username, user] of entries) {
      const c = user.claims;
      const id = c.nnin_altsub;
      expect(validNationalId(id), `${username}: ${id} passes both check digits`).toBe(true);
      const [day, month, yy, individual] = [
        id.slice(0, 2),
        id.slice(2, 4),
        id.slice(4, 6),
        id.slice(6, 9),
      ].map(Number) as [number, number, number, number];
      expect(month, `${id}: month + 80`).toBeGreaterThanOrEqual(81);
      expect(month).toBeLessThanOrEqual(92);
      const year = birthYear(yy, individual);
      expect(year, `${id}: individual number fits a century`).toBeDefined();
      const date = `${year}-${String(month - 80).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
      expect(c.birthdate).toBe(date);
      expect(new Date(`${date}T00:00:00Z`).toISOString().slice(0, 10), `${date} is a calendar date`).toBe(
        date,
      );
      expect((individual % 2 === 1 ? MALE : FEMALE).has(c.given_name), `${c.given_name} for ${id}`).toBe(
        true,
      );
      expect(c.name).toBe(`${c.given_name} ${c.family_name}`);
      expect(c.idp_altsub).toMatch(/^\d{4}-\d{4}-\d-\d{6}$/);
      expect(username).toMatch(/^[a-z]+\.[a-z]+\.\d{4,}$/);
      expect(user.acr).toMatch(/^urn:idp:bid;LOA=[34]$/);
      const cert = c.additionalCertInfo;
      expect(cert).toMatchObject({
        keyAlgorithm: 'RSA',
        keySize: '2048',
        policyOid: '2.16.578.1.16.1.12.1.1',
        versionNumber: '3',
        certQualified: user.acr.endsWith('LOA=4'),
        subjectName: `CN=${c.family_name}\\, ${c.given_name},O=${/O=([^,]+)/.exec(c.originator)?.[1]},C=NO`,
      });
      expect(cert.serialNumber).toMatch(/^[1-9]\d{6}$/);
      expect(cert.certValidFrom).toBeGreaterThan(Date.parse(`${date}T00:00:00Z`) + 18 * 365 * 86_400_000);
      expect(cert.certValidTo - cert.certValidFrom).toBeGreaterThanOrEqual(730 * 86_400_000);
      expect(cert.certValidFrom % 1000).toBe(0);
      expect(c.originator).toMatch(
        /^CN=IdP - (TestBank\d) - Bank CA 3,OU=\d{9},O=\1 AS,C=NO;OriginatorId=\d{4};OriginatorName=BINAS$/,
      );
      altsubs.add(c.idp_altsub);
      ids.add(id);
    }
    expect(altsubs.size).toBe(1000);
    expect(ids.size).toBe(1000);
    const acrs = new Set(entries.map(([, u]) => u.acr));
    expect(acrs).toEqual(new Set(['urn:idp:bid;LOA=4', 'urn:idp:bid;LOA=3']));
  });

  it('the YAML is exactly the generated users (the hand-written YAML round-trips through the yaml package)', async () => {
    const { users } = await generate(['--count', '300', '--seed', 'round-trip']);
    const expected = Object.fromEntries(
      [...syntheticUsers(300, 'round-trip')].map(({ username, ...user }) => [username, user]),
    );
    expect(users).toEqual(expected);
  });

  it('usernames, altsubs and national ids stay unique over 100,000 users', () => {
    const [names, altsubs, ids] = [new Set<string>(), new Set<string>(), new Set<string>()];
    for (const user of syntheticUsers(100_000, 'many')) {
      names.add(user.username);
      altsubs.add(user.claims.idp_altsub);
      ids.add(user.claims.nnin_altsub);
    }
    expect([names.size, altsubs.size, ids.size]).toEqual([100_000, 100_000, 100_000]);
  });
});

describe('determinism', () => {
  it('the same seed prints the same bytes; other seeds, or none, print other users', async () => {
    const [a, b, c, r1, r2] = await Promise.all([
      runBin(['users', '--count', '200', '--seed', 'demo']),
      runBin(['users', '--count', '200', '--seed', 'demo']),
      runBin(['users', '--count', '200', '--seed', 'demo2']),
      runBin(['users', '--count', '200']),
      runBin(['users', '--count', '200']),
    ]);
    expect(a.stdout.length).toBeGreaterThan(1000);
    expect(b.stdout).toBe(a.stdout);
    const ids = (text: string): string[] =>
      [...text.matchAll(/nnin_altsub: '(\d+)'/g)].map((m) => m[1] ?? '');
    for (const other of [c, r1, r2]) {
      expect(other.code).toBe(0);
      expect(ids(other.stdout)).toHaveLength(200);
      expect(ids(other.stdout)).not.toEqual(ids(a.stdout));
    }
    expect(ids(r1.stdout)).not.toEqual(ids(r2.stdout));
  });

  it('the first users of a seed do not depend on the count', async () => {
    const [few, many] = await Promise.all([
      runBin(['users', '--count', '5', '--seed', 'prefix']),
      runBin(['users', '--count', '50', '--seed', 'prefix']),
    ]);
    expect(few.stdout.length).toBeGreaterThan(100);
    expect(many.stdout.startsWith(few.stdout)).toBe(true);
  });
});

describe('the output is a fixtures users: block', () => {
  it('500 users with a clients: block load with mock-idp check', async () => {
    const { text } = await generate(['--count', '500', '--seed', 'check']);
    const file = join(dir, 'users.yaml');
    writeFileSync(file, `clients:\n  web-app:\n    secret: web-secret\n${text}`);
    const result = await runBin(['check', file]);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain('1 client, 500 users');
  });
});

describe('--brand', () => {
  it('writes the altsub claim and the acr values with the brand, and loads under that brand', async () => {
    const [plain, branded] = await Promise.all([
      runBin(['users', '--count', '20', '--seed', 'brand']),
      runBin(['users', '--count', '20', '--seed', 'brand', '--brand', 'acme']),
    ]);
    expect(branded.code).toBe(0);
    expect(branded.stdout).not.toMatch(/idp_altsub|urn:idp:/);
    expect(branded.stdout.match(/acme_altsub: '9578-6000-4-\d{6}'/g)).toHaveLength(20);
    expect(branded.stdout).toMatch(/acr: 'urn:acme:bid;LOA=[34]'/);
    // The same users otherwise, byte for byte.
    expect(branded.stdout.replaceAll('acme_altsub', 'idp_altsub').replaceAll('urn:acme:', 'urn:idp:')).toBe(
      plain.stdout,
    );
    const file = join(dir, 'acme-users.yaml');
    writeFileSync(file, `brand: acme\nclients:\n  web-app:\n    secret: web-secret\n${branded.stdout}`);
    const result = await runBin(['check', file]);
    expect(result).toMatchObject({ code: 0, stderr: '' });
  });
});

describe('--methods', () => {
  it("writes each user's methods; the server then signs them in with the one they may use", async () => {
    const [plain, withMethods] = await Promise.all([
      runBin(['users', '--count', '5', '--seed', 'methods']),
      runBin(['users', '--count', '5', '--seed', 'methods', '--methods', 'bis']),
    ]);
    expect(withMethods.code, withMethods.stderr).toBe(0);
    const users = (parse(withMethods.stdout) as { users: Record<string, { methods?: string[] }> }).users;
    expect(Object.values(users).map((u) => u.methods)).toEqual(Array(5).fill(['bis']));
    // The same users otherwise, byte for byte.
    expect(withMethods.stdout.replaceAll('    methods: [bis]\n', '')).toBe(plain.stdout);

    const file = join(dir, 'methods-users.yaml');
    const clients =
      'clients:\n  teller-web:\n    secret: teller-pass-7\n    redirectUris: [http://app.fjord.test/cb]\n';
    writeFileSync(file, `${clients}${withMethods.stdout}`);
    const idp = await startIdp({ fixtures: file });
    try {
      const user = Object.keys(users)[0] as string;
      const params = await authorizeRedirect(idp, { user, extra: { acr_values: 'urn:idp:bid urn:idp:bis' } });
      const answer = await exchangeCode(idp, params.get('code') as string);
      expect(answer.status, answer.text).toBe(200);
      expect(decode(answer.json.access_token).claims).toMatchObject({ acr: 'urn:idp:bis;LOA=3', amr: 'BIS' });
    } finally {
      await idp.close();
    }
  });
});

describe('bad input is a usage error (exit 2)', () => {
  it.each([
    [['--count', '0'], 'a whole number from 1 to 1000000'],
    [['--count', '-5'], 'a whole number from 1 to 1000000'],
    [['--count', '1000001'], 'a whole number from 1 to 1000000'],
    [['--count', 'ten'], 'a whole number from 1 to 1000000'],
    [['--count', '1.5'], 'a whole number from 1 to 1000000'],
    [['--count', '1e3'], 'a whole number from 1 to 1000000'],
    [['--count', ''], 'a whole number from 1 to 1000000'],
    [[], "required option '--count <n>' not specified"],
    [['--count', '3', '--seed', ''], 'a non-empty text'],
    [['--count', '3', '--cuont', '4'], "unknown option '--cuont'"],
    [['--count', '3', '--brand', 'ACME'], 'a brand word is lower-case letters, digits or "-" (at most 32).'],
    [['--count', '3', '--methods', 'bid,pin'], 'comma-separated methods, each once, of: bid, bis.'],
    [['--count', '3', '--methods', 'bis,bis'], 'comma-separated methods, each once, of: bid, bis.'],
  ])('mock-idp users %j', async (args, message) => {
    const result = await runBin(['users', ...args]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(message);
  });
});

it('a reader that stops early (| head) ends it quietly with exit 0', async () => {
  const child = spawn(process.execPath, [BIN, 'users', '--count', '1000000', '--seed', 'head'], {
    cwd: ROOT,
  });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  child.stdout.once('data', () => child.stdout.destroy());
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  expect(stderr).toBe('');
  expect(code).toBe(0);
});
