// `mock-idp serve --tls` as a real child process: the https ready line naming the CA file, a client that
// trusts it through NODE_EXTRA_CA_CERTS, --tls-ca-out, MOCK_IDP_TLS, a given certificate (--tls-cert and
// --tls-key, made by openssl), and the refused flag combinations.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { get } from 'node:https';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, runBin } from '../helpers/cli.js';
import { tempDir } from '../helpers/files.js';
import { SECRETS } from '../helpers/flows.js';
import { makeCertificates, SKIP_OPENSSL } from '../helpers/openssl.js';
import { FJORD_FIXTURES, useCliPerTest } from '../helpers/server.js';

const tmp = tempDir();
afterAll(() => tmp.remove());
const serve = useCliPerTest(['serve', '--host', '127.0.0.1', '--port', '0', '--fixtures', FJORD_FIXTURES]);

/** The CA file the ready line names. */
function caFileOf(ready: string): string {
  const file = /\(CA certificate ([^)]+)\)$/.exec(ready)?.[1];
  if (file === undefined) throw new Error(`no CA certificate on the ready line: ${ready}`);
  return file;
}

/** openid-client in a child Node that trusts `caFile` through NODE_EXTRA_CA_CERTS: client_credentials. */
const CLIENT = `
import * as client from 'openid-client';
const [issuer, secret] = process.argv.slice(1);
const config = await client.discovery(new URL(issuer), 'ledger-sync', undefined, client.ClientSecretBasic(secret));
const tokens = await client.clientCredentialsGrant(config, { scope: 'ledger.read' });
console.log(JSON.stringify({ token: config.serverMetadata().token_endpoint, scope: tokens.scope }));
`;

describe('serve --tls', () => {
  it('prints the https URL and the CA file; a client trusting it (NODE_EXTRA_CA_CERTS) gets a token', async () => {
    const s = await serve(['--tls']);
    expect(s.ready).toMatch(
      /^mock-idp listening on https:\/\/127\.0\.0\.1:\d+\/realms\/fjord \(CA certificate \S+ca\.pem\)$/,
    );
    const caFile = caFileOf(s.ready);
    expect(readFileSync(caFile, 'utf8')).toMatch(/^-----BEGIN CERTIFICATE-----/);
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--input-type=module', '-e', CLIENT, s.base, SECRETS['ledger-sync']],
      { cwd: ROOT, env: { ...process.env, NODE_EXTRA_CA_CERTS: caFile } },
    );
    expect(JSON.parse(stdout)).toEqual({
      token: `${s.base}/protocol/openid-connect/token`,
      scope: 'ledger.read',
    });
  });

  it('--tls-ca-out writes the CA where asked; MOCK_IDP_TLS=true is --tls', async () => {
    const out = join(tmp.dir, 'mock-ca.pem');
    const s = await serve(['--tls-ca-out', out], { MOCK_IDP_TLS: 'true' });
    expect(caFileOf(s.ready)).toBe(out);
    expect(s.base).toMatch(/^https:/);
    expect(readFileSync(out, 'utf8')).toMatch(/^-----BEGIN CERTIFICATE-----/);
  });

  it('token --server: an untrusted mock CA is refused with how to trust it; with NODE_EXTRA_CA_CERTS it mints', async () => {
    const s = await serve(['--tls']);
    const args = ['token', '--server', s.base, '--client', 'teller-web'];
    const refused = await runBin(args);
    expect(refused.code).toBe(3);
    expect(refused.stderr.trim()).toBe(
      `mock-idp: cannot reach ${s.base}/mock/tokens: unable to verify the first certificate (a server run with --tls serves a certificate of a mock CA made at start: trust the CA with NODE_EXTRA_CA_CERTS=FILE mock-idp token ..., FILE being the CA certificate its ready line names ("CA certificate FILE"; --tls-ca-out FILE says where it is written), or the CA of a certificate served with --tls-cert; see docs/tls.md)`,
    );
    const trusted = await runBin(args, { NODE_EXTRA_CA_CERTS: caFileOf(s.ready) });
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(trusted.stdout).toMatch(/^eyJ[\w-]+\.[\w-]+\.[\w-]+\n$/);
  });

  it('with --issuer the ready line names the issuer and the CA', async () => {
    const s = await serve([
      '--tls',
      '--issuer',
      'https://idp.fjord.test/realms/fjord',
      '--tls-host',
      'idp.fjord.test',
    ]);
    expect(s.ready).toMatch(/ \(issuer https:\/\/idp\.fjord\.test\/realms\/fjord; CA certificate \S+\)$/);
  });

  it.each<[string, string[], Record<string, string>, number, string]>([
    [
      '--tls-cert without --tls-key',
      ['--tls-cert', 'cert.pem'],
      {},
      2,
      '--tls-cert needs --tls-key: give the certificate and its key, or neither (--tls makes one at start)',
    ],
    [
      'MOCK_IDP_TLS_KEY without a certificate',
      [],
      { MOCK_IDP_TLS_KEY: 'key.pem' },
      2,
      '--tls-key needs --tls-cert: give the certificate and its key, or neither (--tls makes one at start)',
    ],
    [
      '--tls-host without --tls',
      ['--tls-host', 'a.test'],
      {},
      2,
      '--tls-host needs --tls (https with a certificate made at start)',
    ],
    [
      '--tls-ca-out with a given certificate',
      ['--tls-cert', 'c.pem', '--tls-key', 'k.pem', '--tls-ca-out', 'ca.pem'],
      {},
      2,
      '--tls-ca-out is for a certificate made at start (--tls), not a given one (--tls-cert)',
    ],
    [
      'a --tls-host that is no name',
      ['--tls', '--tls-host', 'a b'],
      {},
      2,
      `error: option '--tls-host <name>' argument 'a b' is invalid. "a b" is neither a DNS name (letters, digits, hyphens and dots, as mock-idp.test) nor an IP address.`,
    ],
    ['MOCK_IDP_TLS=maybe', [], { MOCK_IDP_TLS: 'maybe' }, 2, 'MOCK_IDP_TLS=maybe: expected true or false'],
    [
      'a --tls-cert that is not there',
      ['--tls-cert', '/nonexistent/cert.pem', '--tls-key', '/nonexistent/key.pem'],
      {},
      1,
      'cannot read the TLS certificate /nonexistent/cert.pem: no such file',
    ],
  ])('%s: refused', async (_name, args, env, code, message) => {
    const result = await runBin(['serve', '--port', '0', '--fixtures', FJORD_FIXTURES, ...args], env);
    expect(result.stderr.split('\n')[0]).toBe(message);
    expect(result.code).toBe(code);
    expect(result.stdout).toBe('');
  });
});

