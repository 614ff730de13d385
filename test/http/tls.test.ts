// https (`tls`): a certificate made at start and trusted through its printed mock CA, a given certificate
// (made by openssl), and the refusals of certificates and keys that cannot be served.
import { generateKeyPairSync, X509Certificate } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { get } from 'node:https';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import * as client from 'openid-client';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { startMockIdp } from '../../src/server.js';
import { TlsError, type TlsOptions } from '../../src/keys/tls.js';
import { authorizeUrl, SECRETS } from '../helpers/flows.js';
import { tempDir } from '../helpers/files.js';
import { makeCertificates, SKIP_OPENSSL } from '../helpers/openssl.js';
import { FJORD_FIXTURES, useIdp, type TestIdp } from '../helpers/server.js';

/** A fetch that trusts `ca` (and nothing else), as an application would be configured. */
function trusting(ca: string): typeof fetch {
  const dispatcher = new Agent({ connect: { ca } });
  return ((url: string | URL, init: RequestInit = {}) =>
    undiciFetch(url, { ...(init as object), dispatcher })) as unknown as typeof fetch;
}

/** openid-client's discovery with a fetch that trusts `ca`; client_secret_basic for ledger-sync. */
async function discoverTrusting(issuer: string, ca: string): Promise<client.Configuration> {
  const trustingFetch = trusting(ca);
  const config = await client.discovery(
    new URL(issuer),
    'ledger-sync',
    undefined,
    client.ClientSecretBasic(SECRETS['ledger-sync']),
    { [client.customFetch]: (url, options) => trustingFetch(url, options as RequestInit) },
  );
  config[client.customFetch] = (url, options) => trustingFetch(url, options as RequestInit);
  return config;
}

/** The status of GET /health with `servername` as the TLS name asked for (the certificate must hold it). */
function healthAs(idp: TestIdp, ca: string, servername: string): Promise<number> {
  return new Promise((resolve, reject) => {
    get(`${idp.url}/health`, { ca, servername }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    }).on('error', reject);
  });
}

