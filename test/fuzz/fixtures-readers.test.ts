// The two fixtures readers agree (issue 10): for any document, the fast reader (js-yaml syntax, the yaml
// package's core-schema resolvers) gives exactly the value the positional reader (the yaml package's
// document, which knows FILE:LINE:COL) gives, or leaves the document to it; it never accepts what the
// positional reader refuses. Documents are fixtures-shaped and full of YAML 1.2 core-schema traps.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FixturesError } from '../../src/fixtures/errors.js';
import { DEFER, readFast } from '../../src/fixtures/fast-yaml.js';
import { FAST_USER_KEYS, usersFast } from '../../src/fixtures/fast-users.js';
import { readPositional } from '../../src/fixtures/load.js';
import { fixturesSchema, userSchema } from '../../src/fixtures/schema.js';
import { MAX_JSON_DEPTH } from '../../src/json-limits.js';
import { fcOptions } from './harness.js';

/** Generous: the runs are bounded by count; a slow shared machine must not fail them on time. */
const LIMIT = { timeout: 300_000 };

/** The positional reader's value, or its refusal (every problem's message and position). */
function positional(text: string): { value: unknown } | { refused: string } {
  try {
    return { value: readPositional(text, 'doc').data };
  } catch (err) {
    if (err instanceof FixturesError) return { refused: err.message };
    throw err;
  }
}

/** A value with its key order, prototypes, -0, NaN and ±Infinity spelled out: equal text means equal values. */
function spelled(value: unknown): string {
  return JSON.stringify(value, (_, v: unknown) => {
    if (typeof v === 'number' && (!Number.isFinite(v) || Object.is(v, -0))) return `number:${String(v)}`;
    if (typeof v === 'string') return `string:${v}`;
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
      const proto = Object.getPrototypeOf(v) as unknown;
      const entries = Object.getOwnPropertyNames(v).map((k) => [k, (v as Record<string, unknown>)[k]]);
      return { proto: proto === Object.prototype ? 'Object' : String(proto), entries };
    }
    return v;
  });
}

/** Asserts the property for one document; answers whether the fast reader answered. */
function agree(text: string): boolean {
  const fast = readFast(text);
  const slow = positional(text);
  if (fast === DEFER) return false;
  if ('refused' in slow)
    expect.fail(`the fast reader accepted what the positional one refuses:\n${slow.refused}`);
  expect(spelled(fast ?? {})).toBe(spelled(slow.value));
  return true;
}

// Plain scalars whose meaning differs between YAML 1.1, YAML 1.2 core and JSON, or between parsers.
const TRICKY_PLAIN = [
  'yes',
  'no',
  'on',
  'off',
  'y',
  'n',
  'Yes',
  'NO',
  'true',
  'True',
  'TRUE',
  'tRue',
  'false',
  'FALSE',
  '~',
  'null',
  'Null',
  'NULL',
  'nuLL',
  '0',
  '-0',
  '+0',
  '007',
  '0o17',
  '0o8',
  '-0o17',
  '0x1f',
  '0x1F',
  '0X1F',
  '+0x1f',
  '0b101',
  '1_000',
  '1e3',
  '1E3',
  '1e+3',
  '1.5e-3',
  '1e400',
  '-1e400',
  '1.',
  '.5',
  '-.5',
  '+.5',
  '1.0',
  '.inf',
  '-.Inf',
  '+.INF',
  '.nan',
  '.NaN',
  '.NAN',
  '2024-01-01',
  '2024-01-01T10:00:00Z',
  '12:30:00',
  '1:2',
  '12345678901234567890',
  '0x1fffffffffffffffff',
  '9578-6000-4-000001',
  'a#b',
  'a b',
  'constructor',
  'toString',
  'valueOf',
  'hasOwnProperty',
  '__proto__',
  '<<',
  '=',
  '.',
  '0.',
  'e3',
  '.e3',
  '1e',
  'Ünïcödé',
  'http://x.example/cb?a=1',
];
const TRICKY_QUOTED = [
  '"yes"',
  "'no'",
  '"0x1f"',
  "'1e3'",
  '""',
  "''",
  '"~"',
  "'null'",
  '"\\u0041\\t\\x42"',
  "'it''s'",
  '"a\\nb"',
  '"\\ud800"',
  '"tab\\there"',
  "' lead and trail '",
];
// Mapping keys: a small pool, so duplicates (equal as text, or equal only as values) come up often.
const KEYS = [
  'name',
  'email',
  'user',
  '1',
  '01',
  '1.0',
  '0x1',
  '"1"',
  '~',
  'null',
  '""',
  'true',
  '"true"',
  'yes',
  '__proto__',
  'constructor',
  'toString',
  '"quoted key"',
  "'single'",
  'key with spaces',
  '.inf',
  '-0',
  '0',
  '<<',
];

