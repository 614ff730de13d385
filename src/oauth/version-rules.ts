// What interface version 4 requires of a request on top of the others: PKCE S256, state, nonce, no proof
// token, and a national id as login_hint only where no one but the client and the realm reads it.
import { nationalIdOfHint, type Client, type Realm } from '../fixtures/realm.js';
import { issuesProof, type ApiVersion } from '../tokens/versions.js';
import { configuredVersion } from './api-version.js';
import { invalidRequest, invalidScope } from './errors.js';
import type { Params } from './params.js';

/** How an authorize request arrived: pushed (RFC 9126) or plain (its parameters possibly in an encrypted object). */
export interface RequestVia {
  pushed: boolean;
}

/** The proof scope, refused where `version` has no proof token (authorize, and grants that take `scope`). */
export function checkProofScope(realm: Realm, version: ApiVersion, scopes: readonly string[]): void {
  if (!issuesProof(version) && scopes.includes(realm.brand.proof))
    throw invalidScope(
      `Invalid scopes: ${realm.brand.proof} (api_version ${version} has no proof token; leave the scope out)`,
    );
}

/**
 * A grant without a sign-in page (password, client credentials, JWT bearer, device, CIBA): the client's
 * configured version and the scopes granted, the proof scope refused where that version has none.
 */
export function versionedGrant(
  realm: Realm,
  client: Client,
  scopes: string[],
): { apiVersion: ApiVersion; scopes: string[] } {
  const apiVersion = configuredVersion(realm, client);
  checkProofScope(realm, apiVersion, scopes);
  return { apiVersion, scopes };
}

/** The checks version 4 adds at authorize, after every other one; earlier versions pass untouched. */
export function checkVersion4Request(
  realm: Realm,
  version: ApiVersion,
  params: Params,
  scopes: readonly string[],
  via: RequestVia,
): void {
  if (version < 4) return;
  checkProofScope(realm, version, scopes);
  if (params.get('code_challenge') === undefined)
    throw invalidRequest(
      `Missing parameter: code_challenge (api_version ${version} requires PKCE with S256)`,
    );
  const method = params.get('code_challenge_method');
  if (method === undefined)
    throw invalidRequest(
      `Missing parameter: code_challenge_method (api_version ${version} requires S256; plain is refused)`,
    );
  if (method !== 'S256')
    throw invalidRequest(
      `Invalid parameter: code_challenge_method "${method}" (api_version ${version} requires S256)`,
    );
  if (params.get('state') === undefined)
    throw invalidRequest(`Missing parameter: state (required at api_version ${version})`);
  if (params.get('nonce') === undefined)
    throw invalidRequest(`Missing parameter: nonce (required at api_version ${version})`);
  const hint = params.get('login_hint');
  // A hint in a plain request travels in the browser's URL (history, logs, Referer); a pushed request or an
  // encrypted request object keeps it between the client and the realm.
  if (
    hint !== undefined &&
    nationalIdOfHint(hint) !== undefined &&
    !via.pushed &&
    !params.sealed('login_hint')
  )
    throw invalidRequest(
      `Invalid parameter: login_hint carries a national identity number; api_version ${version} accepts one only inside a pushed request or an encrypted request object`,
    );
}
