// Reads the two fixtures keys the container needs on the host side: the realm name and a fixed issuer.
import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import { MockIdpContainerError } from './errors.js';

export interface FixturesSummary {
  realm: string;
  issuer: string | undefined;
}

export const DEFAULT_REALM = 'mock';

/** The realm and fixed issuer of a fixtures file; the server itself validates everything else. */
export async function readFixturesSummary(path: string): Promise<FixturesSummary> {
  let document: unknown;
  try {
    document = parse(await readFile(path, 'utf8'));
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    throw new MockIdpContainerError('FIXTURES_UNREADABLE', `cannot read fixtures ${path}: ${reason}`, {
      cause,
    });
  }
  if (typeof document !== 'object' || document === null) return { realm: DEFAULT_REALM, issuer: undefined };
  const { realm, issuer } = document as { realm?: unknown; issuer?: unknown };
  return {
    realm: typeof realm === 'string' && realm !== '' ? realm : DEFAULT_REALM,
    issuer: typeof issuer === 'string' && issuer !== '' ? issuer : undefined,
  };
}
