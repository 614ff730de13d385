// Interface version 4 for the grants with no authorize request beyond client_credentials and password: the
// device flow, CIBA and JWT bearer take the client's configured version and refuse the proof scope (version 4
// has no proof token); a token exchange continues the subject token's sign-in, its version included.
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import type { FixturesInput } from '../../src/fixtures/schema.js';
import {
  ACCESS_TOKEN_TYPE,
  CIBA,
  DEVICE_CODE,
  grantsFixtures,
  JWT_BEARER,
  TOKEN_EXCHANGE,
} from '../helpers/grants.js';
import { basic, call, postForm, type Answer } from '../helpers/http.js';
import { ASSERTION_TYPE, clientAssertion, type Claims } from '../helpers/jwt.js';
import { useIdp } from '../helpers/server.js';

const PROOF_REFUSED = 'Invalid scopes: idp_proof (api_version 4 has no proof token; leave the scope out)';

function fixtures(): FixturesInput {
  const f = grantsFixtures({
    'tv-4': {
      authMethods: ['none'],
      grants: [DEVICE_CODE],
      scopes: ['openid', 'profile', 'idp_proof'],
      apiVersion: 4,
    },
    'desk-4': { secret: 'desk-4-pass', grants: [CIBA], scopes: ['openid', 'idp_proof'], apiVersion: 4 },
    'pw-4': { secret: 'pw-4-pass', grants: ['password'], scopes: ['openid', 'ledger.read'], apiVersion: 4 },
  });
  const clients = f.clients as Record<string, Record<string, unknown>>;
  clients['vault-signer'] = {
    ...clients['vault-signer'],
    scopes: ['openid', 'profile', 'idp_proof'],
    apiVersion: 4,
  };
  clients['ledger-api'] = { ...clients['ledger-api'], scopes: ['ledger.read', 'idp_proof'] };
  const users = f.users as Record<string, Record<string, unknown>>;
  users['ingrid'] = { ...users['ingrid'], password: 'ingrid-pass' };
  return f;
}

const idp = useIdp(() => ({ fixtures: fixtures() }));

const deviceEndpoint = (): string => `${idp.issuer}/protocol/openid-connect/auth/device`;
const cibaEndpoint = (): string => `${idp.issuer}/protocol/openid-connect/ext/ciba/auth`;
const DESK = basic('desk-4', 'desk-4-pass');

/** Verifies a token with the realm's JWKS as a client would (version 4 signs with ES256). */
async function verified(token: unknown): Promise<Claims> {
  const jwks = createRemoteJWKSet(new URL(idp.endpoints.certs));
  const { payload, protectedHeader } = await jwtVerify(String(token), jwks, { issuer: idp.issuer });
  expect(protectedHeader.alg).toBe('ES256');
  return payload as Claims;
}

/** Starts each grant with `scope`: the first answer that refuses or the token response that ends it. */
const grants: [string, (scope: string) => Promise<Answer>][] = [
  [
    'device flow',
    async (scope) => {
      const started = await postForm(deviceEndpoint(), { client_id: 'tv-4', scope });
      if (started.status !== 200) return started;
      const approved = await call('POST', `${idp.issuer}/mock/device`, {
        user_code: started.json['user_code'],
        user: 'ingrid',
        decision: 'approve',
      });
      expect(approved.status, approved.text).toBe(200);
      return postForm(idp.endpoints.token, {
        grant_type: DEVICE_CODE,
        device_code: String(started.json['device_code']),
        client_id: 'tv-4',
      });
    },
  ],
  [
    'CIBA',
    async (scope) => {
      const started = await postForm(cibaEndpoint(), { scope, login_hint: 'ingrid' }, DESK);
      if (started.status !== 200) return started;
      const id = String(started.json['auth_req_id']);
      const approved = await call('POST', `${idp.issuer}/mock/ciba`, {
        auth_req_id: id,
        decision: 'approve',
      });
      expect(approved.status, approved.text).toBe(200);
      return postForm(idp.endpoints.token, { grant_type: CIBA, auth_req_id: id }, DESK);
    },
  ],
  [
    'JWT bearer',
    async (scope) =>
      postForm(idp.endpoints.token, {
        grant_type: JWT_BEARER,
        assertion: await clientAssertion(idp, { claims: { sub: 'ingrid' } }),
        scope,
        client_assertion_type: ASSERTION_TYPE,
        client_assertion: await clientAssertion(idp),
      }),
  ],
];

describe('grants of a client configured for version 4', () => {
  it.each(grants)('%s with the proof scope: 400 invalid_scope', async (_name, run) => {
    const answer = await run('openid idp_proof');
    expect(answer.status, answer.text).toBe(400);
    expect(answer.json).toEqual({ error: 'invalid_scope', error_description: PROOF_REFUSED });
  });

  it.each(grants)('%s: version 4 tokens, no proof token', async (_name, run) => {
    const answer = await run('openid');
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json).not.toHaveProperty('proof_token');
    const [access, id] = await Promise.all([
      verified(answer.json['access_token']),
      verified(answer.json['id_token']),
    ]);
    expect([access['api_ver'], id['api_ver']]).toEqual([4, 4]);
    expect(access).not.toHaveProperty('session_state');
  });
});

describe('a token exchange of a version 4 token by a client of version 1', () => {
  const subjectToken = async (): Promise<string> => {
    const answer = await postForm(
      idp.endpoints.token,
      { grant_type: 'password', username: 'ingrid', password: 'ingrid-pass', scope: 'openid ledger.read' },
      basic('pw-4', 'pw-4-pass'),
    );
    expect(answer.status, answer.text).toBe(200);
    return String(answer.json['access_token']);
  };
  it('continues the subject token at version 4', async () => {
    const answer = await postForm(
      idp.endpoints.token,
      {
        grant_type: TOKEN_EXCHANGE,
        subject_token: await subjectToken(),
        subject_token_type: ACCESS_TOKEN_TYPE,
        scope: 'ledger.read',
      },
      basic('ledger-api', 'ledger-rs-pass'),
    );
    expect(answer.status, answer.text).toBe(200);
    expect((await verified(answer.json['access_token']))['api_ver']).toBe(4);
  });

  it('refuses the proof scope, as version 4 does everywhere (a minted version 4 token that has it)', async () => {
    const minted = await call('POST', `${idp.issuer}/mock/tokens`, {
      type: 'access',
      client: 'pw-4',
      user: 'ingrid',
      apiVersion: 4,
      scope: 'openid ledger.read idp_proof',
    });
    expect(minted.status, minted.text).toBe(200);
    const answer = await postForm(
      idp.endpoints.token,
      {
        grant_type: TOKEN_EXCHANGE,
        subject_token: (minted.json as { token: string }).token,
        subject_token_type: ACCESS_TOKEN_TYPE,
        scope: 'ledger.read idp_proof',
      },
      basic('ledger-api', 'ledger-rs-pass'),
    );
    expect(answer.status, answer.text).toBe(400);
    expect(answer.json).toEqual({ error: 'invalid_scope', error_description: PROOF_REFUSED });
  });
});
