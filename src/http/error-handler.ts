// The one place errors become HTTP answers: OAuth JSON for client mistakes, a bare server_error otherwise.
import type { ErrorRequestHandler, Response } from 'express';
import { OAuthError } from '../oauth/errors.js';
import { sendJson } from './context.js';
import type { Logger } from '../log.js';

/** Errors thrown by body parsers (http-errors shape). */
interface HttpError {
  status?: number;
  statusCode?: number;
  type?: string;
  expose?: boolean;
}

export function sendOAuthError(res: Response, err: OAuthError): void {
  sendJson(res, err.status, err.toJSON(), {
    'Cache-Control': 'no-store',
    Pragma: 'no-cache',
    ...err.headers,
  });
}

export function errorHandler(log: Logger): ErrorRequestHandler {
  return (err: unknown, _req, res, next) => {
    if (res.headersSent) {
      next(err);
      return;
    }
    res.locals['error'] = err instanceof OAuthError ? err.error : undefined;
    if (err instanceof OAuthError) {
      res.locals['why'] ??= err.why ?? err.description;
      res.locals['client'] ??= err.clientId;
      sendOAuthError(res, err);
      return;
    }
    const e = err as HttpError;
    const status = e.status ?? e.statusCode;
    if (status !== undefined && status >= 400 && status < 500) {
      const description =
        e.type === 'entity.too.large'
          ? 'Request body too large'
          : e.type === 'entity.parse.failed'
            ? 'Malformed request body'
            : e.type === 'charset.unsupported' || e.type === 'encoding.unsupported'
              ? 'Unsupported body encoding'
              : 'Bad request';
      sendOAuthError(res, new OAuthError('invalid_request', description, status));
      return;
    }
    log.error(`unexpected error: ${(err as Error)?.stack ?? String(err)}`);
    sendJson(
      res,
      500,
      { error: 'server_error', error_description: 'Unexpected server error' },
      { 'Cache-Control': 'no-store' },
    );
  };
}
