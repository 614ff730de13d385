// `mock-idp serve --http-relative-path PATH` and KC_HTTP_RELATIVE_PATH as a real child process: the ready
// line, discovery, /health and a token under the path; a bad value is refused before anything listens.
import { describe, expect, it } from 'vitest';
import { runBin } from '../helpers/cli.js';
import { clientCredentials } from '../helpers/flows.js';
import { get } from '../helpers/http.js';
import { FJORD_FIXTURES, idpAt, useCliPerTest } from '../helpers/server.js';

const serve = useCliPerTest(['--fixtures', FJORD_FIXTURES, '--host', '127.0.0.1', '--port', '0']);

describe('--http-relative-path', () => {
  it.each<[string, string[], Record<string, string>, string]>([
    ['--http-relative-path /auth', ['--http-relative-path', '/auth'], {}, '/auth'],
    ['--http-relative-path auth/ (normalised)', ['--http-relative-path', 'auth/'], {}, '/auth'],
    ['KC_HTTP_RELATIVE_PATH=/kc/auth', [], { KC_HTTP_RELATIVE_PATH: '/kc/auth' }, '/kc/auth'],
    [
      'the flag wins over the env',
      ['--http-relative-path', '/auth'],
      { KC_HTTP_RELATIVE_PATH: '/kc' },
      '/auth',
    ],
    ['--http-relative-path / (none)', ['--http-relative-path', '/'], {}, ''],
  ])('%s: the ready line, discovery, /health and tokens follow', async (_name, args, env, path) => {
    const s = await serve(args, env);
    expect(s.ready).toMatch(
      new RegExp(`^mock-idp listening on http://127\\.0\\.0\\.1:\\d+${path}/realms/fjord$`),
    );
    const origin = new URL(s.base).origin;
    const { status, json } = await get(`${s.base}/.well-known/openid-configuration`);
    expect(status).toBe(200);
    expect(json['issuer']).toBe(s.base);
    expect(json['token_endpoint']).toBe(`${s.base}/protocol/openid-connect/token`);
    expect((await get(`${origin}${path}/health`)).json).toEqual({ status: 'UP' });
    const token = await clientCredentials(idpAt(s.base), 'ledger.read');
    expect(token.status, token.text).toBe(200);
    if (path !== '') expect((await fetch(`${origin}/health`)).status).toBe(404);
  });

  it.each<[string, string[], Record<string, string>, string]>([
    [
      'a flag with a space',
      ['--http-relative-path', '/a b'],
      {},
      `error: option '--http-relative-path <path>' argument '/a b' is invalid. "/a b" is not a URL path: segment "a b"; give one like /auth.`,
    ],
    [
      'an env value with ..',
      [],
      { KC_HTTP_RELATIVE_PATH: '/x/../y' },
      `error: option '--http-relative-path <path>' value '/x/../y' from env 'KC_HTTP_RELATIVE_PATH' is invalid. "/x/../y" is not a URL path: segment ".."; give one like /auth.`,
    ],
  ])('refuses %s: exit 2, the reason, never listening', async (_name, args, env, message) => {
    const result = await runBin(['--fixtures', FJORD_FIXTURES, '--port', '0', ...args], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stdout).not.toContain('listening on');
  });
});
