// Every grant mock-idp supports, in the order discovery lists them. The token endpoint dispatches through
// this list, discovery's grant_types_supported and the fixtures schema's `grants` values derive from it:
// adding a grant is one module here.
import { authorizationCodeGrant } from './authorization-code.js';
import { clientCredentialsGrant } from './client-credentials.js';
import type { GrantDefinition } from './grant.js';
import { implicitGrant } from './implicit.js';
import { passwordGrant } from './password.js';
import { refreshTokenGrant } from './refresh-token.js';

export const GRANTS = [
  authorizationCodeGrant,
  implicitGrant,
  refreshTokenGrant,
  passwordGrant,
  clientCredentialsGrant,
] as const satisfies readonly GrantDefinition[];

export type GrantType = (typeof GRANTS)[number]['type'];

/** Every grant type, in discovery's order. */
export const GRANT_TYPES = GRANTS.map((g) => g.type) as [GrantType, ...GrantType[]];

/** The grants the token endpoint serves, by `grant_type`. */
export const TOKEN_GRANTS: ReadonlyMap<string, Required<GrantDefinition>> = new Map(
  GRANTS.flatMap((g): [string, Required<GrantDefinition>][] => ('handle' in g ? [[g.type, g]] : [])),
);
