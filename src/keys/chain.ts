// Every certificate mock-idp makes: a mock CA (P-256, self-signed, CA:TRUE) and a leaf it signs — for the
// realm's EC key (the `x5c` chain) or for the https server (`--tls`). @peculiar/x509 writes the certificates; their ECDSA signatures come from @noble/curves (RFC 6979) through
// a WebCrypto stand-in, as WebCrypto's ECDSA draws a random k: under a seed the chain is byte-identical.
import { createHash, webcrypto, type KeyObject } from 'node:crypto';
import { isIP } from 'node:net';
// @peculiar/x509's dependency injection (tsyringe) needs the Reflect metadata API before it loads.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { scalarOf, signP256 } from './ec-key.js';

/** The WebCrypto type @peculiar/x509 takes (the DOM's `Crypto`, not in this project's lib). */
type X509Crypto = Parameters<typeof x509.X509CertificateGenerator.create>[1];

const ES256 = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
/** How long the certificates stay valid from the clock's time at start. */
const VALIDITY_MS = 10 * 365 * 24 * 3600 * 1000;

/** What makes the realm's `x5c` chain: the keys, serial bytes and the instant it starts at. */
interface ChainInput {
  realm: string;
  caKey: KeyObject;
  leafKey: KeyObject;
  /** 16 bytes each: the serial numbers (from the realm's ids, so seeded runs repeat them). */
  caSerial: Uint8Array;
  leafSerial: Uint8Array;
  notBefore: Date;
}

/** A positive DER INTEGER's hex for a serial: the top bit cleared, never zero. */
function serialHex(bytes: Uint8Array): string {
  const copy = Buffer.from(bytes);
  copy[0] = ((copy[0] ?? 0) & 0x7f) | 0x01;
  return copy.toString('hex');
}

