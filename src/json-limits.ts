// Limits on free-form JSON values users send (fixture claims, minted claims and headers): how deep they nest.

/** Deepest nesting of objects and arrays a claim value may have; tokens and answers must serialize it. */
export const MAX_JSON_DEPTH = 64;

/** Whether `value` nests objects/arrays more than `limit` levels deep (checked without recursion). */
export function nestsDeeperThan(value: unknown, limit = MAX_JSON_DEPTH): boolean {
  if (typeof value !== 'object' || value === null) return false; // most claims: no walk to set up
  const stack: [unknown, number][] = [[value, 0]];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const [node, depth] = item;
    if (typeof node !== 'object' || node === null) continue;
    if (depth >= limit) return true;
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return false;
}

/** A member name that plain objects cannot hold as data (`{}.__proto__ = x` sets the prototype). */
export const RESERVED_MEMBER = '__proto__';

/**
 * Deepest nesting a JSON request body may have: a claim value's limit plus room for the members around it.
 * Checked on the raw text before it is parsed, so no walk ever meets a deeper value.
 */
export const MAX_BODY_DEPTH = MAX_JSON_DEPTH + 8;

/**
 * Whether a JSON text nests arrays/objects more than `limit` levels deep: one pass over its bytes, before any
 * parse (the bytes of `[`, `{`, `"` and the backslash never occur inside a multi-byte UTF-8 character).
 */
export function jsonTextNestsDeeperThan(text: Uint8Array, limit = MAX_BODY_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const byte = text[i];
    if (inString) {
      if (byte === 0x5c)
        i++; // an escape: the next byte is part of it
      else if (byte === 0x22) inString = false;
    } else if (byte === 0x22) inString = true;
    else if (byte === 0x5b || byte === 0x7b) {
      if (++depth > limit) return true;
    } else if (byte === 0x5d || byte === 0x7d) depth--;
  }
  return false;
}

/**
 * The line (from 1) where a YAML text first nests deeper than `limit`, or undefined: one pass over its lines before the YAML parser sees it (the
 * parser recurses per level and gives up, or runs out of memory, long before 100,000 levels). Block levels are
 * counted from the indentation (and `- - x` compact sequences), flow levels from `[`/`{` that open a node,
 * outside quotes and comments. It may count a level too many for odd text (a block scalar that starts a line
 * with `[`), never one too few, and real files stay far below the limit.
 */
export function yamlLineNestingDeeperThan(text: string, limit = MAX_BODY_DEPTH): number | undefined {
  const indents: number[] = [];
  let flow = 0;
  const lines = text.split('\n');
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n] ?? '';
    let i = 0;
    let block = indents.length;
    if (flow === 0) {
      while (line[i] === ' ') i++;
      if (i >= line.length || line[i] === '#' || line[i] === '\r') continue;
      while (indents.length > 0 && (indents[indents.length - 1] ?? 0) >= i) indents.pop();
      indents.push(i);
      block = indents.length;
      while (line[i] === '-' && (line[i + 1] === ' ' || i + 1 >= line.length)) {
        block++;
        i += 2;
        while (line[i] === ' ') i++;
      }
    }
    let quote = '';
    let nodeStart = true; // at a place where a flow collection may begin
    for (; i < line.length; i++) {
      const c = line[i];
      if (quote !== '') {
        if (c === '\\' && quote === '"') i++;
        else if (c === quote) quote = '';
        continue;
      }
      if (c === '"' || c === "'") quote = c;
      else if (c === '#' && (i === 0 || line[i - 1] === ' ')) break;
      else if ((c === '[' || c === '{') && (flow > 0 || nodeStart)) {
        if (block + ++flow > limit) return n + 1;
      } else if ((c === ']' || c === '}') && flow > 0) flow--;
      if (c !== ' ') nodeStart = c === ':' || c === '-' || c === '?' || c === ',' || c === '[' || c === '{';
    }
    if (block + flow > limit) return n + 1;
  }
  return undefined;
}

/** One step of a walk: the member name or index, and the step it was reached from (a path without copies). */
interface Step {
  key: string | number;
  parent: Step | undefined;
}

function pathOf(step: Step | undefined): (string | number)[] {
  const path: (string | number)[] = [];
  for (let at = step; at !== undefined; at = at.parent) path.push(at.key);
  return path.reverse();
}

/**
 * Paths of every `__proto__` member in a parsed JSON/YAML value (at most `max`). JSON.parse and the YAML
 * reader keep such a member as data, but zod's records skip it and plain objects cannot hold it: it is
 * refused wherever it appears, rather than silently dropped. Linear in the value's size: each node keeps a
 * link to its parent, and a path is written out only for a member found.
 */
export function reservedMemberPaths(value: unknown, max = 20): (string | number)[][] {
  const found: (string | number)[][] = [];
  const seen = new WeakSet<object>(); // each object once: shared (and cyclic) values end the walk
  const stack: [unknown, Step | undefined][] = [[value, undefined]];
  for (let item = stack.pop(); item !== undefined && found.length < max; item = stack.pop()) {
    const [node, at] = item;
    if (typeof node !== 'object' || node === null || seen.has(node)) continue;
    seen.add(node);
    if (Array.isArray(node)) {
      node.forEach((child, i) => stack.push([child, { key: i, parent: at }]));
      continue;
    }
    for (const [key, child] of Object.entries(node)) {
      if (key === RESERVED_MEMBER) found.push(pathOf({ key, parent: at }));
      else stack.push([child, { key, parent: at }]);
    }
  }
  return found;
}
