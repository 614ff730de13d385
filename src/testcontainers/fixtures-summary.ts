// Reads what the container needs of the fixtures on the host side: the realm name, a fixed issuer, and
// the clients (for the one-call token flows).
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import type { FlowClient } from '../flows/token-flow.js';
import { MockIdpContainerError } from './errors.js';

interface FixturesSummary {
  realm: string;
  issuer: string | undefined;
  clients: Map<string, FlowClient>;
}

/** The fixtures the image serves unless others are mounted: the package's bundled ones. */
export const BUNDLED_FIXTURES = fileURLToPath(new URL('../../fixtures/default.yaml', import.meta.url));

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];

const version = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);

/** The clients, each with its interface version (its own, else the realm's `realmVersion`). */
function clientsOf(value: unknown, realmVersion?: number): Map<string, FlowClient> {
  const clients = new Map<string, FlowClient>();
  if (Array.isArray(value)) return keycloakClientsOf(value);
  if (typeof value !== 'object' || value === null) return clients;
  for (const [id, c] of Object.entries(value as Record<string, unknown>)) {
    const client = (typeof c === 'object' && c !== null ? c : {}) as Record<string, unknown>;
    const secret = typeof client['secret'] === 'string' ? client['secret'] : undefined;
    const methods = strings(client['authMethods']);
    clients.set(id, {
      id,
      ...(secret !== undefined ? { secret } : {}),
      authMethods: methods.length > 0 ? methods : ['client_secret_basic', 'client_secret_post'],
      redirectUris: strings(client['redirectUris']),
      apiVersion: version(client['apiVersion']) ?? realmVersion,
    });
  }
  return clients;
}

/** A Keycloak realm file's clients (a list of client representations), by clientId. */
function keycloakClientsOf(list: unknown[]): Map<string, FlowClient> {
  const clients = new Map<string, FlowClient>();
  for (const c of list) {
    if (typeof c !== 'object' || c === null) continue;
    const client = c as Record<string, unknown>;
    const id = client['clientId'];
    if (typeof id !== 'string') continue;
    const secret = typeof client['secret'] === 'string' ? client['secret'] : undefined;
    clients.set(id, {
      id,
      ...(secret !== undefined ? { secret } : {}),
      authMethods: client['publicClient'] === true ? ['none'] : ['client_secret_basic', 'client_secret_post'],
      redirectUris: strings(client['redirectUris']),
    });
  }
  return clients;
}

const DEFAULT_REALM = 'mock';

/** The realm and fixed issuer of a fixtures file; the server itself validates everything else. */
export async function readFixturesSummary(path: string): Promise<FixturesSummary> {
  let document: unknown;
  try {
    document = parse(await readFile(path, 'utf8'), { merge: true });
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    throw new MockIdpContainerError('FIXTURES_UNREADABLE', `cannot read fixtures ${path}: ${reason}`, {
      cause,
    });
  }
  if (typeof document !== 'object' || document === null)
    return { realm: DEFAULT_REALM, issuer: undefined, clients: new Map() };
  const { realm, issuer, clients, apiVersion } = document as {
    realm?: unknown;
    issuer?: unknown;
    clients?: unknown;
    apiVersion?: unknown;
  };
  return {
    realm: typeof realm === 'string' && realm !== '' ? realm : DEFAULT_REALM,
    issuer: typeof issuer === 'string' && issuer !== '' ? issuer : undefined,
    clients: clientsOf(clients, version(apiVersion)),
  };
}