const word = fc.stringMatching(/^[a-z][a-z0-9_-]{0,8}$/);
/** Any string, double-quoted the JSON way (a valid YAML double-quoted scalar). */
const anyQuoted = fc.string({ unit: 'binary', maxLength: 12 }).map((s) => JSON.stringify(s));
// Aliases and tags are rare: any one of them sends the whole document to the positional reader.
const scalar = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...TRICKY_PLAIN) },
  { weight: 6, arbitrary: fc.constantFrom(...TRICKY_QUOTED) },
  { weight: 12, arbitrary: word },
  { weight: 4, arbitrary: anyQuoted },
  { weight: 4, arbitrary: fc.integer().map(String) },
  { weight: 4, arbitrary: fc.double().map(String) },
  { weight: 2, arbitrary: fc.constant('') },
  { weight: 1, arbitrary: fc.constantFrom('*a', '*b', '!!str 12', '!!int "7"', '! 12', '!x y') },
);
const key = fc.oneof({ weight: 1, arbitrary: fc.constantFrom(...KEYS) }, { weight: 4, arbitrary: word });

type Tree =
  | { t: 'scalar'; text: string }
  | { t: 'block'; text: string; style: '|' | '>' | '|-' | '>+' | '|2' }
  | { t: 'map' | 'seq'; flow: boolean; anchor: string | null; items: [string, Tree][] };

const { tree } = fc.letrec<{ tree: Tree }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 4, arbitrary: scalar.map((text): Tree => ({ t: 'scalar', text })) },
    {
      weight: 1,
      arbitrary: fc
        .record({
          lines: fc.array(fc.constantFrom('line', '  indented', '', 'a: b', '# not a comment', 'x  y '), {
            minLength: 1,
            maxLength: 4,
          }),
          style: fc.constantFrom('|', '>', '|-', '>+', '|2'),
        })
        .map(({ lines, style }): Tree => ({ t: 'block', text: lines.join('\n'), style })),
    },
    {
      weight: 2,
      arbitrary: fc
        .record({
          t: fc.constantFrom('map', 'seq'),
          flow: fc.boolean(),
          anchor: fc.constantFrom(null, null, null, 'a', 'b'),
          items: fc.array(fc.tuple(key, tie('tree')), { maxLength: 4 }),
        })
        .map((c): Tree => c),
    },
  ),
}));

function flowText(node: Tree): string {
  if (node.t === 'scalar') return safeFlow(node.text);
  if (node.t === 'block') return JSON.stringify(node.text);
  const anchor = node.anchor !== null ? `&${node.anchor} ` : '';
  if (node.t === 'map')
    return `${anchor}{${node.items.map(([k, v]) => `${safeFlow(k)}: ${flowText(v)}`).join(', ')}}`;
  return `${anchor}[${node.items.map(([, v]) => flowText(v)).join(', ')}]`;
}

