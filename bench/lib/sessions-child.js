// The process bench/lib/sessions.js measures: mock-idp started through the library (the built dist/, the
// bench fixtures, the memory store), then N browser sign-ins made in-process by the same code the HTTP
// endpoints run, minus HTTP and the token signatures (tokens are not stored): a browser session opened, an
// authorization code issued (session_state, PKCE-less code record), the code exchanged (taken, marked
// spent) and the session touched as a token response touches it. What the store holds after that is what N real sign-ins leave. Prints
// `listening on URL`, then `sessions N` once they exist.
// Usage: node bench/lib/sessions-child.js N
import { startMockIdp } from '../../dist/index.js';
import { checkAuthorizeRequest, issueAuthorizeResponse } from '../../dist/oauth/authorize.js';
import { grantAuthorizationCode } from '../../dist/oauth/grants/authorization-code.js';
import { Params } from '../../dist/oauth/params.js';

const count = Number(process.argv[2] ?? 100000);
const idp = await startMockIdp({ fixtures: 'bench/fixtures.yaml', port: 0 });
const p = idp.provider;
console.log(`listening on ${idp.issuer}`);

const client = p.realm.clients.get('bench-web');
const user = p.realm.users.get('bench-user');
if (client === undefined || user === undefined) throw new Error('bench fixtures changed');
const redirectUri = 'http://127.0.0.1/cb';
const origin = idp.url;

for (let i = 0; i < count; i++) {
  // A fresh issuer string per request, as the HTTP layer derives it from each request's Host.
  const issuer = `${origin}/realms/${p.realm.name}`;
  const params = Params.from({
    response_type: 'code',
    client_id: client.id,
    redirect_uri: redirectUri,
    scope: 'openid profile',
    state: `s${i}`,
    nonce: `n${i}`,
  });
  const request = checkAuthorizeRequest(p, client, redirectUri, params);
  const session = await p.openSession({
    clientId: client.id,
    issuer,
    username: user.username,
    sub: user.sub,
    authTime: p.clock.nowSeconds(),
    browser: true,
  });
  const { code } = await issueAuthorizeResponse(p, request, session, user, issuer);
  const grant = await grantAuthorizationCode(p, {
    client,
    params: Params.from({ grant_type: 'authorization_code', code, redirect_uri: redirectUri }),
  });
  const touched = await p.store.activeSession(grant.sessionId);
  if (touched !== undefined) await p.touchSession(touched, client.id);
}
console.log(`sessions ${count}`);
