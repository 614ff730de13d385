// `mock-idp keygen`: print a new private key for --key (PKCS#8 PEM, or JWK): RSA, or EC P-256 (`--type ec`).
import { generateKeyPair as generateKeyPairCb } from 'node:crypto';
import { promisify } from 'node:util';

const generateKeyPair = promisify(generateKeyPairCb);

export async function keygen(
  options: { bits: number; jwk?: boolean; type?: 'rsa' | 'ec' },
  stdout: (text: string) => void,
): Promise<void> {
  const { privateKey } =
    options.type === 'ec'
      ? await generateKeyPair('ec', { namedCurve: 'P-256' })
      : await generateKeyPair('rsa', { modulusLength: options.bits });
  if (options.jwk) stdout(JSON.stringify(privateKey.export({ format: 'jwk' }), null, 2));
  else stdout((privateKey.export({ format: 'pem', type: 'pkcs8' }) as string).trimEnd());
}
