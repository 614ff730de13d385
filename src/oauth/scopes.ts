// Scope rules: parsing, what a client may be granted, and narrowing on refresh.
import type { Client, Realm } from '../fixtures/realm.js';
import { invalidScope } from './errors.js';

/** Scopes that a client_credentials request without `scope` does not get by default (and the brand's proof). */
const NOT_DEFAULT = new Set(['openid', 'offline_access', 'nnin_altsub']);

/** Splits a space-separated scope string; duplicates collapse, order is kept. Case-sensitive. */
export function parseScope(value: string | undefined): string[] {
  if (value === undefined) return [];
  return [...new Set(value.split(' ').filter((s) => s.length > 0))];
}

/** Checks requested scopes against the realm and the client; answers invalid_scope naming the culprits. */
export function grantScopes(realm: Realm, client: Client, requested: string[]): string[] {
  const bad = requested.filter((s) => !realm.scopes.has(s) || !client.scopes.includes(s));
  if (bad.length > 0)
    throw invalidScope(
      `Invalid scopes: ${bad.join(' ')} (client "${client.id}" may request: ${client.scopes.join(' ')})`,
    );
  return requested;
}

/** Scopes of a client_credentials request: the requested ones, or the client's default scopes. */
export function clientCredentialsScopes(realm: Realm, client: Client, requested: string[]): string[] {
  if (requested.length > 0) return grantScopes(realm, client, requested);
  // A Keycloak realm's client gets its default client scopes whatever it asks for, and the optional ones only when asked.
  if (realm.keycloak !== undefined) return [];
  return client.scopes.filter((s) => !NOT_DEFAULT.has(s) && s !== realm.brand.proof && realm.scopes.has(s));
}

/** A refresh may keep or narrow the original scopes, never widen them. */
export function narrowScopes(original: string[], requested: string[]): string[] {
  if (requested.length === 0) return original;
  const wider = requested.filter((s) => !original.includes(s));
  if (wider.length > 0) {
    throw invalidScope(
      `Invalid scopes: ${wider.join(' ')} was not granted originally (granted: ${original.join(' ')})`,
    );
  }
  return requested;
}
