// Every grant mock-idp supports: one module per name of GRANT_TYPES (grant-types.ts), which discovery and the
// fixtures schema list. The token endpoint dispatches through this list.
import { authorizationCodeGrant } from './authorization-code.js';
import { cibaGrant } from './ciba.js';
import { clientCredentialsGrant } from './client-credentials.js';
import { deviceCodeGrant } from './device-code.js';
import type { GrantDefinition } from './grant.js';
import { GRANT_TYPES, type GrantType } from './grant-types.js';
import { implicitGrant } from './implicit.js';
import { jwtBearerGrant } from './jwt-bearer.js';
import { passwordGrant } from './password.js';
import { refreshTokenGrant } from './refresh-token.js';
import { tokenExchangeGrant } from './token-exchange.js';

export const GRANTS = [
  authorizationCodeGrant,
  implicitGrant,
  refreshTokenGrant,
  passwordGrant,
  clientCredentialsGrant,
  tokenExchangeGrant,
  jwtBearerGrant,
  deviceCodeGrant,
  cibaGrant,
] as const satisfies readonly GrantDefinition<GrantType>[];

// A name without its module would be advertised and accepted in fixtures, yet never served.
for (const type of GRANT_TYPES)
  if (!GRANTS.some((g) => g.type === type)) throw new Error(`grant type ${type} has no module`);

export { GRANT_TYPES };

/** A grant the token endpoint serves. */
type TokenGrant = GrantDefinition & Required<Pick<GrantDefinition, 'handle'>>;

/** The grants the token endpoint serves, by `grant_type`. */
export const TOKEN_GRANTS: ReadonlyMap<string, TokenGrant> = new Map(
  GRANTS.flatMap((g): [string, TokenGrant][] => ('handle' in g ? [[g.type, g]] : [])),
);
