// POST /protocol/openid-connect/ext/par/request (RFC 9126): an authenticated client pushes its authorize
// parameters and gets a one-time request_uri for the authorize endpoint.
import type { RequestHandler } from 'express';
import type { RealmContext } from '../../realm/context.js';
import { authenticateClient } from '../../oauth/client-auth.js';
import { DPoPRefusal, type DPoPProof } from '../../oauth/dpop.js';
import { invalidDPoPProof } from '../../oauth/errors.js';
import { pushAuthorizationRequest } from '../../oauth/par.js';
import { assertionAudiences, issuerOf, noteForLog, paramsOf, sendNoStore } from '../context.js';
import { PATHS } from '../../realm/paths.js';
import { dpopProofOf } from '../dpop.js';

export function parHandler(p: RealmContext): RequestHandler {
  return async (req, res) => {
    const params = paramsOf(req);
    const issuer = issuerOf(res);
    // RFC 9126 §2: the client authenticates as at the token endpoint; an assertion may name this endpoint too.
    const { client } = await authenticateClient(p, {
      authorization: req.headers.authorization,
      params,
      audiences: assertionAudiences(p, req, res, [PATHS.token, PATHS.par]),
    });
    noteForLog(res, { client: client.id });
    // RFC 9449 §10.1: a DPoP proof sent with the push binds the code as dpop_jkt would.
    let dpop: DPoPProof | undefined;
    try {
      dpop = await dpopProofOf(p, req, res, PATHS.par);
    } catch (err) {
      if (err instanceof DPoPRefusal) throw invalidDPoPProof(`Invalid DPoP proof: ${err.message}`);
      throw err;
    }
    sendNoStore(res, await pushAuthorizationRequest(p, client, params, issuer, dpop), 201);
  };
}
