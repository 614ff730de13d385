// The realm's EC P-256 key: its certificate chain from the mock CA, its JWK in `certs` (x5c, x5t#S256),
// deterministic under a seed, ES256 tokens that verify against the JWKS, and the ways to fix the key.
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  X509Certificate,
  type JsonWebKey,
} from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { calculateJwkThumbprint, createRemoteJWKSet, exportJWK, importX509, jwtVerify, type JWK } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import { signEs256 } from '../../src/tokens/sign-es256.js';
import { loadFixturesFile } from '../../src/fixtures/load.js';
import { buildRealm } from '../../src/fixtures/realm.js';
import { FixturesError } from '../../src/index.js';
import { runBin, startServe } from '../helpers/cli.js';
import { tempDir, writeTestKey } from '../helpers/files.js';
import { call, get } from '../helpers/http.js';
import { FJORD_FIXTURES, startIdp, Y2030, type TestIdp } from '../helpers/server.js';

const tmp = tempDir();
afterAll(() => tmp.remove());
const RSA_KEY = writeTestKey(tmp.dir, 'rsa.pem');
const EC_PEM = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  .privateKey.export({ format: 'pem', type: 'pkcs8' })
  .toString();
const EC_KEY = join(tmp.dir, 'ec.pem');
writeFileSync(EC_KEY, EC_PEM);

type Jwks = { keys: JWK[] };

const pem = (der: string): string =>
  `-----BEGIN CERTIFICATE-----\n${der.match(/.{1,64}/g)?.join('\n') ?? ''}\n-----END CERTIFICATE-----\n`;

/** Starts a server with the fixed RSA key, publishing its EC key; the caller closes it. */
async function seeded(seed: string): Promise<TestIdp> {
  const idp = await startIdp({ keyFile: RSA_KEY, seed, clock: Y2030, frozen: true });
  await idp.provider.keys.publishEc(true);
  return idp;
}

/** `certs` with the signing keys only: the realm's encryption key (use "enc", made at start) is not this file's. */
async function signingCerts(url: string): Promise<{ json: Jwks }> {
  const { json } = await get<Jwks>(url);
  return { json: { keys: json.keys.filter((k) => k.use !== 'enc') } };
}

/** All of `certs`, as served: the encryption key too (under a seed, the fixed RSA key's). */
async function certsText(idp: TestIdp): Promise<string> {
  return (await get(idp.endpoints.certs)).text;
}

