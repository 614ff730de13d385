// zod's issues as sentences a person understands, one wording for fixtures, QA API bodies and library options:
// unknown keys with "did you mean", a number where text belongs (quote it), one value where a list belongs.
import type { z } from 'zod';
import { closest, didYouMean } from './suggest.js';

type Path = (string | number)[];

/** One problem: where (the path of the value, or of the unknown key), what kind, and the sentence. */
interface IssueProblem {
  path: Path;
  /** unknown: a key no schema allows; missing: a required key left out; value: a value of the wrong form. */
  kind: 'unknown' | 'missing' | 'value';
  message: string;
  /** An unknown key's "did you mean": the known key it is a typo of. */
  suggested?: string;
}

/** How one caller names things: fixtures say `key` and quote paths, QA bodies say `field`, the library `option`. */
export interface IssueWording {
  member: 'key' | 'field' | 'option';
  /** The name of a path in a sentence (the root's too: `the top level`, `body`). */
  name: (path: readonly (string | number)[]) => string;
  /** Whether an unknown key at the root says where it is (`in the top level`). */
  rootNamed: boolean;
}

interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  valueType?: z.ZodType;
  innerType?: z.ZodType;
  element?: z.ZodType;
  options?: z.ZodType[];
  in?: z.ZodType;
}

const defOf = (schema: z.ZodType): Def => schema._zod.def as unknown as Def;

/** The object schemas a value at `path` may be (wrappers unwrapped, union members followed). */
function objectsAt(schema: z.ZodType, path: readonly (string | number)[]): Def[] {
  const def = defOf(schema);
  if (def.innerType !== undefined) return objectsAt(def.innerType, path);
  if (def.type === 'pipe' && def.in !== undefined) return objectsAt(def.in, path);
  if (def.type === 'union') return (def.options ?? []).flatMap((o) => objectsAt(o, path));
  if (path.length === 0) return def.type === 'object' ? [def] : [];
  const [head, ...rest] = path;
  if (def.type === 'object') {
    const child = def.shape?.[String(head)];
    return child === undefined ? [] : objectsAt(child, rest);
  }
  if (def.type === 'record' && def.valueType !== undefined) return objectsAt(def.valueType, rest);
  if (def.type === 'array' && def.element !== undefined) return objectsAt(def.element, rest);
  return [];
}

/** The keys an object at `path` of `schema` accepts. */
function keysAt(schema: z.ZodType, path: readonly (string | number)[]): string[] {
  return objectsAt(schema, path).flatMap((d) => Object.keys(d.shape ?? {}));
}

function valueAt(data: unknown, path: Path): { found: boolean; value?: unknown } {
  let node = data;
  for (const key of path) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) return { found: false };
    node = (node as Record<string | number, unknown>)[key];
  }
  return { found: true, value: node };
}

/** A value as the person wrote it: text bare, others as JSON. */
const shown = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

/** What a value is, in words. */
function kindOf(value: unknown): string {
  if (value === null || value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return `the text "${value}"`;
  return `the ${typeof value} ${shown(value)}`;
}

/** The sentence for a value of the wrong form; zod's own message where it is already plain. */
function valueSentence(issue: z.core.$ZodIssue, value: unknown): string {
  if (issue.code === 'invalid_type') {
    if (issue.expected === 'string' && (typeof value === 'number' || typeof value === 'boolean'))
      return `expected text, got ${kindOf(value)}: quote it ("${shown(value)}")`;
    if (issue.expected === 'array' && value !== null && typeof value !== 'object')
      return `expected a list, got one value: write it as a list, [${shown(value)}]`;
    if (value === null)
      return `expected ${issue.expected === 'string' ? 'text' : issue.expected}, got nothing: give a value`;
  }
  if (issue.code === 'too_small' && issue.minimum === 1) {
    if (issue.origin === 'string') return 'empty: give a value';
    if (issue.origin === 'array') return 'an empty list: give at least one item';
  }
  if (issue.code === 'invalid_union') return 'not one of the accepted forms';
  return issue.message;
}

/**
 * Every problem of `issues` (from `schema.safeParse(input)`) in `wording`, a missing key after the others. A
 * required key left out is not told when an unknown key beside it is its typo: the "did you mean" says it.
 */
export function describeIssues(
  schema: z.ZodType,
  issues: readonly z.core.$ZodIssue[],
  input: unknown,
  wording: IssueWording,
): IssueProblem[] {
  const where = (path: Path): string =>
    path.length > 0 || wording.rootNamed ? ` in ${wording.name(path)}` : '';
  const suggested = new Set<string>();
  const problems = issues.flatMap((issue): IssueProblem[] => {
    const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
    if (issue.code === 'unrecognized_keys') {
      const present = Object.keys(valueAt(input, path).value ?? {});
      const known = keysAt(schema, path).filter((k) => !present.includes(k));
      return issue.keys.map((key) => {
        const match = closest(key, known);
        if (match !== undefined) suggested.add(JSON.stringify([...path, match]));
        return {
          path: [...path, key],
          kind: 'unknown',
          message: `unknown ${wording.member} "${key}"${where(path)}${didYouMean(key, known)}`,
          ...(match !== undefined ? { suggested: match } : {}),
        };
      });
    }
    const { found, value } = valueAt(input, path);
    const absent = ['invalid_type', 'invalid_value', 'invalid_union'].includes(issue.code);
    if (absent && !found && path.length > 0)
      return [{ path, kind: 'missing', message: `missing required ${wording.member} "${path.join('.')}"` }];
    return [{ path, kind: 'value', message: `${wording.name(path)}: ${valueSentence(issue, value)}` }];
  });
  // A key told unknown is the likelier mistake than the one it leaves missing: it comes first.
  return problems
    .filter((p) => p.kind !== 'missing' || !suggested.has(JSON.stringify(p.path)))
    .sort((a, b) => Number(a.kind === 'missing') - Number(b.kind === 'missing'));
}
