// `mock-idp keygen`: print a new private RSA key (PKCS#8 PEM, or JWK) for --key.
import { generateKeyPair as generateKeyPairCb } from 'node:crypto';
import { promisify } from 'node:util';

const generateKeyPair = promisify(generateKeyPairCb);

export async function keygen(
  options: { bits: number; jwk?: boolean },
  stdout: (text: string) => void,
): Promise<void> {
  const { privateKey } = await generateKeyPair('rsa', { modulusLength: options.bits });
  if (options.jwk) stdout(JSON.stringify(privateKey.export({ format: 'jwk' }), null, 2));
  else stdout((privateKey.export({ format: 'pem', type: 'pkcs8' }) as string).trimEnd());
}
