// POST /protocol/openid-connect/ext/par/request (RFC 9126): an authenticated client pushes its authorize
// parameters and gets a one-time request_uri for the authorize endpoint.
import type { RequestHandler } from 'express';
import type { RealmContext } from '../../realm/context.js';
import { pushAuthorizationRequest } from '../../oauth/par.js';
import { authenticateAt, issuerOf, paramsOf, sendNoStore } from '../context.js';
import { PATHS } from '../../realm/paths.js';
import { tokenRequestProofOf } from '../dpop.js';

export function parHandler(p: RealmContext): RequestHandler {
  return async (req, res) => {
    const params = paramsOf(req);
    const issuer = issuerOf(res);
    // RFC 9126 §2: the client authenticates as at the token endpoint; an assertion may name this endpoint too.
    const { client } = await authenticateAt(p, req, res, params, PATHS.par);
    // RFC 9449 §10.1: a DPoP proof sent with the push binds the code as dpop_jkt would.
    const dpop = await tokenRequestProofOf(p, req, res, PATHS.par);
    sendNoStore(res, await pushAuthorizationRequest(p, client, params, issuer, dpop), 201);
  };
}
