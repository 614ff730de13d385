// POST /protocol/openid-connect/token/introspect: resource servers ask whether a token is active.
import type { RequestHandler } from 'express';
import type { RealmContext } from '../../realm/context.js';
import { inKeycloakWords, OAuthError } from '../../oauth/errors.js';
import { barredUser, introspect } from '../../oauth/introspect.js';
import { describeRefusal } from '../../oauth/refusal.js';
import { verifyToken } from '../../tokens/verify.js';
import { authenticateAt, noteWhy, paramsOf, sendNoStore } from '../context.js';
import { noteEvent } from '../events.js';
import { PATHS } from '../../realm/paths.js';

export function introspectHandler(p: RealmContext): RequestHandler {
  return async (req, res) => {
    const params = paramsOf(req);
    const { client, method } = await authenticateAt(p, req, res, params, PATHS.introspect);
    // Introspection is for confidential callers (resource servers); Keycloak answers a public client so.
    if (method === 'none')
      throw inKeycloakWords(
        p.realm.keycloak !== undefined,
        (d) => new OAuthError('invalid_request', d, 403),
        {
          keycloak: 'Client not allowed.',
          mock: 'Client not allowed: a public client cannot introspect tokens',
        },
      );
    const token = params.require('token');
    const verdict = await verifyToken(p, token);
    if (!verdict.ok) noteWhy(res, describeRefusal(p, verdict.refusal));
    const barred = verdict.ok ? await barredUser(p, verdict.token) : undefined;
    if (barred !== undefined) noteWhy(res, `the token is valid, but ${barred}`);
    const sessionId = verdict.ok ? verdict.token.sessionId : undefined;
    noteEvent(res, sessionId !== undefined ? { sessionId } : {});
    sendNoStore(res, introspect(p, client, verdict.ok && barred === undefined ? verdict.token : undefined));
  };
}
