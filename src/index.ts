// Package entry: startMockIdp, loadFixtures and their types.
import { fixturesFromObject, loadFixturesFile } from './fixtures/load.js';
import type { Fixtures, FixturesInput } from './fixtures/schema.js';
import type { KeycloakRealmInput } from './fixtures/keycloak/schema.js';

export {
  startMockIdp,
  DEFAULT_FIXTURES,
  type CloseOptions,
  type MockIdp,
  type MockIdpOptions,
  type RequestFilter,
} from './server.js';
export type { JournalRecord } from './store/journal.js';
export { TokenFlowError, type TokenFlowRequest } from './flows/token-flow.js';
export type { TokenResponse } from './oauth/token-set.js';
export type {
  MintRequest,
  MintedToken,
  MintedTokenClaims,
  MintedTokenHeader,
  MintTokenType,
  MintSignature,
} from './qa/mint-request.js';
export type { FaultSpec } from './qa/fault-spec.js';
export type { PendingFault } from './store/faults.js';
export { FixturesError, type FixtureProblem } from './fixtures/errors.js';
export type {
  Fixtures,
  FixturesInput,
  ClientFixture,
  UserFixture,
  ScopeFixture,
  TokenSettings,
} from './fixtures/schema.js';
/** A Keycloak realm representation (what `kc.sh export` writes), as `fixtures` and `loadFixtures` take it. */
export type { KeycloakRealmInput };
export { Clock, type ClockSetting, type ClockState } from './clock.js';
export { OAuthError, type OAuthErrorCode } from './oauth/errors.js';
export type { MockIdpError, MockIdpErrorCode } from './errors.js';
export type { LogLevel } from './log.js';
export { TlsError, type TlsOptions } from './keys/tls.js';

/**
 * Loads and validates fixtures from a YAML/JSON file path or an object (the fixtures format, or a Keycloak
 * realm representation); throws FixturesError listing every problem.
 */
export async function loadFixtures(source: string | FixturesInput | KeycloakRealmInput): Promise<Fixtures> {
  return (typeof source === 'string' ? await loadFixturesFile(source) : fixturesFromObject(source)).fixtures;
}
