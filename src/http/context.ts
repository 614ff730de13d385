// Per-request helpers shared by endpoint handlers: the issuer, parsed parameters, JSON answers.
import type { Request, Response } from 'express';
import { authenticateClient, type AuthenticatedClient } from '../oauth/client-auth.js';
import { Params } from '../oauth/params.js';
import type { RealmContext } from '../realm/context.js';
import { PATHS } from '../realm/paths.js';
import { requestOrigin } from './origin.js';

/** The realm base URL of this request (set by the realm router). */
export function issuerOf(res: Response): string {
  return res.locals['issuer'] as string;
}

/**
 * The audiences a client assertion may name at a back-channel endpoint: the issuer and `paths` under it, and
 * with back-channel URLs that follow the request, `paths` under the request's own realm base URL as well
 * (what discovery named for this client).
 */
function assertionAudiences(
  p: RealmContext,
  req: Request,
  res: Response,
  paths: readonly string[],
): string[] {
  const issuer = issuerOf(res);
  const bases = p.backchannelDynamic ? [issuer, p.backchannelBaseFor(requestOrigin(req))] : [issuer];
  return [issuer, ...new Set(bases.flatMap((base) => paths.map((path) => base + path)))];
}

/**
 * The client of a back-channel request to the endpoint at `path` (a realm path), authenticated as at the token
 * endpoint (a client assertion may name the token endpoint or this one), and named in the request's log line.
 * With the audiences such an assertion may name (a grant's own assertions may name them too).
 */
export async function authenticateAt(
  p: RealmContext,
  req: Request,
  res: Response,
  params: Params,
  path: string,
): Promise<AuthenticatedClient & { audiences: string[] }> {
  const paths = path === PATHS.token ? [PATHS.token] : [PATHS.token, path];
  const audiences = assertionAudiences(p, req, res, paths);
  const authenticated = await authenticateClient(p, {
    authorization: req.headers.authorization,
    params,
    audiences,
  });
  noteForLog(res, { client: authenticated.client.id });
  return { ...authenticated, audiences };
}

/** Query (GET) or urlencoded body (POST) as single-valued parameters. */
export function paramsOf(req: Request, repeatable: readonly string[] = []): Params {
  return Params.from(req.method === 'GET' ? req.query : req.body, [], repeatable);
}

/**
 * A JSON answer with `Content-Type: application/json` exactly, as the interface document shows it
 * (express's res.json would add `; charset=utf-8`).
 */
export function sendJson(
  res: Response,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.status(status);
  for (const name in headers) res.setHeader(name, headers[name] as string);
  res.setHeader('Content-Type', 'application/json');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

const NO_STORE: Readonly<Record<string, string>> = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

/** Token-endpoint style JSON: no caching (RFC 6749 §5.1). */
export function sendNoStore(res: Response, body: unknown, status = 200): void {
  sendJson(res, status, body, NO_STORE);
}

/** At `--log-level debug`, the request log says why the request was refused (computed only then). */
export function noteWhy(res: Response, why: string | (() => Promise<string>)): void {
  res.locals['why'] = why;
}

/** Records what the request log line should say about the client and grant. */
export function noteForLog(
  res: Response,
  fields: { client?: string; grant?: string; user?: string; error?: string },
): void {
  Object.assign(res.locals, fields);
}
