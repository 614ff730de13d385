// grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer (RFC 7523 §2.1): a JWT the client signed with a key of
// its `jwks` (iss the client, sub a user, aud the issuer or token endpoint, exp, single-use jti) is a token set
// for that user, as if they had signed in.
import { createLocalJWKSet, decodeJwt } from 'jose';
import { Clock } from '../../clock.js';
import { isDisabled, type Subject } from '../../fixtures/realm.js';
import type { RealmContext } from '../../realm/context.js';
import { ASSERTION_TOLERANCE_S } from '../../store/state-store.js';
import type { Grant } from '../../tokens/claims.js';
import { CLIENT_KEY_ALGS, ClientJwtRefusal, verifyClientJwt } from '../client-jwt.js';
import { invalidGrant, unauthorizedClient } from '../errors.js';
import { versionedGrant } from '../version-rules.js';
import { grantScopes, parseScope } from '../scopes.js';
import { signedIn, type GrantDefinition, type GrantRequest } from './grant.js';

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/** The user `sub` names: by username, else by the user's own `sub`. */
function userNamed(p: RealmContext, sub: string): { username: string; user: Subject } | undefined {
  const byName = p.realm.users.get(sub);
  if (byName !== undefined) return { username: sub, user: byName };
  for (const [username, user] of p.realm.users) if (user.sub === sub) return { username, user };
  return undefined;
}

async function grantJwtBearer(
  p: RealmContext,
  { client, params, issuer, audiences }: GrantRequest,
): Promise<Grant> {
  if (!client.grants.includes(JWT_BEARER))
    throw unauthorizedClient(`Client "${client.id}" is not allowed the JWT bearer grant`);
  const assertion = params.require('assertion');
  try {
    decodeJwt(assertion);
  } catch {
    throw invalidGrant('Invalid assertion: not a JWT');
  }
  if (client.jwks === undefined)
    throw invalidGrant(`Client "${client.id}" has no jwks to verify the assertion with`);
  let sub: unknown;
  let iat: unknown;
  try {
    ({ sub, iat } = await verifyClientJwt(p, assertion, {
      key: createLocalJWKSet(client.jwks),
      algorithms: CLIENT_KEY_ALGS,
      issuer: client.id,
      audiences,
    }));
  } catch (err) {
    if (!(err instanceof ClientJwtRefusal)) throw err;
    throw invalidGrant(`Invalid assertion: ${err.message}`);
  }
  // Issued in the future by both the mock clock and the client's real one: not a JWT a client just made.
  const latest = Math.max(p.clock.nowSeconds(), Math.floor(Clock.realMs() / 1000)) + ASSERTION_TOLERANCE_S;
  if (typeof iat === 'number' && iat > latest)
    throw invalidGrant('Invalid assertion: "iat" is in the future (by the mock clock and by real time)');
  if (typeof sub !== 'string') throw invalidGrant('Invalid assertion: "sub" claim missing');
  const named = userNamed(p, sub);
  if (named === undefined)
    throw invalidGrant(`Invalid assertion: sub "${sub}" is neither a username nor a user's sub`);
  if (isDisabled(p.realm, named.username))
    throw invalidGrant(`Invalid assertion: user "${named.username}" is disabled`);
  const granted = versionedGrant(
    p.realm,
    client,
    grantScopes(p.realm, client, parseScope(params.get('scope'))),
  );
  return signedIn(p, { client, issuer }, { user: named.user, ...granted });
}

export const jwtBearerGrant = {
  type: JWT_BEARER,
  parameters: ['assertion', 'scope'],
  issuesIdToken: true,
  handle: grantJwtBearer,
} as const satisfies GrantDefinition;
