// POST /protocol/openid-connect/ext/ciba/auth: the backchannel authentication endpoint (OpenID CIBA Core 1.0,
// poll mode). The client authenticates as at the token endpoint and gets an auth_req_id to poll with.
import type { RequestHandler } from 'express';
import { refuseBearerOnly } from '../../oauth/client-auth.js';
import { authenticateBackchannel } from '../../oauth/grants/ciba.js';
import type { RealmContext } from '../../realm/context.js';
import { PATHS } from '../../realm/paths.js';
import { authenticateAt, paramsOf, sendNoStore } from '../context.js';

export function cibaHandler(p: RealmContext): RequestHandler {
  return async (req, res) => {
    const params = paramsOf(req);
    // CIBA Core §7.1: the client authenticates as at the token endpoint; an assertion may name this endpoint.
    const { client, method } = await authenticateAt(p, req, res, params, PATHS.ciba);
    refuseBearerOnly(p, client);
    sendNoStore(res, await authenticateBackchannel(p, client, method, params));
  };
}
