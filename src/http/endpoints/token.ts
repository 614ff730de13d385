// POST /protocol/openid-connect/token: grant_type dispatch, client authentication, token set response.
import type { RequestHandler } from 'express';
import type { Provider } from '../../provider.js';
import { authenticateClient } from '../../oauth/client-auth.js';
import { invalidRequest, OAuthError } from '../../oauth/errors.js';
import { grantAuthorizationCode } from '../../oauth/grants/authorization-code.js';
import { grantClientCredentials } from '../../oauth/grants/client-credentials.js';
import { grantPassword } from '../../oauth/grants/password.js';
import { grantRefreshToken } from '../../oauth/grants/refresh-token.js';
import { issueTokenSet } from '../../oauth/token-set.js';
import { issuerOf, noteForLog, paramsOf, sendNoStore } from '../context.js';
import { PATHS } from '../paths.js';

const SUPPORTED = ['authorization_code', 'client_credentials', 'refresh_token', 'password'];

export function tokenHandler(p: Provider): RequestHandler {
  return async (req, res) => {
    const params = paramsOf(req);
    const grantType = params.get('grant_type');
    if (grantType === undefined) throw invalidRequest('Missing form parameter: grant_type');
    if (!SUPPORTED.includes(grantType)) {
      throw new OAuthError(
        'unsupported_grant_type',
        `Unsupported grant_type "${grantType}" (supported: ${SUPPORTED.join(', ')})`,
      );
    }
    // Only a known value reaches the log line: request text could forge log lines.
    noteForLog(res, { grant: grantType });
    const issuer = issuerOf(res);
    const { client, method } = await authenticateClient(p, {
      authorization: req.headers.authorization,
      params,
      audiences: [issuer, issuer + PATHS.token],
    });
    noteForLog(res, { client: client.id });
    const grant =
      grantType === 'client_credentials'
        ? grantClientCredentials(p, client, params, method, issuer)
        : grantType === 'authorization_code'
          ? grantAuthorizationCode(p, client, params)
          : grantType === 'password'
            ? grantPassword(p, client, params, issuer)
            : await grantRefreshToken(p, client, params);
    if (!grant.serviceAccount) noteForLog(res, { user: grant.subject.username });
    const idToken = !grant.serviceAccount && grant.scopes.includes('openid');
    sendNoStore(res, await issueTokenSet(p, grant, { issuer, idToken }));
  };
}
