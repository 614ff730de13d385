// GET|POST /protocol/openid-connect/userinfo: the claims of the bearer's user.
import type { Request, RequestHandler } from 'express';
import type { RealmContext } from '../../realm/context.js';
import { verifyToken } from '../../tokens/verify.js';
import { explained, invalidRequest, invalidToken } from '../../oauth/errors.js';
import { describeRefusal } from '../../oauth/refusal.js';
import { releasedClaims } from '../../tokens/placement.js';
import { signFor } from '../../tokens/sign.js';
import { versionOfClaims } from '../../tokens/versions.js';
import { issuerOf, noteForLog, paramsOf, sendNoStore } from '../context.js';

function bearerToken(req: Request): string {
  const header = req.headers.authorization;
  const fromBody = req.method === 'POST' ? paramsOf(req).get('access_token') : undefined;
  if (header !== undefined && fromBody !== undefined)
    throw invalidRequest('Send the access token in one place only');
  if (fromBody !== undefined) return fromBody;
  const match = header !== undefined ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  if (match?.[1] === undefined)
    throw invalidToken('Missing bearer token (Authorization: Bearer <access token>)');
  return match[1];
}

export function userinfoHandler(p: RealmContext): RequestHandler {
  return async (req, res) => {
    const token = bearerToken(req);
    const verdict = await verifyToken(p, token, 'access');
    if (!verdict.ok)
      throw explained(invalidToken('Token verification failed: not an active access token of this realm'), {
        why: describeRefusal(p, verdict.refusal),
      });
    const { claims } = verdict.token;
    const azp = typeof claims['azp'] === 'string' ? claims['azp'] : undefined;
    noteForLog(res, azp !== undefined ? { client: azp } : {});
    const entry = typeof claims.sub === 'string' ? p.subjectIds.lookup(p.realm, claims.sub, azp) : undefined;
    if (entry === undefined) throw invalidToken('Token verification failed: user not found');
    if (entry.serviceAccountOf === undefined) noteForLog(res, { user: entry.subject.username });
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
