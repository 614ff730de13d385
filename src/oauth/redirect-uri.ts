// redirect_uri and post_logout_redirect_uri rules: exact match, or a registered value ending in * matches as a prefix.
import type { Client } from '../fixtures/realm.js';

/**
 * Whether `uri` may receive codes for `client`. An absolute URI without fragment (RFC 6749 §3.1.2) and
 * without user info, so a prefix such as `http://127.0.0.1:*` cannot be stretched to `http://127.0.0.1:80@evil.test/`.
 */
export function isRegisteredRedirect(client: Client, uri: string): boolean {
  return wellFormed(uri) && client.redirectUris.some((registered) => matchesRegistered(registered, uri));
}

/**
 * The request's redirect URI when it is registered for `client`, else why not: in the words the authorize
 * error page and a pushed request's JSON error both answer with.
 */
export function registeredRedirectUri(
  client: Client,
  redirectUri: string | undefined,
): { uri: string } | { problem: string } {
  if (redirectUri === undefined) return { problem: 'Missing parameter: redirect_uri' };
  if (!isRegisteredRedirect(client, redirectUri))
    return {
      problem: `Invalid parameter: redirect_uri "${redirectUri}" is not registered for client "${client.id}"`,
    };
  return { uri: redirectUri };
}

/** An absolute URI without fragment and user info. */
function wellFormed(uri: string): boolean {
  const url = URL.canParse(uri) ? new URL(uri) : undefined;
  return url !== undefined && url.username === '' && url.password === '' && !uri.includes('#');
}

/** As Keycloak matches: exact, or a prefix for a trailing `*`; a registered `{base}/*` also accepts the bare `{base}`. */
function matchesRegistered(registered: string, uri: string): boolean {
  if (!registered.endsWith('*')) return uri === registered;
  const prefix = registered.slice(0, -1);
  return uri.startsWith(prefix) || (prefix.endsWith('/') && uri === prefix.slice(0, -1));
}

/** Whether logout may redirect to `uri`: a redirect URI of the client, or one of its post-logout redirect URIs (exact). */
export function isRegisteredPostLogoutRedirect(client: Client, uri: string): boolean {
  return isRegisteredRedirect(client, uri) || (client.postLogoutRedirectUris?.includes(uri) ?? false);
}
