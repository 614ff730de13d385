// The DPoP proof of a request to a realm endpoint: its `DPoP` headers as received, checked against the
// request's method and the endpoint's URL (under the issuer, or the origin the request came to).
import type { Request, Response } from 'express';
import { DPoPRefusal, verifyDPoPProof, type DPoPProof } from '../oauth/dpop.js';
import { invalidDPoPProof } from '../oauth/errors.js';
import type { RealmContext } from '../realm/context.js';
import { realmBasePath } from '../realm/paths.js';
import { issuerOf } from './context.js';
import { requestOrigin } from './origin.js';

/** The request's proof for the endpoint at `path` (a realm path), undefined without one; throws DPoPRefusal. */
export function dpopProofOf(
  p: RealmContext,
  req: Request,
  res: Response,
  path: string,
  accessToken?: string,
): Promise<DPoPProof | undefined> {
  const urls = [
    issuerOf(res) + path,
    requestOrigin(req) + realmBasePath(p.realm.name, p.relativePath) + path,
  ];
  return verifyDPoPProof(p, req.headersDistinct['dpop'], {
    method: req.method,
    urls,
    ...(accessToken !== undefined ? { accessToken } : {}),
  });
}

/** The proof of a request for tokens (at the token endpoint, or pushed with a request): refused, invalid_dpop_proof. */
export async function tokenRequestProofOf(
  p: RealmContext,
  req: Request,
  res: Response,
  path: string,
): Promise<DPoPProof | undefined> {
  try {
    return await dpopProofOf(p, req, res, path);
  } catch (err) {
    if (err instanceof DPoPRefusal) throw invalidDPoPProof(`Invalid DPoP proof: ${err.message}`);
    throw err;
  }
}
