// Starts and stops real mock-idp servers on 127.0.0.1:0 for tests, from a fixtures file or object.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import { PATHS } from '../../src/realm/paths.js';
import { startMockIdp, type MockIdp, type MockIdpOptions } from '../../src/server.js';

/** The realm most tests use: written for these tests in the PRODUCT.md §3 format, not the bundled one. */
export const FJORD_FIXTURES = fileURLToPath(new URL('../fixtures-data/fjord.yaml', import.meta.url));
/** Private JWK of the fixture client `vault-signer` (private_key_jwt). */
export const VAULT_SIGNER_KEY = fileURLToPath(
  new URL('../fixtures-data/vault-signer.private.jwk.json', import.meta.url),
);

/** The 2030-01-01T00:00:00Z instant tests freeze the clock at, in epoch seconds. */
export const Y2030 = 1_893_456_000;

/** Every URL under a realm base, by its name in src/realm/paths.ts. */
export type Endpoints = { [name in keyof typeof PATHS]: string };

export interface TestIdp extends MockIdp {
  endpoints: Endpoints;
}

/** The realm's URLs for a realm base URL (the issuer), built from src/realm/paths.ts. */
export function endpointsOf(issuer: string): Endpoints {
  return Object.fromEntries(Object.entries(PATHS).map(([name, path]) => [name, issuer + path])) as Endpoints;
}

/** Starts a server (default: the fjord fixtures, 127.0.0.1, port 0). The caller closes it. */
export async function startIdp(options: MockIdpOptions = {}): Promise<TestIdp> {
  const idp = await startMockIdp({ fixtures: FJORD_FIXTURES, host: '127.0.0.1', port: 0, ...options });
  return Object.assign(idp, { endpoints: endpointsOf(idp.issuer) });
}

/**
 * A server for the tests of the calling file or describe block: started in beforeAll, closed in afterAll.
 * The returned object stands for the server once it has started.
 */
export function useIdp(options: MockIdpOptions | (() => MockIdpOptions) = {}): TestIdp {
  let current: TestIdp | undefined;
  beforeAll(async () => {
    current = await startIdp(typeof options === 'function' ? options() : options);
  });
  afterAll(async () => {
    await current?.close();
    current = undefined;
  });
  return new Proxy({} as TestIdp, {
    get(_target, name) {
      if (current === undefined) throw new Error('useIdp(): the server starts in beforeAll');
      const value: unknown = Reflect.get(current, name);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(current) : value;
    },
  });
}
