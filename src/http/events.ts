// A request's Keycloak event (realm/events.ts saves it): noted by the handler that knows what happened, or,
// for a refused request, made from its endpoint, grant and OAuth error; saved when the response is finished,
// with the request's address.
import type { Request, Response } from 'express';
import type { EventNote } from '../oauth/errors.js';
import type { RealmContext } from '../realm/context.js';
import { addressOf, saveUserEvent } from '../realm/events.js';

/** The event type of a token request, by its grant type (as noted for the log line). */
const GRANT_EVENTS: Readonly<Record<string, string>> = {
  authorization_code: 'CODE_TO_TOKEN',
  refresh_token: 'REFRESH_TOKEN',
  client_credentials: 'CLIENT_LOGIN',
  password: 'LOGIN',
  'urn:ietf:params:oauth:grant-type:token-exchange': 'TOKEN_EXCHANGE',
  'urn:ietf:params:oauth:grant-type:device_code': 'OAUTH2_DEVICE_CODE_TO_TOKEN',
  'urn:openid:params:grant-type:ciba': 'AUTHREQID_TO_TOKEN',
};

/** The event type of another endpoint's requests. */
const ENDPOINT_EVENTS: Readonly<Record<string, string>> = {
  auth: 'LOGIN',
  userinfo: 'USER_INFO_REQUEST',
  introspect: 'INTROSPECT_TOKEN',
  logout: 'LOGOUT',
};

/** Keycloak's error string for an OAuth error of a request of `type`, where the two differ. */
function keycloakError(type: string, error: string): string {
  if (error === 'invalid_client') return 'invalid_client_credentials';
  if (error !== 'invalid_grant') return error;
  return type === 'CODE_TO_TOKEN' ? 'invalid_code' : type === 'REFRESH_TOKEN' ? 'invalid_token' : error;
}

/** Notes what the request's event says (a later note adds to an earlier one). */
export function noteEvent(res: Response, note: EventNote): void {
  const before = res.locals['event'] as EventNote | undefined;
  const details = before?.details !== undefined ? { ...before.details, ...note.details } : note.details;
  res.locals['event'] = { ...before, ...note, ...(details !== undefined ? { details } : {}) };
}

/** Whether the realm saves events at all (a handler notes details only then). */
export const eventsOn = (p: RealmContext): boolean => p.realm.keycloak?.representation.eventsEnabled === true;

/**
 * Saves the finished request's event when it makes one: a success its handler noted, or a refusal (an OAuth
 * error, a noted error, a 4xx or 5xx) of an endpoint that has an event type.
 */
export function saveRequestEvent(p: RealmContext, req: Request, res: Response): void {
  if (!eventsOn(p)) return;
  const locals = res.locals as { endpoint?: string; grant?: string; client?: string; error?: string };
  const note = res.locals['event'] as EventNote | undefined;
  const type =
    note?.type ??
    (locals.endpoint === 'token' ? GRANT_EVENTS[locals.grant ?? ''] : ENDPOINT_EVENTS[locals.endpoint ?? '']);
  if (type === undefined) return;
  const failed = note?.error !== undefined || locals.error !== undefined || res.statusCode >= 400;
  if (!failed && note === undefined) return;
  const clientId = note?.clientId ?? locals.client;
  saveUserEvent(p, {
    type: failed ? `${type}_ERROR` : type,
    ...(clientId !== undefined ? { clientId } : {}),
    ...(note?.userId !== undefined ? { userId: note.userId } : {}),
    ...(note?.sessionId !== undefined ? { sessionId: note.sessionId } : {}),
    ipAddress: addressOf(req.ip),
    ...(failed ? { error: note?.error ?? keycloakError(type, locals.error ?? 'invalid_request') } : {}),
    ...(note?.details !== undefined ? { details: note.details } : {}),
  });
}
