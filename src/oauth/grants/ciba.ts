// grant_type=urn:openid:params:grant-type:ciba (OpenID CIBA Core 1.0, poll mode): a client asks at the
// backchannel authentication endpoint for a user named by login_hint to approve a sign-in on their own device;
// the decision comes from POST /mock/ciba (or by itself after clients.{id}.cibaAutoApproveSeconds), and the
// client polls the token endpoint with its auth_req_id.
import { isDisabled, userByHint, type Client } from '../../fixtures/realm.js';
import type { RealmContext } from '../../realm/context.js';
import type { Grant } from '../../tokens/claims.js';
import { approvedGrant, DEFAULT_INTERVAL_S, pollBackchannel } from '../backchannel.js';
import { invalidRequest, OAuthError, unauthorizedClient } from '../errors.js';
import { versionedGrant } from '../version-rules.js';
import type { Params } from '../params.js';
import { grantScopes, parseScope } from '../scopes.js';
import type { GrantDefinition, GrantRequest } from './grant.js';
import { CIBA } from './grant-types.js';
import type { AuthMethod } from '../../fixtures/schema.js';

/** How long an authentication request waits for the user, seconds (Keycloak's default CIBA expiry). */
const CIBA_LIFESPAN_S = 120;

/** The longest requested_expiry taken, seconds. */
const MAX_REQUESTED_EXPIRY_S = 3600;

/** The longest binding_message, characters: it is shown on the user's device. */
const MAX_BINDING_MESSAGE = 100;

/** Hints CIBA defines that this provider does not take. */
const OTHER_HINTS = ['login_hint_token', 'id_token_hint'];

function allowed(client: Client, method: AuthMethod): void {
  if (!client.grants.includes(CIBA))
    throw unauthorizedClient(
      `Client "${client.id}" is not allowed client-initiated backchannel authentication (it does not list ${CIBA} in its grants)`,
    );
  // CIBA Core §7.1: the request is authenticated; a public client cannot make one.
  if (method === 'none')
    throw unauthorizedClient(
      `Public client "${client.id}" cannot use CIBA: the authentication request needs client credentials`,
    );
}

interface BackchannelAuthentication {
  auth_req_id: string;
  expires_in: number;
  interval: number;
}

function bindingMessageOf(params: Params): string | undefined {
  const message = params.get('binding_message');
  if (message === undefined) return undefined;
  if (message.length === 0 || message.length > MAX_BINDING_MESSAGE || /\p{Cc}/u.test(message))
    throw new OAuthError(
      'invalid_binding_message',
      `binding_message must be 1 to ${MAX_BINDING_MESSAGE} characters of text without control characters`,
    );
  return message;
}

function expiryOf(params: Params): number {
  const requested = params.get('requested_expiry');
  if (requested === undefined) return CIBA_LIFESPAN_S;
  if (!/^\d{1,7}$/.test(requested) || Number(requested) < 1 || Number(requested) > MAX_REQUESTED_EXPIRY_S)
    throw invalidRequest(
      `requested_expiry must be a number of seconds from 1 to ${MAX_REQUESTED_EXPIRY_S}, not "${requested.slice(0, 20)}"`,
    );
  return Number(requested);
}

/** The backchannel authentication request (CIBA Core §7) of an authenticated client. */
export async function authenticateBackchannel(
  p: RealmContext,
  client: Client,
  method: AuthMethod,
  params: Params,
): Promise<BackchannelAuthentication> {
  allowed(client, method);
  const bodyId = params.get('client_id');
  if (bodyId !== undefined && bodyId !== client.id)
    throw invalidRequest(`client_id "${bodyId}" is not the authenticated client "${client.id}"`);
  const asked = parseScope(params.get('scope'));
  if (!asked.includes('openid'))
    throw invalidRequest('scope must contain openid: a backchannel authentication request signs a user in');
  const other = OTHER_HINTS.find((name) => params.get(name) !== undefined);
  if (other !== undefined) throw invalidRequest(`${other} is not supported: name the user with login_hint`);
  const hint = params.get('login_hint');
  if (hint === undefined)
    throw invalidRequest('Missing parameter: login_hint (a username, or BID:{national id})');
  const user = userByHint(p.realm, hint);
  if (user === undefined)
    throw new OAuthError(
      'unknown_user_id',
      `login_hint "${hint.slice(0, 60)}" names no user: give a username, or BID: or : followed by a national id`,
    );
  if (isDisabled(p.realm, user.username))
    throw new OAuthError('unknown_user_id', `The user login_hint names is disabled: they cannot sign in`);
  const { apiVersion, scopes } = versionedGrant(p.realm, client, grantScopes(p.realm, client, asked));
  const bindingMessage = bindingMessageOf(params);
  const expiresIn = expiryOf(params);
  const now = p.clock.nowSeconds();
  const id = p.ids.opaque('auth-req-id');
  await p.store.addBackchannelRequest({
    kind: 'ciba',
    id,
    clientId: client.id,
    scopes,
    username: user.username,
    ...(bindingMessage !== undefined ? { bindingMessage } : {}),
    status: 'pending',
    interval: DEFAULT_INTERVAL_S,
    createdAt: now,
    expiresAt: now + expiresIn,
    ...(client.cibaAutoApproveSeconds !== undefined
      ? { autoApproveAt: now + client.cibaAutoApproveSeconds }
      : {}),
    apiVersion,
  });
  return { auth_req_id: id, expires_in: expiresIn, interval: DEFAULT_INTERVAL_S };
}

async function grantCiba(p: RealmContext, { client, method, params, issuer }: GrantRequest): Promise<Grant> {
  allowed(client, method);
  const request = await pollBackchannel(p, 'ciba', params.require('auth_req_id'), client);
  return approvedGrant(p, request, client, issuer);
}

export const cibaGrant = {
  type: CIBA,
  parameters: ['auth_req_id'],
  issuesIdToken: true,
  handle: grantCiba,
} as const satisfies GrantDefinition;
