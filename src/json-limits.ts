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
 * Paths of every `__proto__` member in a parsed JSON/YAML value (at most `max`). JSON.parse and the YAML
 * reader keep such a member as data, but zod's records skip it and plain objects cannot hold it: it is
 * refused wherever it appears, rather than silently dropped.
 */
export function reservedMemberPaths(value: unknown, max = 20): (string | number)[][] {
  const found: (string | number)[][] = [];
  const seen = new WeakSet<object>(); // each object once: shared (and cyclic) values end the walk
  const stack: [unknown, (string | number)[]][] = [[value, []]];
  for (let item = stack.pop(); item !== undefined && found.length < max; item = stack.pop()) {
    const [node, path] = item;
    if (typeof node !== 'object' || node === null || seen.has(node)) continue;
    seen.add(node);
    if (Array.isArray(node)) {
      node.forEach((child, i) => stack.push([child, [...path, i]]));
      continue;
    }
    for (const [key, child] of Object.entries(node)) {
      if (key === RESERVED_MEMBER) found.push([...path, key]);
      else stack.push([child, [...path, key]]);
    }
  }
  return found;
}