/** WebCrypto, except that ECDSA signing with the keys listed here is deterministic. */
function deterministicCrypto(scalars: Map<webcrypto.CryptoKey, Uint8Array>): X509Crypto {
  const subtle = webcrypto.subtle;
  const stand = new Proxy(subtle, {
    get(target, name) {
      if (name === 'sign') {
        return async (
          algorithm: webcrypto.AlgorithmIdentifier,
          key: webcrypto.CryptoKey,
          data: ArrayBuffer | ArrayBufferView,
        ) => {
          const scalar = scalars.get(key);
          if (scalar === undefined) return target.sign(algorithm, key, data);
          const bytes = ArrayBuffer.isView(data)
            ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
            : new Uint8Array(data);
          return Uint8Array.from(signP256(scalar, bytes)).buffer;
        };
      }
      const value: unknown = Reflect.get(target, name);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return {
    subtle: stand,
    getRandomValues: webcrypto.getRandomValues.bind(webcrypto),
    randomUUID: webcrypto.randomUUID.bind(webcrypto),
  } as unknown as X509Crypto;
}

async function importPair(key: KeyObject): Promise<webcrypto.CryptoKeyPair> {
  const jwk = key.export({ format: 'jwk' });
  const privateKey = await webcrypto.subtle.importKey('jwk', jwk, ES256, false, ['sign']);
  const { d: _d, ...pub } = jwk;
  const publicKey = await webcrypto.subtle.importKey('jwk', pub, ES256, true, ['verify']);
  return { privateKey, publicKey };
}

/** A mock CA and what its leaf is for. */
interface IssueInput {
  caKey: KeyObject;
  leafKey: KeyObject;
  caSerial: Uint8Array;
  leafSerial: Uint8Array;
  caName: string;
  leafName: string;
  notBefore: Date;
  notAfter: Date;
  /** The leaf's own extensions beside basic constraints and the key identifiers. */
  leafExtensions: x509.Extension[];
}

/** Makes a mock CA and a leaf it signs; under one key, serials and instants, the same bytes every time. */
async function issue(input: IssueInput): Promise<{ ca: x509.X509Certificate; leaf: x509.X509Certificate }> {
  const ca = await importPair(input.caKey);
  const leaf = await importPair(input.leafKey);
  const crypto = deterministicCrypto(new Map([[ca.privateKey, scalarOf(input.caKey)]]));
  const caCert = await x509.X509CertificateGenerator.createSelfSigned(
    {
      serialNumber: serialHex(input.caSerial),
      name: input.caName,
      notBefore: input.notBefore,
      notAfter: input.notAfter,
      keys: ca,
      signingAlgorithm: ES256,
      extensions: [
        new x509.BasicConstraintsExtension(true, 0, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
        await x509.SubjectKeyIdentifierExtension.create(ca.publicKey, false, crypto),
      ],
    },
    crypto,
  );
  const leafCert = await x509.X509CertificateGenerator.create(
    {
      serialNumber: serialHex(input.leafSerial),
      subject: input.leafName,
      issuer: caCert.subject,
      notBefore: input.notBefore,
      notAfter: input.notAfter,
      publicKey: leaf.publicKey,
      signingKey: ca.privateKey,
      signingAlgorithm: ES256,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        ...input.leafExtensions,
        await x509.SubjectKeyIdentifierExtension.create(leaf.publicKey, false, crypto),
        await x509.AuthorityKeyIdentifierExtension.create(ca.publicKey, false, crypto),
      ],
    },
    crypto,
  );
  return { ca: caCert, leaf: leafCert };
}

/** Makes the chain: [leaf, CA] as base64 DER, and the leaf's x5t#S256. */
export async function makeChain(input: ChainInput): Promise<{ x5c: string[]; x5tS256: string }> {
  const { ca, leaf } = await issue({
    ...input,
    caName: `CN=mock-idp CA, O=mock-idp, OU=${input.realm}`,
    leafName: `CN=mock-idp ES256, O=mock-idp, OU=${input.realm}`,
    notAfter: new Date(input.notBefore.getTime() + VALIDITY_MS),
    leafExtensions: [new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true)],
  });
  const leafDer = Buffer.from(leaf.rawData);
  return {
    x5c: [leafDer.toString('base64'), Buffer.from(ca.rawData).toString('base64')],
    x5tS256: createHash('sha256').update(leafDer).digest('base64url'),
  };
}

/** What makes the https server's certificate: the names it serves, keys, serials and validity. */
interface TlsChainInput {
  /** DNS names and IP addresses (IPv4 or IPv6) the certificate names; the first is its CN. */
  hosts: readonly string[];
  caKey: KeyObject;
  leafKey: KeyObject;
  caSerial: Uint8Array;
  leafSerial: Uint8Array;
  notBefore: Date;
  notAfter: Date;
}

/** The https server's certificate for `hosts` and the mock CA that signed it, both PEM. */
export async function makeTlsChain(input: TlsChainInput): Promise<{ caPem: string; certPem: string }> {
  const names = input.hosts.map((host): x509.JsonGeneralName => ({
    type: isIP(host) === 0 ? 'dns' : 'ip',
    value: host,
  }));
  const { ca, leaf } = await issue({
    ...input,
    caName: 'CN=mock-idp TLS CA, O=mock-idp',
    leafName: `CN=${input.hosts[0] ?? 'localhost'}, O=mock-idp`,
    leafExtensions: [
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth], false),
      new x509.SubjectAlternativeNameExtension(names, false),
    ],
  });
  return { caPem: ca.toString('pem'), certPem: leaf.toString('pem') };
}

/** Reads a given chain (PEM or base64 DER certificates): base64 DER each, and the leaf's x5t#S256. */
export function readChain(certs: string[]): { x5c: string[]; ders: Buffer[]; x5tS256: string } {
  const ders = certs.map((text) => Buffer.from(new x509.X509Certificate(text.trim()).rawData));
  return {
    ders,
    x5c: ders.map((der) => der.toString('base64')),
    x5tS256: createHash('sha256')
      .update(ders[0] ?? Buffer.alloc(0))
      .digest('base64url'),
  };
}
