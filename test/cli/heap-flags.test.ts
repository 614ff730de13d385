// The server's run-time heap flags (src/heap-flags.ts): set once it listens, each unless node's command line
// gives its own value, which outranks the server's (MOCK_IDP_DEBUG=heap names what the server set).
import { describe, expect, it } from 'vitest';
import { startServe } from '../helpers/cli.js';
import { SERVER_HEAP_FLAGS } from '../../src/heap-flags.js';

const HEAP_LINE = 'mock-idp debug: heap:';

describe('the server’s heap flags', () => {
  it.each([
    [[], SERVER_HEAP_FLAGS],
    [['--heap-growing-percent=50'], '--semi-space-growth-factor=1'],
    [['--semi-space-growth-factor=4'], '--heap-growing-percent=30'],
    [['--semi-space-growth-factor=4', '--heap-growing-percent=50'], undefined],
  ])('node %j: the server sets %j', async (flags, expected) => {
    // An empty NODE_OPTIONS: its flags would count.
    const s = await startServe(
      ['serve', '--host', '127.0.0.1', '--port', '0'],
      { MOCK_IDP_DEBUG: 'heap', NODE_OPTIONS: '' },
      15_000,
      flags,
    );
    const health = await fetch(new URL('/health', s.base));
    expect(health.status).toBe(200);
    const ended = await s.stop('SIGTERM');
    const lines = ended.stderr.split('\n').filter((line) => line.startsWith(HEAP_LINE));
    expect(lines).toEqual(expected === undefined ? [] : [`${HEAP_LINE} ${expected}`]);
  });
});
