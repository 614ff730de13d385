// Errors as one class carrying HTTP status and `error` code, turned into a JSON body in exactly one place
// (sendOAuthError in http/error-handler.ts): the endpoints, the QA API and injected faults alike.

export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'unauthorized_client'
  | 'invalid_grant'
  | 'invalid_scope'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'unsupported_token_type'
  | 'invalid_target'
  | 'invalid_token'
  | 'invalid_dpop_proof'
  | 'access_denied'
  | 'login_required'
  | 'invalid_request_object'
  | 'invalid_request_uri'
  | 'invalid_client_metadata'
  | 'invalid_redirect_uri'
  | 'not_found'
  // RFC 8628 §3.5 and CIBA Core §11, §13.
  | 'authorization_pending'
  | 'slow_down'
  | 'expired_token'
  | 'unknown_user_id'
  | 'invalid_binding_message'
  | 'conflict'
  | 'temporarily_unavailable'
  | 'server_error'
  // Keycloak's answer for a realm it does not have, word for word.
  | 'Realm does not exist';

/** A code a tester injects through POST /mock/faults: any string, sent as given. */
type InjectedErrorCode = string & { readonly injected: unique symbol };

/** Marks a tester's code from POST /mock/faults as one the server sends as given. */
export const injected = (code: string): InjectedErrorCode => code as InjectedErrorCode;

type ErrorCode = OAuthErrorCode | InjectedErrorCode;

/**
 * What a request's Keycloak event says (see realm/events.ts), noted where it is known; the endpoint and grant
 * give the type and the OAuth error the error when not noted. Never a secret, token or password.
 */
export interface EventNote {
  type?: string;
  /** Keycloak's error string (`invalid_user_credentials`, `user_not_found`, …). */
  error?: string;
  clientId?: string;
  userId?: string;
  sessionId?: string;
  details?: Record<string, string>;
}

export class OAuthError extends Error {
  override name = 'OAuthError';
  /** The same for every OAuthError: the OAuth `error` says which. */
  readonly code = 'ERR_OAUTH' as const;
  readonly error: ErrorCode;
  readonly status: number;
  readonly headers: Record<string, string>;
  /** Members of the body beyond error and error_description (e.g. a fixtures replacement's `problems`). */
  readonly extra: Record<string, unknown>;
  /** For the debug log only: why, in more detail than the client is told (never a secret or token). */
  why?: string | (() => Promise<string>);
  /** The client the failed request named, for the request log line. */
  clientId?: string;
  /** What the realm's error event says beyond the OAuth error: Keycloak's error string, the user. */
  event?: EventNote;

  constructor(
    error: ErrorCode,
    description: string,
    status = 400,
    headers: Record<string, string> = {},
    extra: Record<string, unknown> = {},
  ) {
    super(description);
    this.error = error;
    this.status = status;
    this.headers = headers;
    this.extra = extra;
  }

  get description(): string {
    return this.message;
  }

  toJSON(): { error: ErrorCode; error_description: string } & Record<string, unknown> {
    return { error: this.error, error_description: this.message, ...this.extra };
  }
}

/** Adds log-only detail to an error (see OAuthError.why / clientId) and returns it. */
export function explained(
  err: OAuthError,
  detail: { why?: string | (() => Promise<string>); clientId?: string | undefined; event?: EventNote },
): OAuthError {
  if (detail.why !== undefined) err.why = detail.why;
  if (detail.clientId !== undefined) err.clientId = detail.clientId;
  if (detail.event !== undefined) err.event = detail.event;
  return err;
}

export const invalidRequest = (d: string): OAuthError => new OAuthError('invalid_request', d);

/**
 * A refusal in Keycloak 26's exact words for a realm read from a Keycloak realm file (suites moved from
 * Keycloak compare them), the mock's fuller words otherwise; a Keycloak realm's debug log gets the fuller ones.
 */
export function inKeycloakWords(
  keycloakRealm: boolean,
  make: (description: string) => OAuthError,
  words: { keycloak: string; mock: string },
): OAuthError {
  return keycloakRealm ? explained(make(words.keycloak), { why: words.mock }) : make(words.mock);
}
export const invalidGrant = (d: string): OAuthError => new OAuthError('invalid_grant', d);
export const invalidScope = (d: string): OAuthError => new OAuthError('invalid_scope', d);
export const unauthorizedClient = (d: string, status = 400): OAuthError =>
  new OAuthError('unauthorized_client', d, status);
/** Failed client authentication: 401, as Keycloak answers. */
export const invalidClient = (
  d: string,
  error: 'invalid_client' | 'unauthorized_client' = 'invalid_client',
): OAuthError => new OAuthError(error, d, 401);
export const invalidToken = (d: string): OAuthError =>
  new OAuthError('invalid_token', d, 401, {
    'WWW-Authenticate': `Bearer error="invalid_token", error_description="${d}"`,
  });

/** A DPoP proof refused at the token endpoint (RFC 9449): 400. */
export const invalidDPoPProof = (d: string): OAuthError => new OAuthError('invalid_dpop_proof', d);

/**
 * A resource request refused for its DPoP-bound token or its proof (RFC 9449 §7.1): 401 with a `DPoP`
 * challenge naming the algorithms a proof may use.
 */
export const dpopChallenge = (
  error: 'invalid_token' | 'invalid_dpop_proof',
  d: string,
  algs: readonly string[],
): OAuthError =>
  new OAuthError(error, d, 401, {
    'WWW-Authenticate': `DPoP error="${error}", error_description="${d.replaceAll('"', "'")}", algs="${algs.join(' ')}"`,
  });
