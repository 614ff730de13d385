// The admin REST API's refusals, with Keycloak 26's bodies: `{"error", "error_description"}` for 401, 403,
// 404 and a body it cannot parse (its exception handler's), `{"errorMessage"}` for a bad request (400) and a
// duplicate (409).
export class AdminError extends Error {
  readonly status: number;
  readonly body: Record<string, string>;
  /** Response headers besides the body (Allow, for a 405). */
  readonly headers: Record<string, string>;
  constructor(status: number, body: Record<string, string>, headers: Record<string, string> = {}) {
    super(body['errorMessage'] ?? body['error'] ?? `HTTP ${status}`);
    this.status = status;
    this.body = body;
    this.headers = headers;
  }
}

/** What Keycloak's exception handler says below 500 when it has nothing more to say. */
const DEBUG_LEVEL = 'For more on this error consult the server log at the debug level.';

export const notFound = (what: string, description = DEBUG_LEVEL): AdminError =>
  new AdminError(404, { error: what, error_description: description });
/** A known admin path asked with another method: Keycloak's (RESTEasy's) 405, with Allow. */
export const methodNotAllowedHere = (description: string, allow: string): AdminError =>
  new AdminError(
    405,
    { error: 'HTTP 405 Method Not Allowed', error_description: description },
    { Allow: allow },
  );
export const conflict = (message: string): AdminError => new AdminError(409, { errorMessage: message });
export const badRequest = (message: string): AdminError => new AdminError(400, { errorMessage: message });
export const unauthorized = (): AdminError =>
  new AdminError(401, { error: 'HTTP 401 Unauthorized', error_description: DEBUG_LEVEL });
export const forbidden = (): AdminError =>
  new AdminError(403, { error: 'unknown_error', error_description: DEBUG_LEVEL });
/** A body that is not JSON (invalid_request), or JSON of the wrong shape (unknown_error, with where and why). */
export const cannotParse = (code: 'invalid_request' | 'unknown_error', detail?: string): AdminError =>
  new AdminError(400, {
    error: code,
    error_description: detail === undefined ? 'Cannot parse the JSON' : `Cannot parse the JSON: ${detail}`,
  });
