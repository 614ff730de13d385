// Per-request helpers shared by endpoint handlers: the issuer, parsed parameters, JSON answers.
import type { Request, Response } from 'express';
import { Params } from '../oauth/params.js';

/** The realm base URL of this request (set by the realm router). */
export function issuerOf(res: Response): string {
  return res.locals['issuer'] as string;
}

/** Query (GET) or urlencoded body (POST) as single-valued parameters. */
export function paramsOf(req: Request): Params {
  return Params.from(req.method === 'GET' ? req.query : req.body);
}

/** Token-endpoint style JSON: no caching (RFC 6749 §5.1). */
export function sendNoStore(res: Response, body: unknown, status = 200): void {
  res.status(status).set({ 'Cache-Control': 'no-store', Pragma: 'no-cache' }).json(body);
}

/** Records what the request log line should say about the client and grant. */
export function noteForLog(res: Response, fields: { client?: string; grant?: string }): void {
  Object.assign(res.locals, fields);
}
