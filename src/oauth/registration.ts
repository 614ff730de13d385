// Dynamic client registration (RFC 7591, read and delete of RFC 7592): a registered client joins the
// current realm model, so it works wherever a fixture client does, until the fixtures are replaced.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { Client, Realm } from '../fixtures/realm.js';
import { nameUuid, type Ids } from '../ids.js';
import type { ClientMetadata, Registration } from '../fixtures/registered-client.js';
import { checkClientMetadata, invalidMetadata } from './client-metadata.js';
import { invalidToken, type OAuthError } from './errors.js';
import { z } from 'zod';
import { AUTH_METHODS, GRANT_TYPES } from '../fixtures/schema.js';

/** Most clients one realm holds by registration; delete some, or replace the fixtures, to register more. */
const MAX_REGISTERED_CLIENTS = 1000;

interface RegistrationContext {
  realm: Realm;
  ids: Ids;
  clock: Clock;
  /**
   * Adds a registered client to the realm (and to a shared store first, for the other replicas); false when
   * the store already holds a client of that id (another replica's), so another id must be drawn.
   */
  addRegisteredClient(client: Client): Promise<boolean>;
}

/** A registered client as a shared store keeps it: what rebuilds the same client at another replica. */
interface RegistrationRecord {
  id: string;
  secret?: string;
  /** SHA-256 of the registration access token, base64url. */
  tokenDigest: string;
  issuedAt: number;
  metadata: ClientMetadata;
}

const SECRET_METHODS = new Set(['client_secret_basic', 'client_secret_post']);
const digest = (token: string): Buffer => createHash('sha256').update(token).digest();

/** A registered client of the realm `realmName`, from what registration decided. */
function clientOf(realmName: string, record: RegistrationRecord): Client {
  const { id, secret, metadata } = record;
  const method = metadata.token_endpoint_auth_method;
  return {
    id,
    ...(secret !== undefined ? { secret } : {}),
    // Keycloak's client-secret authenticator takes the secret either way; the metadata says the one asked for.
    authMethods: SECRET_METHODS.has(method) ? ['client_secret_basic', 'client_secret_post'] : [method],
    ...(metadata.jwks !== undefined ? { jwks: metadata.jwks } : {}),
    redirectUris: metadata.redirect_uris,
    webOrigins: [...new Set(metadata.redirect_uris.map((uri) => new URL(uri).origin))].filter(
      (origin) => origin !== 'null',
    ),
    grants: metadata.grant_types,
    scopes: metadata.scope.split(' ').filter((s) => s !== ''),
    pkce: 'optional',
    ...(metadata.dpop_bound_access_tokens === true ? { dpop: 'required' as const } : {}),
    ...(metadata.request_object_signing_alg !== undefined
      ? { requestObjectSigningAlg: metadata.request_object_signing_alg }
      : {}),
    nninEligible: false,
    ...(metadata.subject_type === 'pairwise'
      ? {
          sectorIdentifier: new URL(metadata.sector_identifier_uri ?? (metadata.redirect_uris[0] as string))
            .hostname,
        }
      : {}),
    ...(metadata.userinfo_signed_response_alg !== undefined ? { userinfoSigned: true } : {}),
    ...(metadata.post_logout_redirect_uris !== undefined
      ? { postLogoutRedirectUris: metadata.post_logout_redirect_uris }
      : {}),
    ...(metadata.frontchannel_logout_uri !== undefined
      ? { frontchannelLogoutUri: metadata.frontchannel_logout_uri }
      : {}),
    ...(metadata.backchannel_logout_uri !== undefined
      ? { backchannelLogoutUri: metadata.backchannel_logout_uri }
      : {}),
    serviceAccount: {
      sub: nameUuid(realmName, 'service-account', id),
      username: `service-account-${id}`,
      claims: { preferred_username: `service-account-${id}` },
      realmRoles: [],
      clientRoles: {},
    },
    registration: {
      tokenDigest: Buffer.from(record.tokenDigest, 'base64url'),
      issuedAt: record.issuedAt,
      metadata,
    },
  };
}

/** What a shared store keeps of a registered client. */
export function registrationRecord(client: Client): RegistrationRecord {
  const registration = client.registration as Registration;
  return {
    id: client.id,
    ...(client.secret !== undefined ? { secret: client.secret } : {}),
    tokenDigest: registration.tokenDigest.toString('base64url'),
    issuedAt: registration.issuedAt,
    metadata: registration.metadata,
  };
}

