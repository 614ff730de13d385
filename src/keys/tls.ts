// The https server's certificate and key: made at start (a mock CA and a certificate it signs for the names
// served), or read from given PEM files and checked to belong together.
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { Clock } from '../clock.js';
import { Ids } from '../ids.js';
import { refuseUnknownOptions } from '../unknown-options.js';

/** How the server serves https (the `tls` option of startMockIdp). */
export interface TlsOptions {
  /**
   * Names the made certificate holds besides `localhost`, `127.0.0.1` and `::1`: DNS names, or IP
   * addresses (an IP SAN). Not with `certFile`. Default: none.
   */
  hosts?: readonly string[];
  /** A PEM certificate (a chain may follow it) to serve instead of a made one; needs `keyFile`. */
  certFile?: string;
  /** The PEM private key of `certFile`; needs `certFile`. */
  keyFile?: string;
}

/** What the https server is given, and the PEM of the mock CA when the certificate was made here. */
export interface TlsMaterial {
  cert: string;
  key: string;
  /** The mock CA that signed a made certificate (PEM); undefined for a given one. */
  caCertificate: string | undefined;
}

/** The names every made certificate holds. */
const DEFAULT_TLS_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '::1'];

/** A TLS certificate or key that cannot be read, does not decode, or does not fit. */
export class TlsError extends Error {
  readonly code = 'ERR_TLS_INVALID' as const;
  override name = 'TlsError';
}

const DNS_NAME =
  /^(\*\.)?([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/** Why `host` cannot be a name of the certificate, or undefined when it can. */
export function tlsHostProblem(host: string): string | undefined {
  if (isIP(host) !== 0) return undefined;
  if (host.length <= 253 && DNS_NAME.test(host)) return undefined;
  return `"${host}" is neither a DNS name (letters, digits, hyphens and dots, as mock-idp.test) nor an IP address`;
}

const DAY_MS = 24 * 3600 * 1000;

/**
 * A certificate for `hosts` and its CA, made now. TLS clients check validity against real time, not the mock
 * clock: the certificate starts at the previous UTC midnight (a day of slack for clocks that differ) and lasts
 * a year. Keys and serials come from `seed` when given, so a seeded server started twice on one day serves
 * the same bytes.
 */
async function madeMaterial(hosts: readonly string[], seed: string | undefined): Promise<TlsMaterial> {
  // Imported only here, as the realm's EC key imports them: a server that makes no certificate never loads
  // the certificate and curve libraries (~4.5 MiB of heap).
  const [{ makeTlsChain }, { ecKeyFromScalar, scalarFromSeed }] = await Promise.all([
    import('./chain.js'),
    import('./ec-key.js'),
  ]);
  const ids = new Ids(seed);
  const caKey = ecKeyFromScalar(scalarFromSeed(ids.bytes('tls-ca-key', 48)));
  const leafKey = ecKeyFromScalar(scalarFromSeed(ids.bytes('tls-leaf-key', 48)));
  const notBefore = new Date(Math.floor(Clock.realMs() / DAY_MS) * DAY_MS - DAY_MS);
  const chain = await makeTlsChain({
    hosts: [...new Set([...DEFAULT_TLS_HOSTS, ...hosts])],
    caKey,
    leafKey,
    caSerial: ids.bytes('tls-ca-serial', 16),
    leafSerial: ids.bytes('tls-leaf-serial', 16),
    notBefore,
    notAfter: new Date(notBefore.getTime() + 366 * DAY_MS),
  });
  return {
    cert: chain.certPem,
    key: leafKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    caCertificate: chain.caPem,
  };
}

async function readPem(file: string, what: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EACCES'
          ? 'permission denied'
          : code === 'EISDIR'
            ? 'a directory, not a file'
            : (err as Error).message;
    throw new TlsError(`cannot read the TLS ${what} ${file}: ${why}`);
  }
}

/** The given certificate and key, read and checked: both decode, and the key is the certificate's. */
async function givenMaterial(certFile: string, keyFile: string): Promise<TlsMaterial> {
  // Both read at once; when both fail, the certificate's failure is the one told (not whichever came first).
  const [certRead, keyRead] = await Promise.allSettled([
    readPem(certFile, 'certificate'),
    readPem(keyFile, 'key'),
  ]);
  if (certRead.status === 'rejected') throw certRead.reason;
  if (keyRead.status === 'rejected') throw keyRead.reason;
  const cert = certRead.value;
  const key = keyRead.value;
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(cert);
  } catch {
    throw new TlsError(
      `the TLS certificate ${certFile} is not a PEM certificate (-----BEGIN CERTIFICATE-----)`,
    );
  }
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey({ key, format: 'pem' });
  } catch {
    throw new TlsError(
      `the TLS key ${keyFile} is not an unencrypted PEM private key (-----BEGIN PRIVATE KEY-----)`,
    );
  }
  if (!certificate.checkPrivateKey(privateKey))
    throw new TlsError(
      `the TLS key ${keyFile} does not match the certificate ${certFile} (the certificate names another public key)`,
    );
  return { cert, key, caCertificate: undefined };
}

/** The certificate and key to serve for the `tls` option: checked, then made or read. */
export async function tlsMaterial(tls: true | TlsOptions, seed: string | undefined): Promise<TlsMaterial> {
  const options: TlsOptions = tls === true ? {} : tls;
  refuseUnknownOptions('startMockIdp: tls', ['hosts', 'certFile', 'keyFile'], options);
  const { certFile, keyFile, hosts = [] } = options;
  if ((certFile === undefined) !== (keyFile === undefined))
    throw new TlsError(
      certFile === undefined
        ? 'tls.keyFile needs tls.certFile: give the certificate and its key, or neither (a certificate made at start)'
        : 'tls.certFile needs tls.keyFile: give the certificate and its key, or neither (a certificate made at start)',
    );
  if (certFile !== undefined && keyFile !== undefined) {
    if (hosts.length > 0)
      throw new TlsError(
        'tls.hosts names what a made certificate holds: a given certificate (tls.certFile) names its own',
      );
    return givenMaterial(certFile, keyFile);
  }
  for (const host of hosts) {
    const problem = tlsHostProblem(host);
    if (problem !== undefined) throw new TlsError(`tls.hosts: ${problem}`);
  }
  return madeMaterial(hosts, seed);
}