describe.skipIf(SKIP_OPENSSL)('serve --tls-cert --tls-key (a certificate made by openssl)', () => {
  const made = SKIP_OPENSSL ? { ca: '', cert: '', key: '' } : makeCertificates(tmp.dir);

  /** GET `url` over https trusting only `ca`: the status and the JSON body. */
  const getTrusting = (url: string, ca: string): Promise<{ status: number; json: Record<string, unknown> }> =>
    new Promise((resolve, reject) => {
      get(url, { ca }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, json: JSON.parse(body) as Record<string, unknown> });
        });
      }).on('error', reject);
    });

  it.each<[string, () => string[], () => Record<string, string>]>([
    ['the flags', () => ['--tls-cert', made.cert, '--tls-key', made.key], () => ({})],
    [
      'MOCK_IDP_TLS_CERT and MOCK_IDP_TLS_KEY',
      () => [],
      () => ({ MOCK_IDP_TLS_CERT: made.cert, MOCK_IDP_TLS_KEY: made.key }),
    ],
  ])(
    '%s: serves it, and discovery fetched trusting its CA names an https issuer',
    async (_name, args, env) => {
      const s = await serve(args(), env());
      // A given certificate: no mock CA is made, so the ready line names none.
      expect(s.ready).toMatch(/^mock-idp listening on https:\/\/127\.0\.0\.1:\d+\/realms\/fjord$/);
      const ca = readFileSync(made.ca, 'utf8');
      const { status, json } = await getTrusting(`${s.base}/.well-known/openid-configuration`, ca);
      expect(status).toBe(200);
      expect(json['issuer']).toBe(s.base);
      expect(json['token_endpoint']).toBe(`${s.base}/protocol/openid-connect/token`);
    },
  );
});
