// POST {realm}/clients-registrations/openid-connect (RFC 7591, open), GET and DELETE .../{client_id}
// with the registration access token (RFC 7592).
import express, { type Request, type RequestHandler } from 'express';
import type { RealmContext } from '../../realm/context.js';
import {
  RESERVED_MEMBER,
  jsonTextNestsDeeperThan,
  nestsDeeperThan,
  reservedMemberPaths,
} from '../../json-limits.js';
import { invalidRequest, invalidToken } from '../../oauth/errors.js';
import { invalidMetadata } from '../../oauth/client-metadata.js';
import { refused, registerClient, registeredClient, registrationResponse } from '../../oauth/registration.js';
import { issuerOf, noteForLog, sendJson } from '../context.js';
import { PATHS } from '../../realm/paths.js';

/** The registration body's limit, as the form endpoints'. */
const REGISTRATION_BODY_LIMIT = '64kb';

/** Reads the body as bytes whatever its type, so a wrong Content-Type gets its own answer. */
export const registrationBody = express.raw({ type: () => true, limit: REGISTRATION_BODY_LIMIT });

const noStore = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

function clientUri(issuer: string, clientId: string): string {
  return `${issuer}${PATHS.registration}/${encodeURIComponent(clientId)}`;
}

/** The JSON object a registration request carries. */
function metadataBody(req: Request): Record<string, unknown> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/json') throw invalidRequest('Content-Type must be application/json');
  const raw: unknown = req.body;
  const bytes = Buffer.isBuffer(raw) ? raw : Buffer.alloc(0);
  if (jsonTextNestsDeeperThan(bytes)) throw invalidMetadata('The body nests too deeply');
  const text = bytes.toString('utf8');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw invalidMetadata('The body is not JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw invalidMetadata('The body must be a JSON object of client metadata');
  if (nestsDeeperThan(body)) throw invalidMetadata('The body nests too deeply');
  if (reservedMemberPaths(body, 1).length > 0)
    throw invalidMetadata(`"${RESERVED_MEMBER}" is not a metadata name`);
  return body as Record<string, unknown>;
}

function bearer(req: Request): string | undefined {
  const header = req.headers.authorization;
  return header !== undefined ? /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] : undefined;
}

export function registerHandler(p: RealmContext): RequestHandler {
  return async (req, res) => {
    const body = metadataBody(req);
    const { client, accessToken } = await registerClient(p, body);
    noteForLog(res, { client: client.id });
    const uri = clientUri(issuerOf(res), client.id);
    sendJson(res, 201, registrationResponse(client, uri, accessToken), { ...noStore, Location: uri });
  };
}

/** GET (read) and DELETE of a registered client, with its registration access token. */
export function registeredClientHandler(p: RealmContext): RequestHandler {
  return async (req, res) => {
    const token = bearer(req);
    if (token === undefined)
      throw invalidToken(
        'Missing registration access token (Authorization: Bearer <registration_access_token>)',
      );
    // A client registered or deleted at another replica counts here at once (the request caught up first).
    const client = registeredClient(p.realm, String(req.params['clientId']), token);
    noteForLog(res, { client: client.id });
    if (req.method === 'DELETE') {
      if (!(await p.removeRegisteredClient(client))) throw refused();
      res.status(204).set(noStore).end();
      return;
    }
    sendJson(res, 200, registrationResponse(client, clientUri(issuerOf(res), client.id), token), noStore);
  };
}
