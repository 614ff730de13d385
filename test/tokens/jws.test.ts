// The prepared-header signer (src/tokens/jws.ts): for every alg it signs, its output is byte for byte what
// jose's SignJWT makes of the same claims and header, and jose verifies it with the public key or secret.
import { generateKeyPairSync } from 'node:crypto';
import { decodeProtectedHeader, jwtVerify, SignJWT, type JWTHeaderParameters, type JWTPayload } from 'jose';
import { describe, expect, it } from 'vitest';
import { toSigningKey } from '../../src/keys/key-store.js';
import { jwsHs256, jwsRs256 } from '../../src/tokens/jws.js';
import { hmacKey, realmSecret, signHs256, signRs256 } from '../../src/tokens/sign.js';

const CLAIMS: JWTPayload = {
  iss: 'http://127.0.0.1:8080/realms/fjord',
  sub: '7f3e2a10-5b6c-4d7e-8f90-a1b2c3d4e5f6',
  aud: ['payments-api', 'account'],
  exp: 1_795_423_335,
  iat: 1_795_423_035,
  name: 'Ærlig Østby-Åsen ✓ 𝄞', // multi-byte UTF-8 in the payload
  realm_access: { roles: ['user'] },
  events: { 'http://schemas.openid.net/event/backchannel-logout': {} },
};

const HEADERS: [string, Partial<JWTHeaderParameters> | undefined][] = [
  ['no extra header', undefined],
  ['an empty header', {}],
  ['typ overridden', { typ: 'logout+jwt' }],
  ['an extra parameter', { cty: 'JWT' }],
];

const signingKey = await toSigningKey(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey);
const secret = realmSecret(new Uint8Array(Array.from({ length: 32 }, (_, i) => i * 7)));

describe('RS256', () => {
  it.each(HEADERS)('with %s: jose’s bytes, verified by jose', async (_name, header) => {
    const ours = await jwsRs256(signingKey, CLAIMS, header);
    const theirs = await new SignJWT(CLAIMS)
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: signingKey.kid, ...header })
      .sign(signingKey.privateKey);
    expect(ours).toBe(theirs);
    const { payload, protectedHeader } = await jwtVerify(ours, signingKey.publicKey, {
      algorithms: ['RS256'],
      currentDate: new Date(1_795_423_100_000),
    });
    expect(payload).toEqual(CLAIMS);
    expect(protectedHeader).toEqual({ alg: 'RS256', typ: 'JWT', kid: signingKey.kid, ...header });
  });

  it('is what signRs256 issues, one header serialization per key', async () => {
    const a = await signRs256(signingKey, CLAIMS);
    expect(a).toBe(await jwsRs256(signingKey, CLAIMS));
    const other = await toSigningKey(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey);
    const b = await signRs256(other, CLAIMS);
    expect(decodeProtectedHeader(b).kid).toBe(other.kid);
    await expect(jwtVerify(b, signingKey.publicKey)).rejects.toThrow();
    await expect(
      jwtVerify(b, other.publicKey, { currentDate: new Date(1_795_423_100_000) }),
    ).resolves.toBeTruthy();
  });
});

describe('HS256', () => {
  it.each(HEADERS)('with %s: jose’s bytes, verified by jose', async (_name, header) => {
    const ours = jwsHs256(secret, CLAIMS, header);
    const theirs = await new SignJWT(CLAIMS)
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: secret.kid, ...header })
      .sign(secret.key);
    expect(ours).toBe(theirs);
    const { payload } = await jwtVerify(ours, await hmacKey(secret), {
      algorithms: ['HS256'],
      currentDate: new Date(1_795_423_100_000),
    });
    expect(payload).toEqual(CLAIMS);
    expect(await signHs256(secret, CLAIMS, header)).toBe(ours);
  });

  it('another secret does not verify it', async () => {
    const token = jwsHs256(secret, CLAIMS);
    const other = realmSecret(new Uint8Array(32).fill(1));
    await expect(jwtVerify(token, await hmacKey(other))).rejects.toThrow();
  });
});
