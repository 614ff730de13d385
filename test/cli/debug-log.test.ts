// `--log-level debug` says why a request or token was refused, on a line after the request line, and still
// never prints a token or secret; a failed client authentication names the client the request named.
import { describe, expect, it } from 'vitest';
import type { ServeProcess } from '../helpers/cli.js';
import { SECRETS } from '../helpers/flows.js';
import { basic, postForm } from '../helpers/http.js';
import { ASSERTION_TYPE, clientAssertion, s256 } from '../helpers/jwt.js';
import { endpointsOf, FJORD_FIXTURES, idpAt, useCli } from '../helpers/server.js';

// A frozen clock, so "expired 60 s ago" is exact however slow the machine.
const args = ['--fixtures', FJORD_FIXTURES, '--clock', '2030-01-01T00:00:00Z', '--frozen'];
const debug = useCli([...args, '--log-level', 'debug']);
const info = useCli([...args, '--log-level', 'info']);
/** Every token and secret a request sent: none may reach the log. */
const sent = new Set<string>(Object.values(SECRETS));

const TELLER = basic('teller-web', SECRETS['teller-web']);
const LEDGER_API = basic('ledger-api', SECRETS['ledger-api']);
const e = (s: ServeProcess) => endpointsOf(s.base);

async function mint(s: ServeProcess, body: Record<string, unknown>): Promise<string> {
  const response = await fetch(`${s.base}/mock/tokens`, {
    method: 'POST',
    body: JSON.stringify({ type: 'access', client: 'teller-web', user: 'ingrid', ...body }),
  });
  const { token } = (await response.json()) as { token: string };
  sent.add(token);
  return token;
}

const introspect = async (s: ServeProcess, token: string) =>
  postForm(e(s).introspect, { token }, { authorization: LEDGER_API });

async function code(s: ServeProcess, extra: Record<string, string> = {}): Promise<string> {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: 'teller-web',
    redirect_uri: 'http://app.fjord.test/cb',
    scope: 'openid',
    state: 'st',
    login_hint: 'ingrid',
    ...extra,
  });
  const answer = await fetch(`${e(s).auth}?${query}`, { redirect: 'manual' });
  const value = new URL(answer.headers.get('location') ?? '').searchParams.get('code') ?? '';
  sent.add(value);
  return value;
}

/** Runs `request` and answers the log lines it added (the request line, and a `why` line at debug). */
/**
 * The log lines a request caused, once `line` (its request line) is written and, with `why`, the why line
 * after it: the request line is written when the response finishes (at debug, once its reason is known), so
 * it can come after the lines of the requests before it (a mint's), and waiting for "any line ending in ms"
 * could stop at theirs on a busy machine.
 */
async function linesOf(
  s: ServeProcess,
  request: () => Promise<unknown>,
  line: RegExp,
  why: boolean,
): Promise<string[]> {
  const before = s.stdout().length;
  await request();
  const written = (): boolean => {
    const lines = s.stdout().slice(before).split('\n');
    const at = lines.findIndex((l) => line.test(l));
    return at >= 0 && (!why || /^ {2}why: /.test(lines[at + 1] ?? ''));
  };
  for (let i = 0; i < 250 && !written(); i++) await new Promise((r) => setTimeout(r, 20));
  await new Promise((r) => setTimeout(r, 50));
  return s.stdout().slice(before).trimEnd().split('\n');
}

type Case = [string, (s: ServeProcess) => Promise<unknown>, RegExp, RegExp];

