// mock-idp/testcontainers: run mock-idp as a Testcontainers service.
export {
  MockIdpContainer,
  MOCK_IDP_BASE_IMAGE,
  MOCK_IDP_IMAGE,
  MOCK_IDP_PORT,
  type ClockOptions,
} from './mock-idp-container.js';
export { StartedMockIdpContainer, type StartedMockIdpOptions } from './started-mock-idp-container.js';
export { MockIdpContainerError, type MockIdpContainerErrorCode } from './errors.js';
export type {
  MintRequest,
  MintedToken,
  MintedTokenClaims,
  MintedTokenHeader,
  MintTokenType,
  MintSignature,
} from '../qa/mint-request.js';
export { TokenFlowError, type TokenFlowRequest, type FlowClient } from '../flows/token-flow.js';
export type { TokenResponse } from '../oauth/token-set.js';
export type { JournalRecord } from '../store/journal.js';
