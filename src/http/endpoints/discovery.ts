// GET /.well-known/openid-configuration: the interface document's fields and values for the request's issuer.
import type { RequestHandler } from 'express';
import { REQUEST_OBJECT_ALGS, SUBJECT_TYPES } from '../../fixtures/schema.js';
import { RESPONSE_TYPES } from '../../oauth/authorize.js';
import {
  REQUEST_OBJECT_ENCRYPTION_ALGS,
  REQUEST_OBJECT_ENCRYPTION_ENCS,
} from '../../oauth/request-object.js';
import { DPOP_ALGS } from '../../oauth/dpop.js';
import { GRANT_TYPES } from '../../oauth/grants/registry.js';
import { PATHS } from '../../realm/paths.js';
import { issuerOf, sendJson } from '../context.js';
import { requestOrigin } from '../origin.js';
import type { RealmContext } from '../../realm/context.js';

/**
 * `issuer` names the browser-facing endpoints, `backchannel` (the issuer unless back-channel URLs follow the
 * request) the ones servers call; `scopes`: the realm's scopes (built-in and from the fixtures).
 */
function discoveryDocument(
  issuer: string,
  backchannel: string,
  scopes: readonly string[],
): Record<string, unknown> {
  return {
    issuer,
    authorization_endpoint: issuer + PATHS.auth,
    token_endpoint: backchannel + PATHS.token,
    token_introspection_endpoint: backchannel + PATHS.introspect,
    introspection_endpoint: backchannel + PATHS.introspect,
    userinfo_endpoint: backchannel + PATHS.userinfo,
    end_session_endpoint: issuer + PATHS.logout,
    revocation_endpoint: backchannel + PATHS.revoke,
    jwks_uri: backchannel + PATHS.certs,
    check_session_iframe: issuer + PATHS.checkSession,
    registration_endpoint: backchannel + PATHS.registration,
    pushed_authorization_request_endpoint: backchannel + PATHS.par,
    require_pushed_authorization_requests: false,
    device_authorization_endpoint: backchannel + PATHS.deviceAuthorization,
    backchannel_authentication_endpoint: backchannel + PATHS.ciba,
    backchannel_token_delivery_modes_supported: ['poll'],
    backchannel_user_code_parameter_supported: false,
    grant_types_supported: [...GRANT_TYPES],
    response_types_supported: [...RESPONSE_TYPES],
    subject_types_supported: [...SUBJECT_TYPES],
    id_token_signing_alg_values_supported: ['RS256', 'ES256'],
    userinfo_signing_alg_values_supported: ['RS256', 'ES256'],
    request_object_signing_alg_values_supported: [...REQUEST_OBJECT_ALGS],
    request_object_encryption_alg_values_supported: [...REQUEST_OBJECT_ENCRYPTION_ALGS],
    request_object_encryption_enc_values_supported: [...REQUEST_OBJECT_ENCRYPTION_ENCS],
    response_modes_supported: ['query', 'fragment', 'form_post'],
    token_endpoint_auth_methods_supported: [
      'private_key_jwt',
      'client_secret_basic',
      'client_secret_post',
      'client_secret_jwt',
    ],
    token_endpoint_auth_signing_alg_values_supported: ['RS256', 'ES256', 'HS256', 'HS384', 'HS512'],
    claims_supported: [
      'sub',
      'iss',
      'auth_time',
      'name',
      'given_name',
      'family_name',
      'preferred_username',
      'email',
    ],
    claim_types_supported: ['normal'],
    claims_parameter_supported: false,
    scopes_supported: [...scopes],
    request_parameter_supported: true,
    request_uri_parameter_supported: true,
    code_challenge_methods_supported: ['plain', 'S256'],
    frontchannel_logout_supported: true,
    frontchannel_logout_session_supported: true,
    backchannel_logout_supported: true,
    backchannel_logout_session_supported: true,
    dpop_signing_alg_values_supported: [...DPOP_ALGS],
  };
}

export function discoveryHandler(p: RealmContext): RequestHandler {
  return (req, res) => {
    const backchannel = p.backchannelDynamic ? p.backchannelBaseFor(requestOrigin(req)) : issuerOf(res);
    const body = discoveryDocument(issuerOf(res), backchannel, [...p.realm.scopes.keys()]);
    sendJson(res, 200, body, { 'Cache-Control': 'no-cache' });
  };
}
