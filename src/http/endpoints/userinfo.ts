// GET|POST /protocol/openid-connect/userinfo: the claims of the bearer's user.
import type { Request, RequestHandler, Response } from 'express';
import type { RealmContext } from '../../realm/context.js';
import { verifyToken } from '../../tokens/verify.js';
import { boundJkt, DPOP_ALGS, DPoPRefusal, type DPoPProof } from '../../oauth/dpop.js';
import { dpopChallenge, explained, invalidRequest, invalidToken } from '../../oauth/errors.js';
import { PATHS } from '../../realm/paths.js';
import { dpopProofOf } from '../dpop.js';
import { describeRefusal } from '../../oauth/refusal.js';
import { releasedClaims } from '../../tokens/placement.js';
import { signFor } from '../../tokens/sign.js';
import { versionOfClaims } from '../../tokens/versions.js';
import { issuerOf, noteForLog, paramsOf, sendNoStore } from '../context.js';
import { noteEvent } from '../events.js';

/** The access token and how it came: `Authorization: Bearer`, `Authorization: DPoP`, or the form body. */
function accessTokenOf(req: Request): { token: string; scheme: 'Bearer' | 'DPoP' | 'body' } {
  const header = req.headers.authorization;
  const fromBody = req.method === 'POST' ? paramsOf(req).get('access_token') : undefined;
  if (header !== undefined && fromBody !== undefined)
    throw invalidRequest('Send the access token in one place only');
  if (fromBody !== undefined) return { token: fromBody, scheme: 'body' };
  const match = header !== undefined ? /^(Bearer|DPoP)\s+(\S+)\s*$/i.exec(header) : null;
  if (match?.[1] === undefined || match[2] === undefined)
    throw invalidToken('Missing bearer token (Authorization: Bearer <access token>)');
  return { token: match[2], scheme: match[1].toLowerCase() === 'dpop' ? 'DPoP' : 'Bearer' };
}

/**
 * RFC 9449 §7: a DPoP-bound token comes with the DPoP scheme and a proof made with its key, carrying the
 * token's hash; a token sent with the DPoP scheme needs a valid proof even when it is not bound.
 */
async function checkDPoP(
  p: RealmContext,
  req: Request,
  res: Response,
  token: string,
  scheme: 'Bearer' | 'DPoP' | 'body',
  claims: Record<string, unknown>,
): Promise<void> {
  const jkt = boundJkt(claims);
  if (jkt === undefined && scheme !== 'DPoP') return;
  if (scheme !== 'DPoP')
    throw dpopChallenge(
      'invalid_token',
      'The access token is DPoP-bound: send it as Authorization: DPoP <token>, with a DPoP proof',
      DPOP_ALGS,
    );
  let proof: DPoPProof | undefined;
  try {
    proof = await dpopProofOf(p, req, res, PATHS.userinfo, token);
  } catch (err) {
    if (err instanceof DPoPRefusal)
      throw dpopChallenge('invalid_dpop_proof', `Invalid DPoP proof: ${err.message}`, DPOP_ALGS);
    throw err;
  }
  if (proof === undefined)
    throw dpopChallenge(
      'invalid_dpop_proof',
      "Missing DPoP proof: Authorization: DPoP needs a DPoP header with a proof made with the token's key",
      DPOP_ALGS,
    );
  if (jkt !== undefined && proof.jkt !== jkt)
    throw dpopChallenge(
      'invalid_token',
      'Invalid DPoP key binding: the proof is made with another key than the one the token is bound to',
      DPOP_ALGS,
    );
}

export function userinfoHandler(p: RealmContext): RequestHandler {
  return async (req, res) => {
    const { token, scheme } = accessTokenOf(req);
    const verdict = await verifyToken(p, token, 'access');
    if (!verdict.ok) {
      // Keycloak's words for a Keycloak realm (the reason is in the debug log either way).
      const message =
        p.realm.keycloak !== undefined
          ? 'Token verification failed'
          : 'Token verification failed: not an active access token of this realm';
      throw explained(
        scheme === 'DPoP' ? dpopChallenge('invalid_token', message, DPOP_ALGS) : invalidToken(message),
        { why: describeRefusal(p, verdict.refusal) },
      );
    }
    const { claims } = verdict.token;
    await checkDPoP(p, req, res, token, scheme, claims);
    const azp = typeof claims['azp'] === 'string' ? claims['azp'] : undefined;
    noteForLog(res, azp !== undefined ? { client: azp } : {});
    const entry = typeof claims.sub === 'string' ? p.subjectIds.lookup(p.realm, claims.sub, azp) : undefined;
    if (entry === undefined) throw invalidToken('Token verification failed: user not found');
    if (entry.serviceAccountOf === undefined) noteForLog(res, { user: entry.subject.username });
    noteEvent(res, {
      userId: entry.subject.sub,
      ...(verdict.token.sessionId !== undefined ? { sessionId: verdict.token.sessionId } : {}),
      details: { auth_method: 'validate_access_token' },
    });
    const client = azp !== undefined ? p.realm.clients.get(azp) : undefined;
    const scopes = typeof claims['scope'] === 'string' ? claims['scope'].split(' ') : [];
    const released = releasedClaims(
      {
        realm: p.realm,
        subject: entry.subject,
        scopes,
        nninEligible: client?.nninEligible ?? false,
        client,
        // Userinfo follows the version of the sign-in the access token came from.
        apiVersion: versionOfClaims(claims) ?? 1,
      },
      'userinfo',
    );
    const body = {
      sub:
        client !== undefined
          ? p.subjectIds.subFor(client, entry.subject.sub, entry.serviceAccountOf !== undefined)
          : entry.subject.sub,
      ...released,
    };
    if (client?.userinfoSigned !== true) return sendNoStore(res, body);
    // Signed userinfo (OIDC Core 5.3.2), as Keycloak signs it: the claims plus iss and aud, signed as the
    // access token's version signs (RS256; ES256 from version 3).
    const sign = signFor(p.keys, versionOfClaims(claims));
    const jwt = await sign({ ...body, iss: issuerOf(res), aud: client.id });
    res.status(200);
    res.setHeader('Content-Type', 'application/jwt');
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Pragma', 'no-cache');
    res.setHeader('Content-Length', Buffer.byteLength(jwt));
    res.end(jwt);
  };
}