describe('tls: a certificate made at start, signed by a mock CA', () => {
  const idp = useIdp({ tls: { hosts: ['idp.fjord.test', '10.20.30.40'] } });

  it('serves https: the URL and the issuer are https, the CA is given as PEM', () => {
    expect(idp.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(idp.issuer).toBe(`${idp.url}/realms/fjord`);
    expect(idp.caCertificate).toMatch(/^-----BEGIN CERTIFICATE-----/);
    expect(new X509Certificate(idp.caCertificate ?? '').ca).toBe(true);
  });

  it('a client that does not trust the CA is refused', async () => {
    const error = (await fetch(`${idp.issuer}/.well-known/openid-configuration`).catch(
      (e: unknown) => e,
    )) as Error & { cause?: { code?: string } };
    expect(error).toBeInstanceOf(TypeError);
    expect(error.cause?.code).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
  });

  it('openid-client: discovery and client_credentials over https, the token verified with jose', async () => {
    const ca = idp.caCertificate as string;
    const config = await discoverTrusting(idp.issuer, ca);
    const meta = config.serverMetadata();
    expect(meta.issuer).toBe(idp.issuer);
    for (const field of ['token_endpoint', 'jwks_uri', 'authorization_endpoint'] as const)
      expect(meta[field]).toMatch(/^https:\/\//);
    const tokens = await client.clientCredentialsGrant(config, { scope: 'ledger.read' });
    const jwks = (await (await trusting(ca)(meta.jwks_uri as string)).json()) as JSONWebKeySet;
    const { payload } = await jwtVerify(tokens.access_token, createLocalJWKSet(jwks), {
      issuer: idp.issuer,
    });
    expect(payload['azp']).toBe('ledger-sync');
    expect(payload['scope']).toBe('ledger.read');
  });

  it('idp.token() runs its flow over https, trusting the CA', async () => {
    const tokens = await idp.token({ client: 'ledger-sync', scope: 'ledger.read' });
    expect(tokens.scope).toBe('ledger.read');
    expect(tokens.access_token.split('.')).toHaveLength(3);
  });

  it.each([
    ['localhost', 200],
    ['idp.fjord.test', 200],
  ])('the certificate holds %s', async (name, status) => {
    expect(await healthAs(idp, idp.caCertificate as string, name)).toBe(status);
  });

  it('a name the certificate does not hold is refused', async () => {
    const error = (await healthAs(idp, idp.caCertificate as string, 'other.fjord.test').catch(
      (e: unknown) => e,
    )) as { code?: string };
    expect(error.code).toBe('ERR_TLS_CERT_ALTNAME_INVALID');
  });

  it('the certificate names localhost, 127.0.0.1, ::1 and the hosts asked for', async () => {
    const cert = await new Promise<X509Certificate>((resolve, reject) => {
      const req = get(`${idp.url}/health`, { ca: idp.caCertificate as string }, (res) => {
        const socket = res.socket as TLSSocket;
        resolve(new X509Certificate(socket.getPeerX509Certificate()?.raw ?? Buffer.alloc(0)));
        res.resume();
      });
      req.on('error', reject);
    });
    expect(cert.subjectAltName).toBe(
      'DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, DNS:idp.fjord.test, IP Address:10.20.30.40',
    );
    expect(cert.verify(new X509Certificate(idp.caCertificate as string).publicKey)).toBe(true);
  });

  it('the browser-session cookies are SameSite=None; Secure over https', async () => {
    const response = await trusting(idp.caCertificate as string)(authorizeUrl(idp, { user: 'ingrid' }), {
      redirect: 'manual',
    });
    expect(response.status).toBe(302);
    const cookies = response.headers.getSetCookie();
    expect(cookies.map((c) => c.split('=')[0])).toEqual(['KEYCLOAK_IDENTITY', 'KEYCLOAK_SESSION']);
    for (const cookie of cookies) expect(cookie).toMatch(/; Path=\/realms\/fjord\/; SameSite=None; Secure/);
  });
});

describe('tls: over http the cookies stay SameSite=Lax', () => {
  const idp = useIdp();
  it('http: SameSite=Lax, not Secure', async () => {
    const response = await fetch(authorizeUrl(idp, { user: 'ingrid' }), { redirect: 'manual' });
    for (const cookie of response.headers.getSetCookie()) {
      expect(cookie).toMatch(/; SameSite=Lax/);
      expect(cookie).not.toMatch(/Secure/);
    }
  });
});

describe.skipIf(SKIP_OPENSSL)('tls: a given certificate (made by openssl)', () => {
  const files = tempDir();
  afterAll(files.remove);
  const made = SKIP_OPENSSL ? undefined : makeCertificates(files.dir);
  const idp = useIdp(() => ({ tls: { certFile: made?.cert ?? '', keyFile: made?.key ?? '' } }));

  it('serves it: a client trusting the openssl CA gets a token; no mock CA is made', async () => {
    const ca = readFileSync(made?.ca ?? '', 'utf8');
    expect(idp.caCertificate).toBeUndefined();
    const config = await discoverTrusting(idp.issuer, ca);
    const tokens = await client.clientCredentialsGrant(config, { scope: 'ledger.read' });
    expect(tokens.access_token.split('.')).toHaveLength(3);
  });
});

describe.skipIf(SKIP_OPENSSL)('tls: refusals', () => {
  const files = tempDir();
  afterAll(files.remove);
  const made = SKIP_OPENSSL ? { cert: '', key: '', ca: '' } : makeCertificates(files.dir);
  const file = (name: string): string => join(files.dir, name);
  const otherKey = file('other.key');
  writeFileSync(
    otherKey,
    generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'pem', type: 'pkcs8' }),
  );
  writeFileSync(file('not-a-cert.pem'), 'hello\n');

  it.each<[string, () => TlsOptions, string]>([
    [
      'a certificate without its key',
      () => ({ certFile: made.cert }),
      'tls.certFile needs tls.keyFile: give the certificate and its key, or neither (a certificate made at start)',
    ],
    [
      'a key without its certificate',
      () => ({ keyFile: made.key }),
      'tls.keyFile needs tls.certFile: give the certificate and its key, or neither (a certificate made at start)',
    ],
    [
      'a certificate file that is not there',
      () => ({ certFile: file('missing.pem'), keyFile: made.key }),
      `cannot read the TLS certificate ${file('missing.pem')}: no such file`,
    ],
    [
      'a key file that is a directory',
      () => ({ certFile: made.cert, keyFile: files.dir }),
      `cannot read the TLS key ${files.dir}: a directory, not a file`,
    ],
    [
      'a certificate file that is no certificate',
      () => ({ certFile: file('not-a-cert.pem'), keyFile: made.key }),
      `the TLS certificate ${file('not-a-cert.pem')} is not a PEM certificate (-----BEGIN CERTIFICATE-----)`,
    ],
    [
      'a key file that is a certificate',
      () => ({ certFile: made.cert, keyFile: made.cert }),
      `the TLS key ${made.cert} is not an unencrypted PEM private key (-----BEGIN PRIVATE KEY-----)`,
    ],
    [
      "a key that is not the certificate's",
      () => ({ certFile: made.cert, keyFile: otherKey }),
      `the TLS key ${otherKey} does not match the certificate ${made.cert} (the certificate names another public key)`,
    ],
    [
      'hosts with a given certificate',
      () => ({ certFile: made.cert, keyFile: made.key, hosts: ['a.test'] }),
      'tls.hosts names what a made certificate holds: a given certificate (tls.certFile) names its own',
    ],
    [
      'a host that is no DNS name or IP',
      () => ({ hosts: ['bad host'] }),
      'tls.hosts: "bad host" is neither a DNS name (letters, digits, hyphens and dots, as mock-idp.test) nor an IP address',
    ],
  ])('%s', async (_name, tls, message) => {
    const error = await startMockIdp({ fixtures: FJORD_FIXTURES, port: 0, tls: tls() }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TlsError);
    expect((error as TlsError).code).toBe('ERR_TLS_INVALID');
    expect((error as Error).message).toBe(message);
  });

  it('an unknown tls option is refused by name', async () => {
    await expect(startMockIdp({ port: 0, tls: { host: ['x'] } as unknown as TlsOptions })).rejects.toThrow(
      /startMockIdp: tls: .*"host"/,
    );
  });
});
