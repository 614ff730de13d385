// How a refusal of a grant the client does not list says what it lists and how to allow the grant: in the
// words of where the client came from (the YAML fixtures, a Keycloak realm file, dynamic registration).
import type { Client, Realm } from '../../fixtures/realm.js';
import type { GrantType } from './grant-types.js';

/** The client's grants as a refusal shows them: `grants: a, b`, or `grants: none`. */
export function grantsListed(client: Client): string {
  return `grants: ${client.grants.length > 0 ? client.grants.join(', ') : 'none'}`;
}

/** The switches of a Keycloak client that give it a grant a refusal names in the mock's own words. */
const KEYCLOAK_SWITCH: Partial<Record<GrantType, string>> = {
  client_credentials: '"serviceAccountsEnabled": true (and not "publicClient": true)',
};

/** What allows `grant` for `client`: the fixture key (with the list it would then be), switch or metadata. */
export function howToAllow(realm: Realm, client: Client, grant: GrantType): string {
  if (client.registration !== undefined) return `register a client with "${grant}" in its grant_types`;
  if (realm.keycloak !== undefined) {
    const on = KEYCLOAK_SWITCH[grant];
    return on !== undefined
      ? `set ${on} on client "${client.id}" in the realm file`
      : `turn the grant on for client "${client.id}" in the realm file`;
  }
  return `add ${grant} to the client's grants in the fixtures (clients.${client.id}.grants: [${[...client.grants, grant].join(', ')}])`;
}