/** A plain scalar that could end a flow collection early is written double-quoted instead. */
function safeFlow(text: string): string {
  return /^["']/.test(text) || (!/[,[\]{}#]/.test(text) && text !== '' && !text.startsWith('!'))
    ? text
    : JSON.stringify(text);
}

/** `node` as the value after `key:` (or `-`) at `indent`: inline when it fits, else on the next lines. */
function valueText(node: Tree, indent: number): string {
  const pad = ' '.repeat(indent + 2);
  if (node.t === 'scalar') return node.text === '' ? '' : ` ${node.text}`;
  if (node.t === 'block') {
    const style = node.style === '|2' ? '|2' : node.style;
    const lines = node.text.split('\n').map((l) => (l === '' ? '' : `${pad}${l}`));
    return ` ${style}\n${lines.join('\n')}`;
  }
  if (node.flow || node.items.length === 0) return ` ${flowText(node)}`;
  const anchor = node.anchor !== null ? ` &${node.anchor}` : '';
  return `${anchor}\n${blockText(node, indent + 2)}`;
}

function blockText(node: Tree & { t: 'map' | 'seq' }, indent: number): string {
  const pad = ' '.repeat(indent);
  return node.items
    .map(([k, v]) =>
      node.t === 'map' ? `${pad}${k}:${valueText(v, indent)}` : `${pad}-${valueText(v, indent)}`,
    )
    .join('\n');
}

/** A fixtures-shaped document: users with claims and roles built from the tree, and a few top-level keys. */
const fixturesDocument = fc
  .record({
    prologue: fc.constantFrom(...['', '---\n', '# fixtures\n'].flatMap((p) => [p, p, p]), '%YAML 1.1\n---\n'),
    realm: scalar,
    users: fc.array(
      fc.record({ name: key, claims: fc.array(fc.tuple(key, tree), { maxLength: 4 }), roles: tree }),
      { maxLength: 4 },
    ),
    extra: fc.array(fc.tuple(key, tree), { maxLength: 2 }),
    epilogue: fc.constantFrom(...['', '\n', '\n...\n', '\n# end'].flatMap((e) => [e, e]), '\n--- second\n'),
  })
  .map(({ prologue, realm, users, extra, epilogue }) => {
    const lines = [
      `realm:${valueText({ t: 'scalar', text: realm }, 0)}`,
      'clients:',
      '  web: { secret: s }',
      'users:',
    ];
    for (const u of users) {
      lines.push(`  ${u.name}:`, '    claims:');
      for (const [k, v] of u.claims) lines.push(`      ${k}:${valueText(v, 6)}`);
      lines.push(`    realmRoles:${valueText(u.roles, 4)}`);
    }
    for (const [k, v] of extra) lines.push(`${k}:${valueText(v, 0)}`);
    return `${prologue}${lines.join('\n')}${epilogue}`;
  });

/** A whole document from one tree: block or flow, any shape. */
const treeDocument = tree.map((node) =>
  node.t === 'map' || node.t === 'seq'
    ? node.flow
      ? flowText(node)
      : blockText(node, 0)
    : `v:${valueText(node, 0)}`,
);

describe('the fast fixtures reader gives what the positional reader gives, or leaves the document to it', () => {
  it.each(TRICKY_PLAIN.map((s) => [s]))('plain scalar %s', (s) => {
    expect(agree(`v: ${s}\n${s}: v\nl: [${safeFlow(s)}]\n`) || s === '__proto__' || s === '<<').toBe(true);
  });

  it.each(TRICKY_QUOTED.map((s) => [s]))('quoted scalar %s', (s) => {
    expect(agree(`v: ${s}\n${s}: v\n`)).toBe(true);
  });

  it.each([
    [
      'YAML 1.2 core, not 1.1',
      'a: [yes, no, on, off, 0o17, 0x1f, 1e3, .inf, ~, 2024-01-01, 1_000]',
      ['yes', 'no', 'on', 'off', 15, 31, 1000, Infinity, null, '2024-01-01', '1_000'],
    ],
    [
      'multi-line strings',
      'a:\n  - |\n    x\n     y\n  - >-\n    f\n    g\n  - "q\n    r"\n  - plain\n    more\n',
      ['x\n y\n', 'f g', 'q r', 'plain more'],
    ],
    ['implicit pairs in a flow sequence', 'a: [b: c, d]', [{ b: 'c' }, 'd']],
    ['empty values', 'a:\n  - \n  - {b: , c}\n  - []\n  - {}', [null, { b: null, c: null }, [], {}]],
    ['an anchor without its alias', 'a: [&x 1, &y {b: 2}, &z [3]]', [1, { b: 2 }, [3]]],
    ['an explicit document', '---\na: [1]\n...\n', [1]],
  ])('%s', (_, text, expected) => {
    expect(agree(text)).toBe(true);
    expect((readFast(text) as { a: unknown }).a).toEqual(expected);
  });

  it.each([
    ['an alias', 'a: &x [1]\nb: *x'],
    ['a tag', 'a: !!str 12'],
    ['a YAML 1.1 directive', '%YAML 1.1\n---\na: yes'],
    ['two documents', 'a: 1\n---\nb: 2'],
    ['a duplicate key', 'a: 1\na: 2'],
    ['keys equal only as text', '1: a\n"1": b'],
    ['a complex key', '? [a, b]\n: c'],
    ['a mapping as a key', '? {a: 1}\n: c'],
    ['a complex key in a flow mapping', 'a: {[b]: c}'],
    ['an alias deep inside', 'a: &x [1]\nb: [1, {c: [*x]}]'],
    ['an implicit key over 1024 characters before a mapping', `${'k'.repeat(1100)}:\n  a: 1`],
    ['a __proto__ key', 'a: {__proto__: {x: 1}}'],
    ['an implicit key over 1024 characters', `${'k'.repeat(1100)}: v`],
    ['a syntax error', 'a: b: c'],
    ['an empty document', ''],
  ])('leaves %s to the positional reader', (_, text) => {
    expect(readFast(text)).toBe(DEFER);
  });

  it('on generated fixtures documents', LIMIT, () => {
    let answered = 0;
    let runs = 0;
    fc.assert(
      fc.property(fixturesDocument, (text) => {
        runs++;
        if (agree(text)) answered++;
      }),
      fcOptions(300),
    );
    // Not a vacuous pass: the fast reader reads a good share of them itself (over a quarter).
    expect(answered).toBeGreaterThan(runs / 4);
  });

  it('on generated documents of any shape', LIMIT, () => {
    fc.assert(
      fc.property(treeDocument, (text) => {
        agree(text);
      }),
      fcOptions(300),
    );
  });
});

// The users of a parsed file are checked without zod when they are well-formed (fast-users.ts): that check
// must give exactly the schema's output (keys, their order, values), or leave the users to the schema.
describe('the fast users check gives what the schema gives, or leaves the users to it', () => {
  /** The schema's `users`, or undefined when it refuses them. */
  function schemaUsers(users: unknown): unknown {
    const result = fixturesSchema.safeParse({ clients: {}, users });
    return result.success ? result.data.users : undefined;
  }

  const nested = (depth: number, leaf: unknown): unknown =>
    depth === 0 ? leaf : depth % 2 === 0 ? [nested(depth - 1, leaf)] : { k: nested(depth - 1, leaf) };
  const name = fc.oneof(
    fc.constantFrom('', 'a', 'x'.repeat(200), 'x'.repeat(201), '1', 'constructor', 'toString', 'é☃', 'user'),
    fc.string({ maxLength: 4 }),
  );
  const scalar = fc.oneof(name, fc.constantFrom(null, true, false, 0, -0, 1.5, NaN, Infinity, -Infinity, 42));
  const claimValue = fc.oneof(
    scalar,
    fc.array(scalar, { maxLength: 3 }),
    fc.dictionary(name, scalar, { maxKeys: 3 }),
    fc
      .tuple(fc.integer({ min: MAX_JSON_DEPTH - 2, max: MAX_JSON_DEPTH + 2 }), scalar)
      .map(([d, v]) => nested(d, v)),
  );
  const names = fc.oneof(fc.array(name, { maxLength: 3 }), scalar);
  const valueFor: Record<string, fc.Arbitrary<unknown>> = {
    sub: scalar,
    password: scalar,
    acr: scalar,
    amr: scalar,
    claims: fc.oneof(fc.dictionary(name, claimValue, { maxKeys: 4 }), scalar, fc.array(scalar)),
    realmRoles: names,
    clientRoles: fc.oneof(fc.dictionary(name, names, { maxKeys: 3 }), scalar),
    email: scalar, // not a user key
  };
  /** A user: some of its keys, in any order, or a value that is not a user. */
  const user = fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .shuffledSubarray(Object.keys(valueFor))
        .chain((keys) =>
          fc.tuple(...keys.map((k) => (valueFor[k] as fc.Arbitrary<unknown>).map((v) => [k, v] as const))),
        )
        .map((entries) => Object.fromEntries(entries)),
    },
    { weight: 1, arbitrary: scalar },
    { weight: 1, arbitrary: fc.array(scalar, { maxLength: 2 }) },
  );
  const users = fc.dictionary(name, user, { maxKeys: 4 });

  it('on generated users', LIMIT, () => {
    let answered = 0;
    let runs = 0;
    fc.assert(
      fc.property(users, (u) => {
        runs++;
        const fast = usersFast(u);
        const slow = schemaUsers(u);
        if (fast === undefined) return;
        answered++;
        if (slow === undefined) expect.fail(`the fast check accepted what the schema refuses: ${spelled(u)}`);
        expect(spelled(fast)).toBe(spelled(slow));
      }),
      fcOptions(1000),
    );
    // Not a vacuous pass: the fast check answers a good share of them itself.
    expect(answered).toBeGreaterThan(runs / 10);
  });

  it("knows exactly the schema's user keys, in its order (a key added to the schema must be added here)", () => {
    expect(FAST_USER_KEYS).toEqual(Object.keys(userSchema.unwrap().shape));
  });

  it.each([
    ['keys out of the schema order', { u: { realmRoles: ['r'], sub: 's', claims: { a: 1 } } }],
    ['a null user', { u: null }],
    ['a deep claim at the limit', { u: { claims: { c: nested(MAX_JSON_DEPTH - 1, 1) } } }],
  ])('answers for %s as the schema does', (_, u) => {
    expect(usersFast(u)).toBeDefined();
    expect(spelled(usersFast(u))).toBe(spelled(schemaUsers(u)));
  });

  it.each([
    ['a claim nested too deeply', { u: { claims: { c: nested(MAX_JSON_DEPTH + 1, 1) } } }],
    ['an unknown key', { u: { email: 'a@b' } }],
    ['an empty role', { u: { realmRoles: [''] } }],
    ['an infinite acr', { u: { acr: Infinity } }],
    ['a username over 200 characters', { ['x'.repeat(201)]: null }],
  ])('leaves %s to the schema', (_, u) => {
    expect(usersFast(u)).toBeUndefined();
    expect(schemaUsers(u)).toBeUndefined();
  });
});
