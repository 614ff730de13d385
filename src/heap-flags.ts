// The V8 heap settings of a mock-idp server process, set at run time once it listens, not on node's command
// line. Token requests make short-lived garbage, and with V8's defaults (a young generation that grows to
// 32 MB, an old generation that grows fourfold on a machine with a large heap limit) a server's RSS under
// load reached ~125 MiB; with the young generation kept at its starting size and the old generation grown
// by 30 % at a time it stays under 100 MiB at the same throughput (npm run bench).
//
// Why not `node --max-semi-space-size=2 ...` as before: V8 stamps code caches with a hash of every flag not
// at its default, so any heap flag on the command line made V8 refuse the code cache Node ships for its
// built-in modules, and the ~80 built-ins a start loads were compiled from source (~40 ms of a cold start
// on the 2-core bench machine). Set once the server listens, the flags change that hash only for what
// compiles after the start: the fixtures worker boots under the flags the process started with (see
// withYoungGeneration in fixtures/parse-worker.ts), so its cache stays valid.
//
// Only the CLI's server settles its heap this way; the library (startMockIdp) runs in its host's process
// and leaves that process's V8 flags alone.

/**
 * The heap flags a server settles on: name, the server's value, V8's default. A flag given on node's command
 * line (or in NODE_OPTIONS) keeps the value given there: a user's own choice outranks the server's.
 */
const SERVER_HEAP = [
  ['semi-space-growth-factor', 1, 2],
  ['heap-growing-percent', 30, 0],
] as const;
type HeapFlag = (typeof SERVER_HEAP)[number];

/** The heap flags as `--name=N` text, each with the value `valueOf` gives it (none when undefined). */
function flagsText(valueOf: (flag: HeapFlag) => number | undefined): string {
  return SERVER_HEAP.flatMap((flag) => {
    const value = valueOf(flag);
    return value === undefined ? [] : [`--${flag[0]}=${value}`];
  }).join(' ');
}

/** All the flags `settleServerHeap` sets when the process was started with none of them. */
export const SERVER_HEAP_FLAGS = flagsText(([, server]) => server);

let settled = false;

/** A flag's value in this process's Node options (`--name=N`, the last one given), or undefined. */
function givenFlag(name: string): number | undefined {
  const options = [...process.execArgv, ...(process.env['NODE_OPTIONS'] ?? '').split(/\s+/)];
  let value: number | undefined;
  for (const option of options) {
    const match = /^--([a-z_-]+)=(\d+)$/.exec(option);
    if (match?.[1]?.replace(/_/g, '-') === name) value = Number(match[2]);
  }
  return value;
}

/** A flag's value in this process's Node options (`--name=N`), or `dflt` (V8's default) when none is given. */
export function flagValue(name: string, dflt = 0): number {
  return givenFlag(name) ?? dflt;
}

/**
 * Sets the server's heap flags, once. Not in the build's cache maker (scripts/code-cache.js), whose caches
 * must be stamped with the flags a start has. Answers the flags it set now, or undefined when it set none.
 */
export function settleServerHeap(): string | undefined {
  if (settled || process.env['MOCK_IDP_BUILD_WORKER_CACHE'] === '1') return undefined;
  settled = true;
  // Each server flag the command line does not give.
  const flags = flagsText(([name, server]) => (givenFlag(name) === undefined ? server : undefined));
  if (flags === '') return undefined;
  process.getBuiltinModule('node:v8').setFlagsFromString(flags);
  return flags;
}

/**
 * The run-time heap flags as the process started (`start`) and as they are now (`now`): what to set for a
 * moment that must look like the start (a worker compiling from a code cache), and what to put back after.
 */
export function runtimeHeapFlags(): { start: string; now: string } {
  // As started: the command line's values, else V8's defaults; once settled, else the server's.
  const start = flagsText(([name, , dflt]) => flagValue(name, dflt));
  return { start, now: settled ? flagsText(([name, server]) => flagValue(name, server)) : start };
}
