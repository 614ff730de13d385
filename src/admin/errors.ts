// The admin REST API's refusals, with Keycloak's bodies: `{"error": ...}` for 401, 403 and 404,
// `{"errorMessage": ...}` for a bad request (400) and a duplicate (409).
export class AdminError extends Error {
  readonly status: number;
  readonly body: Record<string, string>;
  constructor(status: number, body: Record<string, string>) {
    super(body['errorMessage'] ?? body['error'] ?? `HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
}

export const notFound = (what: string): AdminError => new AdminError(404, { error: what });
export const conflict = (message: string): AdminError => new AdminError(409, { errorMessage: message });
export const badRequest = (message: string): AdminError => new AdminError(400, { errorMessage: message });
export const unauthorized = (): AdminError => new AdminError(401, { error: 'HTTP 401 Unauthorized' });
export const forbidden = (): AdminError => new AdminError(403, { error: 'HTTP 403 Forbidden' });
