// Who may use the QA API: a bearer token when one is set, else no browser from another origin.
import type { RequestHandler } from 'express';
import { createHash, timingSafeEqual } from 'node:crypto';
import { requestOrigin } from '../http/origin.js';
import { OAuthError } from '../oauth/errors.js';

export interface QaAccess {
  /** Every /mock request must carry `Authorization: Bearer {token}`. Default: none (see below). */
  token?: string;
}

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

/**
 * With a token: 401 without `Authorization: Bearer {token}`. Without one: 403 for a request a browser sends
 * from another origin (an `Origin` other than the server's own, or `Sec-Fetch-Site: cross-site`), so a web
 * page cannot drive a developer's mock; scripts send no Origin and pass.
 */
export function qaAccess(access: QaAccess): RequestHandler {
  const expected = access.token !== undefined ? digest(access.token) : undefined;
  return (req, _res, next) => {
    if (expected !== undefined) {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
      // Compared as digests: constant time whatever the lengths.
      if (match?.[1] === undefined || !timingSafeEqual(digest(match[1]), expected)) {
        throw new OAuthError(
          'invalid_token',
          'The QA API needs Authorization: Bearer <the --qa-token>',
          401,
          {
            'WWW-Authenticate': 'Bearer realm="mock-idp QA API"',
          },
        );
      }
      next();
      return;
    }
    const origin = req.headers.origin;
    const crossSite = req.headers['sec-fetch-site'] === 'cross-site';
    if (crossSite || (origin !== undefined && origin !== requestOrigin(req))) {
      throw new OAuthError(
        'access_denied',
        'The QA API refuses requests from another origin (a web page); scripts send no Origin. Set --qa-token to use it from elsewhere.',
        403,
      );
    }
    next();
  };
}