const recordSchema = z.object({
  id: z.string().min(1),
  secret: z.string().optional(),
  tokenDigest: z.string().regex(/^[A-Za-z0-9_-]{43}$/),
  issuedAt: z.number(),
  metadata: z.looseObject({
    redirect_uris: z.array(z.url()),
    grant_types: z.array(z.enum(GRANT_TYPES)),
    response_types: z.array(z.string()),
    token_endpoint_auth_method: z.enum(AUTH_METHODS),
    scope: z.string(),
    subject_type: z.enum(['public', 'pairwise']),
    sector_identifier_uri: z.url().optional(),
    jwks: z.looseObject({ keys: z.array(z.record(z.string(), z.unknown())) }).optional(),
  }),
});

/** The client a shared store's record describes; undefined when the record does not parse. */
export function clientOfRecord(realmName: string, text: string): Client | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = recordSchema.safeParse(value);
  if (!parsed.success) return undefined;
  const { secret, ...rest } = parsed.data;
  return clientOf(realmName, {
    ...rest,
    ...(secret !== undefined ? { secret } : {}),
    metadata: parsed.data.metadata as ClientMetadata,
  });
}

/** Adds a registered client to the realm model (it then works wherever a fixture client does). */
export function addClient(realm: Realm, client: Client): void {
  realm.clients.set(client.id, client);
  realm.subjects.set(client.serviceAccount.sub, { subject: client.serviceAccount, serviceAccountOf: client });
  for (const origin of client.webOrigins) realm.webOrigins.add(origin);
}

/** Registers a client from RFC 7591 metadata; returns it with its registration access token. */
export async function registerClient(
  ctx: RegistrationContext,
  body: Record<string, unknown>,
): Promise<{ client: Client; accessToken: string }> {
  const { realm } = ctx;
  const metadata = await checkClientMetadata(body, realm);
  let registered = 0;
  for (const c of realm.clients.values()) if (c.registration !== undefined) registered++;
  if (registered >= MAX_REGISTERED_CLIENTS)
    throw invalidMetadata(
      `This realm holds ${MAX_REGISTERED_CLIENTS} registered clients already: delete one or replace the fixtures`,
    );
  const accessToken = ctx.ids.opaque('registration-token', 32);
  // client_secret_jwt signs with the secret, so it gets one too.
  const secret = [...SECRET_METHODS, 'client_secret_jwt'].includes(metadata.token_endpoint_auth_method)
    ? ctx.ids.opaque('client-secret', 24)
    : undefined;
  const issuedAt = ctx.clock.nowSeconds();
  for (;;) {
    let id = ctx.ids.uuid('client-id');
    while (realm.clients.has(id)) id = ctx.ids.uuid('client-id');
    const client = clientOf(realm.name, {
      id,
      ...(secret !== undefined ? { secret } : {}),
      tokenDigest: digest(accessToken).toString('base64url'),
      issuedAt,
      metadata,
    });
    // Another replica may hold this id (the same seed draws the same ids): draw again.
    if (await ctx.addRegisteredClient(client)) return { client, accessToken };
  }
}

/**
 * The registered client `clientId` names, when `token` is its registration access token. Anything else
 * (a fixture client, an unknown id, a wrong token) is the same 401 invalid_token (RFC 7592 §2).
 */
export function registeredClient(realm: Realm, clientId: string, token: string | undefined): Client {
  const client = realm.clients.get(clientId);
  const expected = client?.registration?.tokenDigest;
  if (
    client === undefined ||
    expected === undefined ||
    token === undefined ||
    !timingSafeEqual(digest(token), expected)
  )
    throw refused();
  return client;
}

/** The RFC 7592 §2 answer for a client that is not (or no longer) there for this token. */
export function refused(): OAuthError {
  return invalidToken('Invalid registration access token for this client');
}

/** Removes a registered client from the realm (its tokens stay active until they expire, as on replacement). */
export function deleteClient(realm: Realm, client: Client): void {
  realm.clients.delete(client.id);
  realm.subjects.delete(client.serviceAccount.sub);
  realm.webOrigins.clear();
  for (const c of realm.clients.values()) for (const origin of c.webOrigins) realm.webOrigins.add(origin);
}

/** The RFC 7591 §3.2.1 / RFC 7592 §3 answer for a registered client. */
export function registrationResponse(
  client: Client,
  clientUri: string,
  accessToken: string | undefined,
): Record<string, unknown> {
  const registration = client.registration as Registration;
  return {
    client_id: client.id,
    ...(client.secret !== undefined ? { client_secret: client.secret, client_secret_expires_at: 0 } : {}),
    client_id_issued_at: registration.issuedAt,
    ...(accessToken !== undefined ? { registration_access_token: accessToken } : {}),
    registration_client_uri: clientUri,
    ...registration.metadata,
  };
}
