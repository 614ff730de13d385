// The implicit grant: tokens straight from the authorize endpoint (response types with `token` or
// `id_token`), never at the token endpoint. A client must list it in its fixtures `grants`.
import type { GrantDefinition } from './grant.js';

export const implicitGrant = {
  type: 'implicit',
  parameters: ['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'nonce', 'response_mode'],
  issuesIdToken: true,
} as const satisfies GrantDefinition;
