// Minting one token for QA: the real claim builders and a real session, then the asked-for signature.
import { calculateJwkThumbprint, decodeJwt, decodeProtectedHeader, type JWK } from 'jose';
import { checkInstantMs } from '../clock.js';
import type { Client, Realm } from '../fixtures/realm.js';
import { configuredVersion, servedVersion } from '../oauth/api-version.js';
import { invalidRequest } from '../oauth/errors.js';
import { clientCredentialsScopes, parseScope } from '../oauth/scopes.js';
import type { Provider } from '../realm/provider.js';
import {
  buildAccessClaims,
  buildIdClaims,
  buildProofClaims,
  buildRefreshClaims,
  type Claims,
  type Grant,
} from '../tokens/claims.js';
import { issuesProof } from '../tokens/versions.js';
import { parseBody } from './body.js';
import {
  mintRequestSchema,
  resolveTime,
  type MintedToken,
  type MintedTokenClaims,
  type MintedTokenHeader,
  type MintTokenType,
} from './mint-request.js';
import { applyOverrides, MintSigner } from './mint-sign.js';

const BUILDERS = {
  access: buildAccessClaims,
  id: (realm, grant, stamp) => buildIdClaims(realm, grant, stamp, {}),
  refresh: buildRefreshClaims,
  proof: buildProofClaims,
} satisfies Record<MintTokenType, typeof buildRefreshClaims>;

function lookupClient(realm: Realm, id: string): Client {
  const client = realm.clients.get(id);
  if (client === undefined)
    throw invalidRequest(`Unknown client "${id}" (clients: ${[...realm.clients.keys()].join(', ')})`);
  return client;
}

/** Requested scopes must exist in the realm; the default is what a real grant would give. */
function mintScopes(realm: Realm, client: Client, forUser: boolean, scope: string | undefined): string[] {
  if (scope !== undefined) {
    const requested = parseScope(scope);
    const unknown = requested.filter((s) => !realm.scopes.has(s));
    if (unknown.length > 0)
      throw invalidRequest(
        `Unknown scope ${unknown.join(' ')} (realm scopes: ${[...realm.scopes.keys()].join(' ')})`,
      );
    return requested;
  }
  const defaults = clientCredentialsScopes(realm, client, []);
  return forUser ? [...new Set(['openid', 'profile', ...defaults])] : defaults;
}

/** JWK members of a private or symmetric key. */
const PRIVATE_JWK_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

/** `cnf` binding a token to `jwk` (RFC 9449 §6.1), or nothing without one. */
async function dpopBinding(type: MintTokenType, jwk: Record<string, unknown> | undefined): Promise<Claims> {
  if (jwk === undefined) return {};
  if (type !== 'access' && type !== 'refresh')
    throw invalidRequest(
      `Invalid mint request: dpopJwk binds an access or refresh token, not a ${type} token`,
    );
  const secret = PRIVATE_JWK_MEMBERS.filter((m) => m in jwk);
  if (secret.length > 0)
    throw invalidRequest(
      `Invalid mint request: dpopJwk must be a public key, but it has private members (${secret.join(', ')})`,
    );
  try {
    return { cnf: { jkt: await calculateJwkThumbprint(jwk as JWK, 'sha256') } };
  } catch (err) {
    throw invalidRequest(`Invalid mint request: dpopJwk is not a JWK: ${(err as Error).message}`);
  }
}

/** `nbf` next to the other times, after `exp` and `iat`. */
function withNotBefore(claims: Claims, nbf: number | undefined): Claims {
  if (nbf === undefined) return claims;
  const { exp, iat, ...rest } = claims;
  return { exp, iat, nbf, ...rest };
}

export class Minter {
  readonly #p: Provider;
  readonly #signer: MintSigner;

  constructor(p: Provider) {
    this.#p = p;
    this.#signer = new MintSigner(p);
  }

  /** Mints the token `input` describes (validated here); a bad request throws a 400 invalid_request. */
  async mint(issuer: string, input: unknown): Promise<MintedToken> {
    const req = parseBody(mintRequestSchema, input, 'mint request');
    const p = this.#p;
    const realm = p.realm;
    const client = lookupClient(realm, req.client);
    const user = req.user;
    const subject = user === undefined ? client.serviceAccount : realm.users.get(user);
    if (subject === undefined)
      throw invalidRequest(`Unknown user "${user}" (users: ${[...realm.users.keys()].join(', ')})`);
    const scopes = mintScopes(realm, client, user !== undefined, req.scope);
    const binding = await dpopBinding(req.type, req.dpopJwk);
    const apiVersion =
      req.apiVersion !== undefined ? servedVersion(req.apiVersion) : configuredVersion(realm, client);
    if (req.type === 'proof' && !issuesProof(apiVersion))
      throw invalidRequest(`Invalid mint request: api_version ${apiVersion} has no proof token`);

    const { tokens } = realm;
    const now = p.clock.nowSeconds();
    const iat = resolveTime(req.issuedAt, now) ?? now;
    const lifespan = req.type === 'refresh' ? tokens.refreshTokenLifespan : tokens.accessTokenLifespan;
    const exp = iat + (req.expiresIn ?? lifespan);
    const nbf = resolveTime(req.notBefore, now);
    try {
      checkInstantMs(iat * 1000, 'issuedAt');
      if (nbf !== undefined) checkInstantMs(nbf * 1000, 'notBefore');
      checkInstantMs(exp * 1000, 'exp (issuedAt + expiresIn)');
    } catch (err) {
      throw invalidRequest(`Invalid mint request: ${(err as Error).message}`);
    }
    const authTime = Math.min(iat, now);
    // A session as the real grants make, so a minted refresh token works at the token endpoint.
    const { id: sessionId } = await p.openSession({
      clientId: client.id,
      issuer,
      ...(user !== undefined ? { username: user } : {}),
      sub: subject.sub,
      authTime,
      until: exp,
    });
    const grant: Grant = p.subjectIds.forClient({
      client,
      subject,
      serviceAccount: user === undefined,
      scopes,
      sessionId,
      authTime,
      apiVersion,
    });
    const stamp = { issuer, jti: p.ids.uuid('jti'), iat, exp };
    const built = { ...withNotBefore(BUILDERS[req.type](realm, grant, stamp), nbf), ...binding };
    const claims = applyOverrides(built, req.claims);
    // The header a real access token has: `typ` as tokens.accessTokenType says, unless overridden.
    const header =
      req.type === 'access' && realm.tokens.accessTokenType === 'at+jwt'
        ? { typ: 'at+jwt', ...req.header }
        : req.header;
    const token = await this.#signer.sign(req.type === 'refresh', claims, header, req.signature, apiVersion);
    return {
      token,
      header: decodeProtectedHeader(token) as MintedTokenHeader,
      claims: decodeJwt(token) as MintedTokenClaims,
    };
  }
}