const CASES: Case[] = [
  [
    'an expired token at introspection',
    async (s) => introspect(s, await mint(s, { expiresIn: -60 })),
    /introspect 200 client=ledger-api/,
    /^ {2}why: expired 60 s ago by the mock clock \(exp \d+, now \d+\)$/,
  ],
  [
    'a token not yet valid',
    async (s) => introspect(s, await mint(s, { notBefore: '+120' })),
    /introspect 200/,
    /^ {2}why: not valid for another 120 s by the mock clock/,
  ],
  [
    'a token signed by an unknown key',
    async (s) => introspect(s, await mint(s, { signature: 'unknown-key' })),
    /introspect 200/,
    /^ {2}why: unknown kid "[^"]+" \(this realm publishes "[^"]+"\)$/,
  ],
  [
    'a bad signature',
    async (s) => introspect(s, await mint(s, { signature: 'invalid' })),
    /introspect 200/,
    /^ {2}why: bad signature \(kid "[^"]+"\)$/,
  ],
  [
    'a foreign issuer',
    async (s) => introspect(s, await mint(s, { claims: { iss: 'http://elsewhere.test/realms/other' } })),
    /introspect 200/,
    /^ {2}why: foreign issuer "http:\/\/elsewhere.test\/realms\/other"/,
  ],
  [
    'a token whose session ended',
    async (s) => {
      const token = await mint(s, {});
      await fetch(`${s.base}/mock/sessions`, { method: 'DELETE' });
      return introspect(s, token);
    },
    /introspect 200/,
    /^ {2}why: its session has ended/,
  ],
  [
    'an ID token at userinfo',
    async (s) =>
      fetch(e(s).userinfo, { headers: { authorization: `Bearer ${await mint(s, { type: 'id' })}` } }),
    /userinfo 401 client=teller-web error=invalid_token|userinfo 401 error=invalid_token/,
    /^ {2}why: typ "ID" where an access token is needed$/,
  ],
  [
    'an expired refresh token',
    async (s) =>
      postForm(
        e(s).token,
        { grant_type: 'refresh_token', refresh_token: await mint(s, { type: 'refresh', expiresIn: -5 }) },
        { authorization: TELLER },
      ),
    /token 400 client=teller-web grant=refresh_token error=invalid_grant/,
    /^ {2}why: expired 5 s ago by the mock clock/,
  ],
  [
    'a PKCE mismatch',
    async (s) => {
      const c = await code(s, { code_challenge: s256('a'.repeat(43)), code_challenge_method: 'S256' });
      return postForm(
        e(s).token,
        {
          grant_type: 'authorization_code',
          code: c,
          redirect_uri: 'http://app.fjord.test/cb',
          code_verifier: 'b'.repeat(43),
        },
        { authorization: TELLER },
      );
    },
    /token 400 client=teller-web grant=authorization_code error=invalid_grant/,
    /^ {2}why: PKCE verification failed: code_verifier does not match code_challenge$/,
  ],
  [
    'a redirect_uri mismatch',
    async (s) =>
      postForm(
        e(s).token,
        {
          grant_type: 'authorization_code',
          code: await code(s),
          redirect_uri: 'http://app.fjord.test/other',
        },
        { authorization: TELLER },
      ),
    /token 400 client=teller-web grant=authorization_code error=invalid_grant/,
    /^ {2}why: Incorrect redirect_uri/,
  ],
  [
    'an assertion for another audience',
    async (s) => {
      const idp = idpAt(s.base);
      const assertion = await clientAssertion(idp, { audience: 'http://other.test/token' });
      sent.add(assertion);
      return postForm(e(s).token, {
        grant_type: 'client_credentials',
        client_assertion_type: ASSERTION_TYPE,
        client_assertion: assertion,
      });
    },
    /token 401 client=vault-signer grant=client_credentials error=unauthorized_client/,
    /^ {2}why: Invalid client assertion: aud/,
  ],
  [
    'a wrong client secret',
    async (s) =>
      postForm(
        e(s).token,
        { grant_type: 'client_credentials' },
        { authorization: basic('ledger-sync', 'nope') },
      ),
    /token 401 client=ledger-sync grant=client_credentials error=unauthorized_client/,
    /^ {2}why: wrong client secret for "ledger-sync" \(client_secret_basic\)$/,
  ],
  [
    'an unknown client',
    async (s) =>
      postForm(e(s).token, {
        grant_type: 'client_credentials',
        client_id: 'ledger-sink',
        client_secret: 'x',
      }),
    /token 401 client=ledger-sink grant=client_credentials error=invalid_client/,
    /^ {2}why: unknown client "ledger-sink" \(not in the fixtures\)$/,
  ],
];

// The authorize endpoint's refusals are error pages: their log lines say error= and why as the token endpoint's do.
const AUTHORIZE_CASES: Case[] = [
  [
    'an unregistered redirect_uri at authorize',
    async (s) =>
      fetch(
        `${e(s).auth}?${new URLSearchParams({ response_type: 'code', client_id: 'teller-web', redirect_uri: 'http://app.fjord.test/other\nforged line' })}`,
        { redirect: 'manual' },
      ),
    /auth 400 client=teller-web error=invalid_request/,
    /^ {2}why: Invalid parameter: redirect_uri "http:\/\/app.fjord.test\/other\\nforged line" is not registered for client "teller-web" \(registered: http:\/\/app.fjord.test\/cb, http:\/\/127.0.0.1:\*\)$/,
  ],
  [
    'an unknown scope at authorize, answered at the redirect URI',
    async (s) =>
      fetch(
        `${e(s).auth}?${new URLSearchParams({ response_type: 'code', client_id: 'teller-web', redirect_uri: 'http://app.fjord.test/cb', scope: 'openid ledger.delete', login_hint: 'ingrid' })}`,
        { redirect: 'manual' },
      ),
    /auth 302 client=teller-web error=invalid_scope/,
    /^ {2}why: .*ledger\.delete/,
  ],
  [
    'an unknown client at authorize',
    async (s) => fetch(`${e(s).auth}?response_type=code&client_id=ghost`, { redirect: 'manual' }),
    /auth 400 error=invalid_client/,
    /^ {2}why: Client not found: "ghost"$/,
  ],
];

describe('--log-level debug says why', () => {
  it.each([...CASES, ...AUTHORIZE_CASES])('%s', async (_name, request, line, why) => {
    const lines = await linesOf(debug, () => request(debug), line, true);
    const at = lines.findIndex((l) => line.test(l));
    expect(at, lines.join('\n')).toBeGreaterThanOrEqual(0);
    expect(lines[at + 1]).toMatch(why);
  });

  it('and never prints a token, code, assertion or secret', () => {
    const out = debug.stdout() + debug.stderr();
    expect(sent.size).toBeGreaterThan(CASES.length);
    for (const value of sent) if (value.length > 0) expect(out).not.toContain(value);
  });
});

describe('--log-level info', () => {
  it.each(CASES.filter(([name]) => /secret|unknown client|expired token/.test(name)))(
    '%s: the request line only (a failed client authentication still names the client)',
    async (_name, request, line) => {
      const lines = await linesOf(info, () => request(info), line, false);
      expect(
        lines.some((l) => line.test(l)),
        lines.join('\n'),
      ).toBe(true);
      expect(lines.join('\n')).not.toMatch(/why:/);
    },
  );
});