describe('the EC key and its chain', () => {
  it('certs lists the RSA key first, then the EC key with kid, ES256, x5c and x5t#S256 (nothing private)', async () => {
    const idp = await seeded('chain');
    try {
      const { json } = await signingCerts(idp.endpoints.certs);
      expect(json.keys.map((k) => [k.kty, k.alg])).toEqual([
        ['RSA', 'RS256'],
        ['EC', 'ES256'],
      ]);
      const ec = json.keys[1] as JWK;
      expect(Object.keys(ec).sort()).toEqual([
        'alg',
        'crv',
        'kid',
        'kty',
        'use',
        'x',
        'x5c',
        'x5t#S256',
        'y',
      ]);
      expect(ec).toMatchObject({ use: 'sig', crv: 'P-256' });
      expect(ec.kid).toBe(await calculateJwkThumbprint(ec, 'sha256'));
      expect(ec.x5c).toHaveLength(2);
    } finally {
      await idp.close();
    }
  });

  it("the leaf's public key is the JWK's; the CA signed the leaf and itself, with CA:TRUE", async () => {
    const idp = await seeded('chain');
    try {
      const ec = (await signingCerts(idp.endpoints.certs)).json.keys[1] as JWK;
      const [leafDer, caDer] = ec.x5c ?? [];
      const fromCert = await exportJWK(await importX509(pem(leafDer ?? ''), 'ES256', { extractable: true }));
      expect({ x: fromCert.x, y: fromCert.y, crv: fromCert.crv }).toEqual({ x: ec.x, y: ec.y, crv: ec.crv });
      const leaf = new X509Certificate(Buffer.from(leafDer ?? '', 'base64'));
      const ca = new X509Certificate(Buffer.from(caDer ?? '', 'base64'));
      expect(ca.ca).toBe(true);
      expect(leaf.ca).toBe(false);
      expect(ca.verify(ca.publicKey)).toBe(true);
      expect(ca.checkIssued(ca)).toBe(true);
      expect(leaf.checkIssued(ca)).toBe(true);
      expect(leaf.verify(ca.publicKey)).toBe(true);
      expect(leaf.verify(leaf.publicKey)).toBe(false);
      expect(new Date(leaf.validFrom).getTime()).toBe(Y2030 * 1000);
      expect(ec['x5t#S256']).toBe(
        createHash('sha256')
          .update(Buffer.from(leafDer ?? '', 'base64'))
          .digest('base64url'),
      );
    } finally {
      await idp.close();
    }
  });

  it('certs is byte-identical across two runs with one seed and a fixed RSA key; another seed changes it', async () => {
    const runs = [];
    for (const seed of ['same', 'same', 'other']) {
      const idp = await seeded(seed);
      try {
        runs.push(await certsText(idp));
      } finally {
        await idp.close();
      }
    }
    expect(runs[1]).toBe(runs[0]);
    expect(runs[2]).not.toBe(runs[0]);
    const [a, c] = [runs[0], runs[2]].map((t) => (JSON.parse(t ?? '') as Jwks).keys);
    expect(a?.[0]).toEqual(c?.[0]);
  });

  it('without a seed each start makes another EC key and CA', async () => {
    const [a, b] = await Promise.all([startIdp(), startIdp()]);
    try {
      const [ka, kb] = await Promise.all([a.provider.keys.ecKey(), b.provider.keys.ecKey()]);
      expect(ka?.kid).not.toBe(kb?.kid);
      expect(ka?.x5c[1]).not.toBe(kb?.x5c[1]);
      // certs publishes the EC key always, beside the RSA key: any sign-in may ask for version 3.
      expect((await signingCerts(a.endpoints.certs)).json.keys.map((k) => k.kty)).toEqual(['RSA', 'EC']);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('an ES256 token signed by the realm verifies with jose against the JWKS, and repeats byte for byte', async () => {
    const idp = await seeded('tokens');
    try {
      const key = idp.provider.keys.ec;
      if (key === undefined) throw new Error('no EC key');
      const claims = { iss: idp.issuer, sub: 'alice', aud: 'web-app', iat: Y2030, exp: Y2030 + 300 };
      const token = signEs256(key, claims);
      expect(signEs256(key, claims)).toBe(token);
      const jwks = createRemoteJWKSet(new URL(idp.endpoints.certs));
      const { payload, protectedHeader } = await jwtVerify(token, jwks, {
        algorithms: ['ES256'],
        currentDate: new Date(Y2030 * 1000),
      });
      expect(protectedHeader).toEqual({ alg: 'ES256', typ: 'JWT', kid: key.kid });
      expect(payload).toEqual(claims);
      const tampered = signEs256(key, { ...claims, sub: 'mallory' }).split('.');
      await expect(
        jwtVerify([token.split('.')[0], tampered[1], token.split('.')[2]].join('.'), jwks, {
          currentDate: new Date(Y2030 * 1000),
        }),
      ).rejects.toThrow('signature verification failed');
    } finally {
      await idp.close();
    }
  });
});

describe('fixing the EC key', () => {
  it('serve --key twice: an RSA key and an EC key, both published, the EC key with a chain made at start', async () => {
    const serve = await startServe([
      '--port',
      '0',
      '--fixtures',
      FJORD_FIXTURES,
      '--key',
      RSA_KEY,
      '--key',
      EC_KEY,
    ]);
    try {
      const { json } = await signingCerts(`${serve.base}/protocol/openid-connect/certs`);
      const ecPublic = await exportJWK(createPrivateKey(EC_PEM));
      expect(json.keys.map((k) => k.kty)).toEqual(['RSA', 'EC']);
      expect(json.keys[1]).toMatchObject({ x: ecPublic.x, y: ecPublic.y, alg: 'ES256' });
      expect(json.keys[1]?.x5c).toHaveLength(2);
    } finally {
      await serve.stop();
    }
  });

  // An EC key given as a JWK file to --key, or as a fixtures `keys` entry's `file`: the realm signs the QA
  // mint's version 3 token ES256 with it, and certs publishes its public key under the token's kid.
  const EC_JWK = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
  const EC_JWK_FILE = join(tmp.dir, 'ec.jwk.json');
  writeFileSync(EC_JWK_FILE, JSON.stringify(EC_JWK));
  const FILE_FIXTURES = join(tmp.dir, 'ec-file.yaml');
  writeFileSync(
    FILE_FIXTURES,
    JSON.stringify({
      keys: [{ file: RSA_KEY }, { file: EC_KEY }],
      clients: { m2m: { secret: 's' } },
      users: { alice: {} },
    }),
  );
  it.each<[string, string[], JsonWebKey, string, string]>([
    [
      'serve --key with an EC P-256 JWK file',
      ['--fixtures', FJORD_FIXTURES, '--key', RSA_KEY, '--key', EC_JWK_FILE],
      EC_JWK,
      'teller-web',
      'ingrid',
    ],
    [
      'a fixtures keys entry with the EC key as file',
      ['--fixtures', FILE_FIXTURES],
      createPrivateKey(EC_PEM).export({ format: 'jwk' }),
      'm2m',
      'alice',
    ],
  ])('%s: the QA mint at apiVersion 3 signs ES256 with that key', async (_name, args, key, client, user) => {
    const serve = await startServe(['--port', '0', ...args]);
    try {
      const minted = await call<{ token: string }>('POST', `${serve.base}/mock/tokens`, {
        type: 'access',
        client,
        user,
        apiVersion: 3,
      });
      expect(minted.status, minted.text).toBe(200);
      const certs = `${serve.base}/protocol/openid-connect/certs`;
      const { protectedHeader, payload } = await jwtVerify(
        minted.json.token,
        createRemoteJWKSet(new URL(certs)),
        {
          algorithms: ['ES256'],
        },
      );
      expect(payload['api_ver']).toBe(3);
      const published = (await signingCerts(certs)).json.keys.find((k) => k.kid === protectedHeader.kid);
      expect(published).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', x: key.x, y: key.y });
      // The token verifies with that key's public half itself, as a client pinning it would.
      const publicKey = createPublicKey({ key, format: 'jwk' });
      await expect(jwtVerify(minted.json.token, publicKey)).resolves.toBeTruthy();
    } finally {
      await serve.stop();
    }
  });

  it('serve --key with two EC keys is refused: a realm signs ES256 with one', async () => {
    const { code, stderr } = await runBin([
      '--fixtures',
      FJORD_FIXTURES,
      '--port',
      '0',
      '--key',
      EC_KEY,
      '--key',
      EC_KEY,
    ]);
    expect(code).toBe(1);
    expect(stderr).toContain(`${EC_KEY}: a second EC P-256 key: a realm signs ES256 with one`);
  });

  it.each([
    ['PEM certificates', true],
    ['base64 DER certificates', false],
  ])('a fixtures EC entry with x5c as %s publishes that chain', async (_name, asPem) => {
    const first = await startIdp({ keyFile: [RSA_KEY, EC_KEY] });
    const chain = first.provider.keys.ec?.x5c ?? [];
    await first.close();
    const file = join(tmp.dir, `ec-x5c-${String(asPem)}.yaml`);
    const x5c = chain.map((der) => (asPem ? pem(der) : der));
    writeFileSync(
      file,
      JSON.stringify({
        keys: [{ file: RSA_KEY }, { pem: EC_PEM, x5c }],
        clients: { m2m: { secret: 's', grants: ['client_credentials'] } },
      }),
    );
    const idp = await startIdp({ fixtures: file });
    try {
      const { json } = await signingCerts(idp.endpoints.certs);
      expect(json.keys[1]?.x5c).toEqual(chain);
    } finally {
      await idp.close();
    }
  });

  it('a fixtures EC JWK without x5c gets a chain made at start', async () => {
    const jwk = createPrivateKey(EC_PEM).export({ format: 'jwk' });
    const file = join(tmp.dir, 'ec-jwk.yaml');
    writeFileSync(file, JSON.stringify({ keys: [{ jwk }], clients: { m2m: { secret: 's' } } }));
    const idp = await startIdp({ fixtures: file });
    try {
      const { json } = await signingCerts(idp.endpoints.certs);
      expect(json.keys.map((k) => k.kty)).toEqual(['RSA', 'EC']);
      expect(json.keys[1]).toMatchObject({ x: jwk.x, y: jwk.y });
    } finally {
      await idp.close();
    }
  });

  const P384 = generateKeyPairSync('ec', { namedCurve: 'P-384' })
    .privateKey.export({ format: 'pem', type: 'pkcs8' })
    .toString();
  const ED25519 = generateKeyPairSync('ed25519')
    .privateKey.export({ format: 'pem', type: 'pkcs8' })
    .toString();
  const EC_PUBLIC = createPrivateKey(EC_PEM).export({ format: 'jwk' }) as JsonWebKey;
  delete EC_PUBLIC.d;
  const CERT = 'MIIBdummy';

  it.each([
    [
      'a P-384 key',
      [{ pem: P384 }],
      'keys.yaml:2:12 keys[0].pem: an EC key on P-256 (prime256v1) is needed for ES256, got the curve secp384r1',
    ],
    [
      'an Ed25519 key',
      [{ pem: ED25519 }],
      'keys.yaml:2:12 keys[0].pem: an RSA key (RS256) or an EC P-256 key (ES256) is needed, got ed25519',
    ],
    [
      'a public EC JWK',
      [{ jwk: EC_PUBLIC }],
      'keys.yaml:2:12 keys[0].jwk: not a private key: a public JWK (no "d"): give the private key, whose public half clients verify with',
    ],
    [
      'two EC keys',
      [{ pem: EC_PEM }, { pem: EC_PEM }],
      'keys.yaml:3:12 keys[1]: a second EC P-256 key: a realm signs ES256 with one',
    ],
    [
      'x5c on the RSA key',
      [{ file: 'rsa.pem', x5c: [CERT] }],
      'keys.yaml:2:29 keys[0].x5c: x5c is for the EC P-256 key; the RSA key is published without one',
    ],
    [
      'use enc on the EC key',
      [{ pem: EC_PEM, use: 'enc' }],
      'keys.yaml:2:267 keys[0]: use enc is for an RSA key (RSA-OAEP), without x5c',
    ],
    [
      'two keys with use enc',
      [
        { file: 'rsa.pem', use: 'enc' },
        { file: 'rsa.pem', use: 'enc' },
      ],
      'keys.yaml:3:29 keys[1]: a second key with use enc: a realm has one',
    ],
    [
      'an x5c entry that is no certificate',
      [{ pem: EC_PEM, x5c: [CERT] }],
      'keys.yaml:2:267 keys[0]: x5c: a certificate that does not decode (give PEM or base64 DER)',
    ],
  ])('%s is refused at its line', async (_name, keys, line) => {
    const file = join(tmp.dir, 'keys.yaml');
    writeFileSync(
      file,
      `keys:\n${keys.map((k) => `  - ${JSON.stringify(k)}`).join('\n')}\nclients:\n  m2m: { secret: s }\n`,
    );
    const error = await loadFixturesFile(file)
      .then(buildRealm)
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    expect(error).toBeInstanceOf(FixturesError);
    expect((error as Error).message.replaceAll(`${tmp.dir}/`, '')).toBe(line);
  });

  it("an x5c whose first certificate is another key's is refused", async () => {
    const other = await startIdp({ seed: 'someone else' });
    const chain = (await other.provider.keys.ecKey())?.x5c ?? [];
    await other.close();
    const file = join(tmp.dir, 'keys.yaml');
    writeFileSync(
      file,
      JSON.stringify({ keys: [{ pem: EC_PEM, x5c: chain }], clients: { m2m: { secret: 's' } } }),
    );
    const { code, stderr } = await runBin(['check', file]);
    expect(code).not.toBe(0);
    expect(stderr).toContain("keys[0]: x5c: the first certificate is not the key's (its public key differs)");
  });
});

describe('mock-idp keygen --type ec', () => {
  it.each([
    [[], 'pem'],
    [['--jwk'], 'jwk'],
  ] as const)('%j prints a private P-256 key that serve --key accepts', async (args, format) => {
    const { code, stdout, stderr } = await runBin(['keygen', '--type', 'ec', ...args]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const key =
      format === 'pem'
        ? createPrivateKey(stdout)
        : createPrivateKey({ key: JSON.parse(stdout) as JsonWebKey, format: 'jwk' });
    if (format === 'pem')
      expect(stdout).toMatch(/^-----BEGIN PRIVATE KEY-----\n[\s\S]+-----END PRIVATE KEY-----\n$/);
    expect(key.asymmetricKeyType).toBe('ec');
    expect(key.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    const file = join(tmp.dir, `keygen-ec.${format}`);
    writeFileSync(file, stdout);
    const idp = await startIdp({ keyFile: file });
    try {
      expect((await signingCerts(idp.endpoints.certs)).json.keys.map((k) => k.kty)).toEqual(['RSA', 'EC']);
    } finally {
      await idp.close();
    }
  });

  it('--type dsa is a usage error', async () => {
    const { code, stderr } = await runBin(['keygen', '--type', 'dsa']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/Allowed choices are rsa, ec/);
  });
});
