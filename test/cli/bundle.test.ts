// The CLI bundle (dist/cli.js, scripts/bundle-cli.js) must answer exactly as the sources do: every
// response's status and Content-Type, and fixtures errors word for word.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { check } from '../../src/cli/check.js';
import { ensureBuilt, runBin, spawnServer, type ServeProcess } from '../helpers/cli.js';
import { basicFor } from '../helpers/flows.js';
import { endpointsOf, FJORD_FIXTURES, startIdp, type TestIdp } from '../helpers/server.js';

describe('the CLI bundle', () => {
  beforeAll(() => ensureBuilt());

  describe('a fixtures file with mistakes', () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'mock-idp-bundle-'));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('gets the same messages from the binary as from the sources (zod English messages)', async () => {
      const file = join(dir, 'broken.yaml');
      writeFileSync(
        file,
        [
          'realm: "no spaces"',
          'tokens: { accessTokenLifespan: -5, tokenType: mac }',
          'clients:',
          '  app:',
          '    secret: ""',
          '    pkce: sometimes',
          '    redirectUris: [1]',
          '    sectorIdentifierUri: ftp://x',
          '    scopes: ["a b"]',
          'users:',
          '  u: { acr: [], sub: "" }',
          '',
        ].join('\n'),
      );
      const expected = await check(file, () => undefined).then(
        () => 'no error',
        (err: Error) => err.message,
      );
      expect(expected).toContain('broken.yaml:2:');
      const result = await runBin(['check', file]);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain(expected);
    });
  });

  describe('serving', () => {
    let bin: ServeProcess;
    let src: TestIdp;
    beforeAll(async () => {
      [bin, src] = await Promise.all([spawnServer(['--fixtures', FJORD_FIXTURES]), startIdp()]);
    });
    afterAll(async () => {
      await Promise.all([bin?.stop(), src?.close()]);
    });

    const origin = (base: string): string => new URL(base).origin;
    const REQUESTS: [string, (base: string) => [string, RequestInit?]][] = [
      ['discovery', (b) => [endpointsOf(b).discovery]],
      ['certs', (b) => [endpointsOf(b).certs]],
      [
        'client_credentials token',
        (b) => [
          endpointsOf(b).token,
          {
            method: 'POST',
            headers: {
              authorization: basicFor('ledger-sync'),
              'content-type': 'application/x-www-form-urlencoded',
            },
            body: 'grant_type=client_credentials',
          },
        ],
      ],
      ['token without a body', (b) => [endpointsOf(b).token, { method: 'POST' }]],
      [
        'login page',
        (b) => [
          `${endpointsOf(b).auth}?response_type=code&client_id=teller-web&redirect_uri=${encodeURIComponent('http://app.fjord.test/cb')}&scope=openid`,
        ],
      ],
      ['auth error page', (b) => [`${endpointsOf(b).auth}?client_id=nobody`]],
      ['userinfo without a token', (b) => [endpointsOf(b).userinfo]],
      ['check-session iframe', (b) => [endpointsOf(b).checkSession]],
      ['3p cookies step 1', (b) => [endpointsOf(b).thirdPartyCookiesStep1]],
      [
        'registration with a wrong type',
        (b) => [
          endpointsOf(b).registration,
          { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' },
        ],
      ],
      ['inspector', (b) => [`${b}/mock/ui`]],
      ['sessions', (b) => [`${b}/mock/sessions`]],
      ['health', (b) => [`${origin(b)}/health`]],
      ['an unknown path', (b) => [`${origin(b)}/nothing/here`]],
      ['a malformed QA body', (b) => [`${b}/mock/tokens`, { method: 'POST', body: '{' }]],
    ];

    it.each(REQUESTS)('%s: the same status and Content-Type as the sources', async (_name, request) => {
      const answer = async (base: string) => {
        const [url, init] = request(base);
        const res = await fetch(url, { redirect: 'manual', ...init });
        await res.arrayBuffer();
        return { status: res.status, type: res.headers.get('content-type') };
      };
      const got = await answer(bin.base);
      expect(got).toEqual(await answer(src.issuer));
    });
  });
});
