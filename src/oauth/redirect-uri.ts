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

/**
 * Whether logout may redirect to `uri`: a redirect URI of the client, or one of its post-logout redirect URIs:
 * a realm file's (`post.logout.redirect.uris`) matched as Keycloak matches redirect URIs (a trailing `*` is a
 * prefix), a registered client's exactly (OIDC RP-Initiated Logout).
 */
function isRegisteredPostLogoutRedirect(client: Client, uri: string): boolean {
  if (isRegisteredRedirect(client, uri)) return true;
  const registered = client.postLogoutRedirectUris ?? [];
  if (client.registration !== undefined) return registered.includes(uri);
  return wellFormed(uri) && registered.some((r) => matchesRegistered(r, uri));
}

/** How a logout request named its client: the client_id parameter, or the audience of id_token_hint. */
interface LogoutClient {
  /** The client id named, if any; `client` is that client when the realm has it. */
  id: string | undefined;
  from: 'client_id' | 'id_token_hint';
  client: Client | undefined;
  /** The realm was read from a Keycloak realm file (its keys differ from the YAML fixtures'). */
  keycloakRealm: boolean;
}

/**
 * Why logout refuses `uri` (Keycloak's 400 "Invalid redirect uri"), in words that name the URI, the client
 * and where its id came from, the URIs that client has registered and the key that registers them;
 * undefined: logout may redirect there.
 */
export function postLogoutRedirectProblem(uri: string, named: LogoutClient): string | undefined {
  const given = `post_logout_redirect_uri "${uri}"`;
  const source = named.from === 'client_id' ? 'client_id' : 'the audience of id_token_hint';
  const { client } = named;
  if (named.id === undefined)
    return `Invalid redirect uri: ${given} needs client_id or id_token_hint to name its client`;
  if (client === undefined)
    return `Invalid redirect uri: ${given} is for client "${named.id}" (${source}), which this realm does not have`;
  if (isRegisteredPostLogoutRedirect(client, uri)) return undefined;
  const registered = [...client.redirectUris, ...(client.postLogoutRedirectUris ?? [])];
  const listed =
    registered.length > 0
      ? `it accepts ${registered.map((u) => `"${u}"`).join(', ')}`
      : 'it has no redirect URIs registered';
  return `Invalid redirect uri: ${given} is not registered for client "${client.id}" (${source}): ${listed}; ${registeringKey(client, named.keycloakRealm)}`;
}

/** The key that registers a client's post-logout redirect URIs, in the words of where the client came from. */
function registeringKey(client: Client, keycloakRealm: boolean): string {
  if (client.registration !== undefined)
    return 'a registered client names them in post_logout_redirect_uris (or redirect_uris)';
  if (keycloakRealm)
    return 'add it to redirectUris or to the attribute "post.logout.redirect.uris" (URIs joined by ##) of this client in the realm file';
  return `add it to clients.${client.id}.redirectUris in the fixtures (a trailing * matches as a prefix)`;
}
