// The one place errors become HTTP answers: OAuth JSON for client mistakes, a bare server_error otherwise.
import type { ErrorRequestHandler, Response } from 'express';
import { isMockIdpError, type MockIdpError } from '../errors.js';
import { OAuthError } from '../oauth/errors.js';
import { sendJson } from './context.js';
import { noteEvent } from './events.js';
import type { Logger } from '../log.js';

/** Errors thrown by body parsers (http-errors shape). */
interface HttpError {
  status?: number;
  statusCode?: number;
  type?: string;
  expose?: boolean;
}

function sendOAuthError(res: Response, err: OAuthError): void {
  sendJson(res, err.status, err.toJSON(), {
    'Cache-Control': 'no-store',
    Pragma: 'no-cache',
    ...err.headers,
  });
}

/** The answer to a mock-idp error: its OAuth body, or undefined for one that is a server fault (500). */
function oauthErrorOf(err: MockIdpError): OAuthError | undefined {
  switch (err.code) {
    case 'ERR_OAUTH':
      return err;
    // Each request handler turns the client's mistakes into an OAuthError where it knows the words
    // (a bad clock setting, a fixtures replacement's problems); one that reaches here is the server's.
    case 'ERR_FIXTURES_INVALID':
    case 'ERR_KEY_INVALID':
    case 'ERR_TLS_INVALID':
    case 'ERR_CLOCK_RANGE':
    case 'ERR_STORE_UNAVAILABLE':
    case 'ERR_LISTEN':
    case 'ERR_TOKEN_FLOW':
    case 'ERR_CLI':
    case 'FIXTURES_UNREADABLE':
    case 'KEY_UNREADABLE':
    case 'CA_UNREADABLE':
    case 'MINT_FAILED':
    case 'QA_FAILED':
      return undefined;
  }
}

/** A body parser's refusal (http-errors shape, a 4xx) as invalid_request, else undefined. */
function parserErrorOf(err: unknown): OAuthError | undefined {
  const e = err as HttpError;
  const status = e.status ?? e.statusCode;
  if (status === undefined || status < 400 || status >= 500) return undefined;
  const description =
    e.type === 'entity.too.large'
      ? 'Request body too large'
      : e.type === 'entity.parse.failed'
        ? 'Malformed request body'
        : e.type === 'charset.unsupported' || e.type === 'encoding.unsupported'
          ? 'Unsupported body encoding'
          : 'Bad request';
  return new OAuthError('invalid_request', description, status);
}

export function errorHandler(log: Logger): ErrorRequestHandler {
  return (err: unknown, _req, res, next) => {
    if (res.headersSent) {
      next(err);
      return;
    }
    const oauth = isMockIdpError(err) ? oauthErrorOf(err) : undefined;
    res.locals['error'] = oauth?.error;
    if (oauth !== undefined) {
      res.locals['why'] ??= oauth.why ?? oauth.description;
      res.locals['client'] ??= oauth.clientId;
      if (oauth.event !== undefined) noteEvent(res, oauth.event);
      sendOAuthError(res, oauth);
      return;
    }
    const parser = parserErrorOf(err);
    if (parser !== undefined) {
      sendOAuthError(res, parser);
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
