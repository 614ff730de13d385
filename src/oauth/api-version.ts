// Which interface version a sign-in or grant follows, and which method acr_values asks for.
import type { Client, Realm, Subject } from '../fixtures/realm.js';
import {
  acrValueOf,
  API_VERSIONS,
  DEFAULT_METHODS,
  METHODS,
  SERVED_VERSIONS,
  type ApiVersion,
  type Method,
} from '../tokens/versions.js';
import { invalidRequest } from './errors.js';

/** The version configured for `client`: its own, else the realm's, else 1. Refused when not served yet. */
export function configuredVersion(realm: Realm, client: Client): ApiVersion {
  return servedVersion(client.apiVersion ?? realm.apiVersion ?? 1);
}

/**
 * The version of an authorize request: `api_version` (a string, or an integer a request object gave) when
 * present, else the client's. Another value: invalid_request.
 */
export function requestedVersion(realm: Realm, client: Client, value: string | undefined): ApiVersion {
  if (value === undefined) return configuredVersion(realm, client);
  const version = Number(value);
  if (!/^\d$/.test(value) || !(API_VERSIONS as readonly number[]).includes(version))
    throw invalidRequest(`Invalid parameter: api_version "${value}" (${API_VERSIONS.join(', ')})`);
  return servedVersion(version as ApiVersion);
}

/** `version` when this mock-idp issues tokens in it. */
export function servedVersion(version: ApiVersion): ApiVersion {
  if (!SERVED_VERSIONS.includes(version))
    throw invalidRequest(`api_version ${version} is not served by this mock-idp yet`);
  return version;
}

/** The methods `acr_values` asks for, in its order; values naming no method are ignored (OIDC Core 3.1.2.1). */
export function parseAcrValues(value: string | undefined, brand: string): Method[] {
  const methods: Method[] = [];
  for (const part of (value ?? '').split(' ')) {
    const method = METHODS.find((m) => acrValueOf(m, brand) === part);
    if (method !== undefined && !methods.includes(method)) methods.push(method);
  }
  return methods;
}

/** The first asked-for method `user` may use; none when nothing was asked or the user may use none of them. */
export function methodFor(asked: readonly Method[], user: Subject): Method | undefined {
  const allowed = user.methods ?? DEFAULT_METHODS;
  return asked.find((m) => allowed.includes(m));
}
