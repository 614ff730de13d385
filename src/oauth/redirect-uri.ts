// redirect_uri rules: exact match, or a registered value ending in * matches as a prefix.
import type { Client } from '../fixtures/realm.js';

export function isRegisteredRedirect(client: Client, uri: string): boolean {
  return client.redirectUris.some((registered) =>
    registered.endsWith('*') ? uri.startsWith(registered.slice(0, -1)) : uri === registered,
  );
}
