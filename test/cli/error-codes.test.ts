// Every error class's stable code, and the CLI's exit code and line for each: one table.
import { describe, expect, it } from 'vitest';
import { CliError, EXIT } from '../../src/cli/cli-error.js';
import { reportError } from '../../src/cli/exit.js';
import { ClockRangeError } from '../../src/clock.js';
import { isMockIdpError, ListenError, type MockIdpErrorCode } from '../../src/errors.js';
import { FixturesError } from '../../src/fixtures/errors.js';
import { TokenFlowError } from '../../src/flows/token-flow.js';
import { KeyLoadError } from '../../src/keys/load-key.js';
import { OAuthError } from '../../src/oauth/errors.js';
import { StoreError } from '../../src/store/backend.js';
import { MockIdpContainerError } from '../../src/testcontainers/errors.js';

function report(err: unknown): { exit: number; lines: string[] } {
  const lines: string[] = [];
  return { exit: reportError(err, (line) => lines.push(line)), lines };
}

describe('error codes', () => {
  it.each<[Error, MockIdpErrorCode, number, string | RegExp]>([
    [
      new OAuthError('invalid_grant', 'Code not valid'),
      'ERR_OAUTH',
      EXIT.failure,
      'mock-idp: invalid_grant: Code not valid',
    ],
    [
      new FixturesError('f.yaml', [{ path: [], message: 'bad', line: 2 }]),
      'ERR_FIXTURES_INVALID',
      EXIT.failure,
      'f.yaml:2:1 bad',
    ],
    [new KeyLoadError('k.pem: not a key'), 'ERR_KEY_INVALID', EXIT.failure, 'k.pem: not a key'],
    [new ClockRangeError('time is out of range'), 'ERR_CLOCK_RANGE', EXIT.failure, 'time is out of range'],
    [new StoreError('redis: refused'), 'ERR_STORE_UNAVAILABLE', EXIT.failure, 'redis: refused'],
    [
      new ListenError('cannot listen on h:1: port 1 is already in use'),
      'ERR_LISTEN',
      EXIT.failure,
      /^cannot listen on /,
    ],
    [new CliError('bad flag', EXIT.usage), 'ERR_CLI', EXIT.usage, 'bad flag'],
    [new CliError('cannot reach', EXIT.unavailable), 'ERR_CLI', EXIT.unavailable, 'cannot reach'],
    [
      new TokenFlowError('no token'),
      'ERR_TOKEN_FLOW',
      EXIT.failure,
      /^mock-idp: unexpected error: TokenFlowError: no token/,
    ],
    [
      new MockIdpContainerError('MINT_FAILED', 'mint 500'),
      'MINT_FAILED',
      EXIT.failure,
      /^mock-idp: unexpected error: MockIdpContainerError: mint 500/,
    ],
  ])('%s: code %s, exit %i', (err, code, exit, line) => {
    expect(isMockIdpError(err)).toBe(true);
    expect(isMockIdpError(err) && err.code).toBe(code);
    const reported = report(err);
    expect(reported.exit).toBe(exit);
    expect(reported.lines).toEqual([expect.stringMatching(line)]);
  });

  it.each<[string, unknown]>([
    ['a Node error with its own code', Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE' })],
    ['a plain object with a mock-idp code', { code: 'ERR_OAUTH', message: 'x' }],
    ['a string', 'boom'],
  ])('%s is not a mock-idp error', (_name, err) => {
    expect(isMockIdpError(err)).toBe(false);
    expect(report(err).lines[0]).toMatch(/^mock-idp: unexpected error: /);
  });

  it('a RangeError a command raises itself is told plainly', () => {
    expect(report(new RangeError('a count of users is a whole number from 1 to 10'))).toEqual({
      exit: EXIT.failure,
      lines: ['a count of users is a whole number from 1 to 10'],
    });
  });
});
