// The ephemeral RSA-2048 key, started ahead: the CLI begins generating it (on the thread pool) before it
// loads the rest of the program, so key generation overlaps module loading at cold start.
import { generateKeyPair, type KeyObject } from 'node:crypto';

let pending: Promise<KeyObject> | undefined;

/** A fresh RSA-2048 private key, made on the thread pool. */
export function generateRsaKey(): Promise<KeyObject> {
  return new Promise((resolve, reject) => {
    generateKeyPair('rsa', { modulusLength: 2048 }, (err, _publicKey, privateKey) =>
      err ? reject(err) : resolve(privateKey),
    );
  });
}

/** Starts generating a key now; the next takeEphemeralKey() gets it. */
export function startEphemeralKey(): void {
  pending ??= generateRsaKey();
  pending.catch(() => undefined);
}

/** A fresh private key: the one started ahead if there is one (each key is handed out once). */
export function takeEphemeralKey(): Promise<KeyObject> {
  const key = pending ?? generateRsaKey();
  pending = undefined;
  return key;
}
