// Pushed authorization requests (RFC 9126): the push checks what authorize would check before anyone signs
// in and stores the parameters under a one-time request_uri; authorize takes them back by that URI.
import type { Client } from '../fixtures/realm.js';
import type { RealmContext } from '../realm/context.js';
import { checkAuthorizeRequest } from './authorize.js';
import type { DPoPProof } from './dpop.js';
import { invalidDPoPProof, invalidRequest, OAuthError } from './errors.js';
import { Params } from './params.js';
import { registeredRedirectUri } from './redirect-uri.js';
import { withRequestObject } from './request-object.js';

/** The prefix of a request_uri this server hands out (RFC 9126 §2.2). */
const PUSHED_REQUEST_URI_PREFIX = 'urn:ietf:params:oauth:request_uri:';

/** How long a pushed request waits for its authorize request, seconds (Keycloak's default). */
const PUSHED_REQUEST_LIFESPAN_S = 60;

/** How long the login page of a pushed request may wait for the user, seconds (Keycloak's login timeout). */
const LOGIN_PAGE_LIFESPAN_S = 1800;

/**
 * The login page's own fields (a user button, Cancel, a Keycloak realm's username and password form and its
 * required actions' pages): a POST back from it adds them to the pushed parameters, empty ones too (a button
 * without a value); the page never repeats them as hidden fields.
 */
export const LOGIN_PAGE_FIELDS = [
  'login_hint',
  'cancel',
  'username',
  'password',
  'login',
  'session_code',
  'password-new',
  'password-confirm',
  'email',
  'firstName',
  'lastName',
  'verify-email',
  'accept',
];

/** Client authentication parameters: they authenticate the push and are not authorize parameters. */
const CLIENT_AUTH_PARAMS = new Set(['client_secret', 'client_assertion', 'client_assertion_type']);

/** Whether a request_uri names a pushed request (else it is a URL to fetch a request object from). */
export function isPushedRequestUri(uri: string | undefined): uri is string {
  return uri?.startsWith(PUSHED_REQUEST_URI_PREFIX) === true;
}

/**
 * Checks and stores a pushed request of the authenticated `client`: the parameters (with a `request` object's
 * applied), the redirect URI and every authorize step before the user. Throws the OAuthError authorize would
 * send, as a JSON error of the push.
 */
export async function pushAuthorizationRequest(
  p: RealmContext,
  client: Client,
  body: Params,
  issuer: string,
  dpop?: DPoPProof,
): Promise<{ request_uri: string; expires_in: number }> {
  if (body.get('request_uri') !== undefined)
    throw invalidRequest('Invalid parameter: request_uri is not allowed in a pushed authorization request');
  const bodyId = body.get('client_id');
  if (bodyId !== undefined && bodyId !== client.id)
    throw invalidRequest(`client_id "${bodyId}" is not the authenticated client "${client.id}"`);
  const sent = Params.from(
    Object.fromEntries(body.entries().filter(([name]) => !CLIENT_AUTH_PARAMS.has(name))),
  );
  const params = withProofKey(
    await withRequestObject(sent, {
      client,
      issuer,
      clock: p.clock,
      encryptionKey: p.encryptionKey,
    }),
    dpop,
  );
  const redirect = registeredRedirectUri(client, params.get('redirect_uri'));
  if ('problem' in redirect) throw invalidRequest(redirect.problem);
  checkAuthorizeRequest(p, client, redirect.uri, params, { pushed: true });
  const requestUri = await storePushed(p, client, params, PUSHED_REQUEST_LIFESPAN_S);
  return { request_uri: requestUri, expires_in: PUSHED_REQUEST_LIFESPAN_S };
}

/** The pushed parameters with the key of the push's DPoP proof as dpop_jkt, which must match one sent. */
function withProofKey(params: Params, dpop: DPoPProof | undefined): Params {
  if (dpop === undefined) return params;
  const sent = params.get('dpop_jkt');
  if (sent === undefined)
    return Params.from(
      { ...Object.fromEntries(params.entries()), dpop_jkt: dpop.jkt },
      params.entries().flatMap(([name]) => (params.sealed(name) ? [name] : [])),
    );
  if (sent !== dpop.jkt)
    throw invalidDPoPProof(
      `dpop_jkt ${sent} is not the thumbprint of the DPoP proof's key (${dpop.jkt}): the proof and dpop_jkt must name the same key`,
    );
  return params;
}

async function storePushed(
  p: RealmContext,
  client: Client,
  params: Params,
  lifespan: number,
): Promise<string> {
  const requestUri = PUSHED_REQUEST_URI_PREFIX + p.ids.uuid('par');
  await p.store.addPushedRequest({
    requestUri,
    clientId: client.id,
    params: { ...Object.fromEntries(params.entries()), client_id: client.id },
    expiresAt: p.clock.nowSeconds() + lifespan,
  });
  return requestUri;
}

/**
 * The login page's form for a pushed request: its parameters pushed again under a new request_uri (the first
 * one is used), so that the form posts back only client_id and that request_uri, as the browser did.
 */
export async function loginPageParams(
  p: RealmContext,
  client: Client,
  params: Params,
): Promise<[string, string][]> {
  const kept = Params.from(
    Object.fromEntries(params.entries().filter(([name]) => !LOGIN_PAGE_FIELDS.includes(name))),
  );
  const requestUri = await storePushed(p, client, kept, LOGIN_PAGE_LIFESPAN_S);
  return [
    ['client_id', client.id],
    ['request_uri', requestUri],
  ];
}

const invalidUri = (why: string): OAuthError =>
  new OAuthError('invalid_request_uri', `Invalid request_uri: ${why}`);

/**
 * The parameters pushed under the query's request_uri, taken once: only they count, as RFC 9126 §4 says
 * (the query's other parameters are ignored, but for the login page's own fields when it posts back).
 * Unknown, used, expired or another client's: invalid_request_uri.
 */
export async function takePushedRequest(
  p: RealmContext,
  query: Params,
  client: Client,
  fromLoginPage: boolean,
): Promise<Params> {
  const requestUri = query.require('request_uri');
  if (query.get('request') !== undefined) throw invalidRequest('Use either request or request_uri, not both');
  const pushed = await p.store.takePushedRequest(requestUri);
  if (pushed === undefined) throw invalidUri('not issued, or already used');
  if (pushed.clientId !== client.id) throw invalidUri(`not issued to client "${client.id}"`);
  if (pushed.expiresAt <= p.clock.nowSeconds()) throw invalidUri('expired');
  const params = { ...pushed.params };
  if (fromLoginPage)
    for (const name of LOGIN_PAGE_FIELDS) if (query.has(name)) params[name] = query.get(name) ?? '';
  return Params.from(params);
}
