// issueTokenSet: signs the tokens of one grant and assembles the token response the interface document shows.
import type { RealmContext } from '../realm/context.js';
import {
  buildAccessClaims,
  buildIdClaims,
  buildProofClaims,
  buildRefreshClaims,
  type Grant,
  type Stamp,
} from '../tokens/claims.js';
import { keycloakScope } from '../tokens/keycloak-claims.js';
import { accessTokenHeader, halfHash, signFor, signHs256 } from '../tokens/sign.js';
import { issuesProof, tokenTypeOf } from '../tokens/versions.js';

export interface TokenResponse {
  access_token: string;
  expires_in: number;
  refresh_expires_in: number;
  refresh_token: string;
  token_type: string;
  id_token?: string;
  'not-before-policy': number;
  session_state?: string;
  scope: string;
  sid: string;
  /** The proof token, under the brand's `{brand}_proof` (`idp_proof` by default). */
  idp_proof?: string;
  [proof: `${string}_proof`]: string | undefined;
}

/** A token response of a grant that may leave out the refresh token and name what it issued (token exchange). */
export type IssuedTokenResponse = Omit<TokenResponse, 'refresh_token'> & {
  refresh_token?: string;
  issued_token_type?: string;
};

interface IssueOptions {
  issuer: string;
  /** Whether an ID token is issued (openid granted and not client_credentials). */
  idToken: boolean;
  /** Whether a refresh token is issued (default true); without one `refresh_expires_in` is 0, as Keycloak. */
  refreshToken?: boolean;
  /** RFC 8693's `issued_token_type`, last in the response (where Keycloak writes it). */
  issuedTokenType?: string;
  /** A valid DPoP proof's key: the access token (and the refresh token, when `bindsRefresh`) are bound to it. */
  dpop?: { jkt: string; bindsRefresh: boolean };
}

export async function issueTokenSet(
  p: RealmContext,
  granted: Grant,
  options: IssueOptions,
): Promise<IssuedTokenResponse> {
  const grant = p.subjectIds.forClient(granted);
  const { tokens } = p.realm;
  const now = p.clock.nowSeconds();
  const stamp = (purpose: string, lifespan: number): Stamp => ({
    issuer: options.issuer,
    jti: p.ids.uuid(purpose),
    iat: now,
    exp: now + lifespan,
  });
  // ES256 from interface version 3, RS256 before; the refresh token is HS256 in every version.
  const sign = signFor(p.keys, grant.apiVersion);

  const cnf = options.dpop !== undefined ? { cnf: { jkt: options.dpop.jkt } } : {};
  const accessClaims = {
    ...buildAccessClaims(p.realm, grant, stamp('jti', tokens.accessTokenLifespan)),
    ...cnf,
  };
  const refreshClaims = {
    ...buildRefreshClaims(p.realm, grant, stamp('jti', tokens.refreshTokenLifespan)),
    ...(options.dpop?.bindsRefresh === true ? cnf : {}),
  };
  // Version 4 has no proof token: its requests are refused the scope, and no other way gets one either.
  const wantsProof =
    grant.scopes.includes(p.realm.brand.proof) && !grant.serviceAccount && issuesProof(grant.apiVersion);
  const proofStamp = wantsProof ? stamp('jti', tokens.accessTokenLifespan) : undefined;
  const idStamp = options.idToken ? stamp('jti', tokens.accessTokenLifespan) : undefined;

  const withRefresh = options.refreshToken ?? true;
  const accessToken = sign(accessClaims, accessTokenHeader(tokens.accessTokenType));
  const [access_token, refresh_token, proof] = await Promise.all([
    accessToken,
    withRefresh ? signHs256(p.secret, refreshClaims) : undefined,
    proofStamp !== undefined ? sign(buildProofClaims(p.realm, grant, proofStamp)) : undefined,
  ]);
  const id_token =
    idStamp !== undefined
      ? await sign(buildIdClaims(p.realm, grant, idStamp, { atHash: halfHash(access_token) }))
      : undefined;

  const session = await p.store.activeSession(grant.sessionId);
  if (session !== undefined) await p.touchSession(session, grant.client.id);

  return {
    access_token,
    expires_in: tokens.accessTokenLifespan,
    refresh_expires_in: withRefresh ? tokens.refreshTokenLifespan : 0,
    ...(refresh_token !== undefined ? { refresh_token } : {}),
    token_type: options.dpop !== undefined ? 'DPoP' : tokenTypeOf(grant.apiVersion, tokens.tokenType),
    ...(id_token !== undefined ? { id_token } : {}),
    'not-before-policy': tokens.notBeforePolicy,
    ...(tokens.sessionStateInResponse ? { session_state: grant.sessionId } : {}),
    scope:
      p.realm.keycloak !== undefined
        ? keycloakScope(p.realm.keycloak, grant.client, grant.scopes)
        : grant.scopes.join(' '),
    sid: grant.sessionId,
    ...(proof !== undefined ? { [p.realm.brand.proof]: proof } : {}),
    ...(options.issuedTokenType !== undefined ? { issued_token_type: options.issuedTokenType } : {}),
  };
}

/** A string member as JSON text. */
const text = (value: string): string => JSON.stringify(value);

/**
 * The token response as JSON text, exactly as JSON.stringify writes the object issueTokenSet returns (members
 * in that order, absent ones left out). The tokens are compact JWS, base64url and dots, which JSON never
 * escapes: they are copied as they are rather than scanned for characters to escape, which was most of a
 * token response's JSON.stringify (~10 µs for the ~3 kB of a code exchange). Every other member goes through
 * JSON.stringify.
 */
export function tokenResponseJson(r: IssuedTokenResponse, proofField = 'idp_proof'): string {
  let json = `{"access_token":"${r.access_token}","expires_in":${JSON.stringify(r.expires_in)}`;
  json += `,"refresh_expires_in":${JSON.stringify(r.refresh_expires_in)}`;
  if (r.refresh_token !== undefined) json += `,"refresh_token":"${r.refresh_token}"`;
  json += `,"token_type":${text(r.token_type)}`;
  if (r.id_token !== undefined) json += `,"id_token":"${r.id_token}"`;
  json += `,"not-before-policy":${JSON.stringify(r['not-before-policy'])}`;
  if (r.session_state !== undefined) json += `,"session_state":${text(r.session_state)}`;
  json += `,"scope":${text(r.scope)},"sid":${text(r.sid)}`;
  const proof = r[proofField as `${string}_proof`];
  if (proof !== undefined) json += `,${text(proofField)}:"${proof}"`;
  if (r.issued_token_type !== undefined) json += `,"issued_token_type":${text(r.issued_token_type)}`;
  return `${json}}`;
}
