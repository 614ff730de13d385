// grant_type=urn:ietf:params:oauth:grant-type:device_code (RFC 8628): a device without a browser asks for a
// user code at the device authorization endpoint, a person enters it at {realm}/device (or a script at
// POST /mock/device), and the device polls the token endpoint with its device_code until they decide.
import type { Client } from '../../fixtures/realm.js';
import type { RealmContext } from '../../realm/context.js';
import { PATHS } from '../../realm/paths.js';
import type { Grant } from '../../tokens/claims.js';
import { approvedGrant, DEFAULT_INTERVAL_S, pollBackchannel } from '../backchannel.js';
import { invalidRequest, unauthorizedClient } from '../errors.js';
import { versionedGrant } from '../version-rules.js';
import type { Params } from '../params.js';
import { grantScopes, parseScope } from '../scopes.js';
import type { GrantDefinition, GrantRequest } from './grant.js';
import { DEVICE_CODE } from './grant-types.js';

/** How long a device code waits for the user, seconds (Keycloak's default device code lifespan). */
const DEVICE_CODE_LIFESPAN_S = 600;

/** Tries at a user code no pending request holds (a clash of 20^8 codes is rare, but a seed repeats). */
const USER_CODE_ATTEMPTS = 10;

function allowed(client: Client): void {
  if (!client.grants.includes(DEVICE_CODE))
    throw unauthorizedClient(
      `Client "${client.id}" is not allowed the device authorization grant (it does not list ${DEVICE_CODE} in its grants)`,
    );
}

interface DeviceAuthorization {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

/** The device authorization request (RFC 8628 §3.1–3.2) of an authenticated client. */
export async function authorizeDevice(
  p: RealmContext,
  client: Client,
  params: Params,
  issuer: string,
): Promise<DeviceAuthorization> {
  allowed(client);
  const bodyId = params.get('client_id');
  if (bodyId !== undefined && bodyId !== client.id)
    throw invalidRequest(`client_id "${bodyId}" is not the authenticated client "${client.id}"`);
  const { apiVersion, scopes } = versionedGrant(
    p.realm,
    client,
    grantScopes(p.realm, client, parseScope(params.get('scope'))),
  );
  const now = p.clock.nowSeconds();
  const deviceCode = p.ids.opaque('device-code');
  let userCode = p.ids.userCode('user-code');
  for (let i = 1; i < USER_CODE_ATTEMPTS && (await p.store.deviceCodeOf(userCode)) !== undefined; i++)
    userCode = p.ids.userCode('user-code');
  await p.store.addBackchannelRequest({
    kind: 'device',
    id: deviceCode,
    userCode,
    clientId: client.id,
    scopes,
    status: 'pending',
    interval: DEFAULT_INTERVAL_S,
    createdAt: now,
    expiresAt: now + DEVICE_CODE_LIFESPAN_S,
    apiVersion,
  });
  const verificationUri = issuer + PATHS.device;
  return {
    device_code: deviceCode,
    user_code: userCode,
    verification_uri: verificationUri,
    verification_uri_complete: `${verificationUri}?user_code=${userCode}`,
    expires_in: DEVICE_CODE_LIFESPAN_S,
    interval: DEFAULT_INTERVAL_S,
  };
}

async function grantDeviceCode(p: RealmContext, { client, params, issuer }: GrantRequest): Promise<Grant> {
  allowed(client);
  const request = await pollBackchannel(p, 'device', params.require('device_code'), client);
  return approvedGrant(p, request, client, issuer);
}

export const deviceCodeGrant = {
  type: DEVICE_CODE,
  parameters: ['device_code'],
  issuesIdToken: true,
  handle: grantDeviceCode,
} as const satisfies GrantDefinition;
