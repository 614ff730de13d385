// The CLI a newcomer meets first, as the real binary: --help (serve's flags at the top level), --version,
// hints for mistyped commands, `check --fixtures`, and docs/cli.md's flag tables against --help.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT, runBin } from '../helpers/cli.js';
import { page } from '../helpers/markdown.js';

beforeAll(() => ensureBuilt());

const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const DEFAULT_FIXTURES = join(ROOT, 'fixtures', 'default.yaml');

/** The long flags an `Options:` listing of `--help` output shows (every section of it). */
function helpFlags(help: string): string[] {
  return [...help.matchAll(/^ {2}(?:-\w, )?(--[a-z][\w-]*)/gm)].map((m) => m[1] ?? '');
}

/** `| \`serve\` flag | ...` tables of docs/cli.md → command (or '' for the top level) → flags. */
function readmeTables(): Map<string, string[]> {
  const tables = new Map<string, string[]>();
  let current: string | undefined;
  for (const line of page('docs/cli.md').split('\n')) {
    const header = /^\| (?:`(\w+)` )?flag\s*\|/.exec(line);
    if (header) {
      current = header[1] ?? '';
      tables.set(current, []);
      continue;
    }
    if (!line.startsWith('|')) current = undefined;
    if (current === undefined || /^\| -/.test(line)) continue;
    const cell = line.split('|')[1] ?? '';
    tables.get(current)?.push(...[...cell.matchAll(/(--[a-z][\w-]*)/g)].map((m) => m[1] ?? ''));
  }
  return tables;
}

describe('help and version', () => {
  it('mock-idp --help lists the commands and every flag of serve, the default command', async () => {
    const [top, serve] = await Promise.all([runBin(['--help']), runBin(['serve', '--help'])]);
    expect(top.code).toBe(0);
    for (const command of ['serve', 'check', 'token', 'keygen', 'users'])
      expect(top.stdout).toMatch(`\n  ${command} `);
    const serveFlags = helpFlags(serve.stdout);
    expect(serveFlags).toEqual(expect.arrayContaining(['--fixtures', '--port', '--watch', '--log-level']));
    expect(helpFlags(top.stdout)).toEqual(expect.arrayContaining(serveFlags));
  });

  it.each([['--version'], ['-V']])('%s prints the package version', async (flag) => {
    const result = await runBin([flag]);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout.trim()).toBe(VERSION);
  });

  it.each([
    ['', []],
    ['serve', ['serve']],
    ['check', ['check']],
    ['token', ['token']],
    ['keygen', ['keygen']],
    ['users', ['users']],
  ])('the docs/cli.md table of "%s" flags lists exactly what --help lists', async (command, argv) => {
    const table = readmeTables().get(command);
    expect(table, `docs/cli.md has a table "${command || 'top-level'} flag"`).toBeDefined();
    const help = await runBin([...argv, '--help']);
    expect(help.code).toBe(0);
    // The top level lists serve's flags after its own; a command's table leaves out --help, which all have.
    const listed = helpFlags(help.stdout.split('Options of serve')[0] ?? '');
    const expected = command === '' ? listed : listed.filter((f) => f !== '--help');
    expect([...(table ?? [])].sort()).toEqual([...expected].sort());
  });
});

describe('mistyped commands get a hint (exit 2, nothing listens)', () => {
  it.each([
    [['chek', 'users.yaml'], 'unknown command "chek" (did you mean check?)'],
    [['tokn', '--client', 'web-app'], 'unknown command "tokn" (did you mean token?)'],
    [['./users.yaml'], '"./users.yaml" is not a command (did you mean --fixtures ./users.yaml?)'],
    [['users.yaml'], '"users.yaml" is not a command (did you mean --fixtures users.yaml?)'],
    [['--port', '0', 'fixtures/default.yaml'], 'did you mean --fixtures fixtures/default.yaml?'],
    [['frobnicate'], 'unknown command "frobnicate" (commands: serve, check, token, keygen, users)'],
    [['--fixture', 'users.yaml'], '(Did you mean --fixtures?)'],
  ])('mock-idp %j', async (argv, hint) => {
    const result = await runBin(argv);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(hint);
    expect(result.stderr).not.toContain('too many arguments');
  });
});

describe('usage errors say what to type instead', () => {
  it.each([
    [['-v'], '(Did you mean -V or --version?)\n(run mock-idp --help for usage)'],
    [['--port', 'x'], '(run mock-idp --help for usage)'],
    [['token'], "required option '--client <id>' not specified\n(run mock-idp token --help for usage)"],
    [
      ['token', '--client', 'x', '--clinet', 'y'],
      '(Did you mean --client?)\n(run mock-idp token --help for usage)',
    ],
    // The typo is told, not the required option it leaves out.
    [
      ['token', '--clinet', 'x'],
      "unknown option '--clinet'\n(Did you mean --client?)\n(run mock-idp token --help",
    ],
    [
      ['users', '--cont', '3'],
      "unknown option '--cont'\n(Did you mean --count?)\n(run mock-idp users --help",
    ],
    [['keygen', '--bits', '1024'], '2048 to 8192.\n(run mock-idp keygen --help for usage)'],
    [['users'], '(run mock-idp users --help for usage)'],
    [['check', 'a.yaml', 'b.yaml'], '(run mock-idp check --help for usage)'],
  ])('mock-idp %j', async (argv, hint) => {
    const result = await runBin(argv);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(hint);
  });

  it('keygen --help states the key size range', async () => {
    const result = await runBin(['keygen', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/--bits <n> +RSA modulus length in bits, 2048 to 8192 \(default: 2048\)/);
  });

  it('a missing fixtures file: FILE: cannot read fixtures', async () => {
    const result = await runBin(['check', 'nothere.yaml']);
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe('nothere.yaml: cannot read fixtures: no such file');
  });
});

describe('check takes the file as an argument or as --fixtures', () => {
  it.each([
    [['check', DEFAULT_FIXTURES]],
    [['check', '--fixtures', DEFAULT_FIXTURES]],
    [['check', DEFAULT_FIXTURES, '--fixtures', DEFAULT_FIXTURES]],
  ])('mock-idp %j exits 0', async (argv) => {
    const result = await runBin(argv);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(/: OK \(realm "mock": /);
  });

  it.each([
    [['check'], "missing required argument 'file'"],
    [['check', DEFAULT_FIXTURES, '--fixtures', 'other.yaml'], 'give the fixtures file once'],
  ])('mock-idp %j is a usage error', async (argv, message) => {
    const result = await runBin(argv);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });
});
