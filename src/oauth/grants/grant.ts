// What one grant module exports: its name, the form parameters it reads, whether its token response carries
// an ID token, and its token-endpoint handler. The registry (registry.ts) lists them all.
import type { Client } from '../../fixtures/realm.js';
import type { AuthMethod } from '../../fixtures/schema.js';
import type { RealmContext } from '../../realm/context.js';
import type { Grant } from '../../tokens/claims.js';
import type { Params } from '../params.js';

/** A token request after client authentication. */
export interface GrantRequest {
  client: Client;
  /** How the client authenticated (`none` for a public client). */
  method: AuthMethod;
  params: Params;
  /** The realm base URL the request came to. */
  issuer: string;
}

export interface GrantDefinition<Type extends string = string> {
  /** The `grant_type` value, and the name a client lists in its fixtures `grants`. */
  readonly type: Type;
  /** The request parameters it reads, besides `grant_type` and client authentication. */
  readonly parameters: readonly string[];
  /** Whether its token response carries an ID token (when `openid` is granted to a user). */
  readonly issuesIdToken: boolean;
  /**
   * The token endpoint's handler: checks the request and returns what to issue tokens for. Undefined for a
   * grant that is used at the authorize endpoint only (implicit).
   */
  readonly handle?: (ctx: RealmContext, request: GrantRequest) => Grant | Promise<Grant>;
}
