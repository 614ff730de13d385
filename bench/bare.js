// The "bare" baseline of `npm run bench`: a node:http server doing, per request, what a mock-idp token
// response needs and nothing else: one RS256 access token (plus an RS256 ID token for a code exchange) signed
// with crypto.sign on the libuv thread pool, one HS256 refresh token, a constant-time Basic-header compare.
// It serves the bench's two flows at mock-idp's paths: client_credentials, and authorize (login_hint → 302 with
// a code) + code exchange. No validation beyond what those need, no log, no sessions. Prints `port N` when ready.
import { Buffer } from 'node:buffer';
import { createHash, createHmac, generateKeyPairSync, randomBytes, randomUUID, sign } from 'node:crypto';
import { timingSafeEqual } from 'node:crypto';
import http from 'node:http';

const BASE = '/realms/mock/protocol/openid-connect';
const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const hsSecret = randomBytes(32);
const b64 = (/** @type {string | Buffer} */ s) => Buffer.from(s).toString('base64url');
const RS = b64(JSON.stringify({ alg: 'RS256', typ: 'JWT', kid: 'bare-rs' })) + '.';
const HS = b64(JSON.stringify({ alg: 'HS256', typ: 'JWT', kid: 'bare-hs' })) + '.';
const basic = (/** @type {string} */ id, /** @type {string} */ secret) =>
  Buffer.from(`Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`);
const MACHINE = basic('bench-machine', 'bench-machine-secret');
const WEB = basic('bench-web', 'bench-web-secret');
const REDIRECT = 'http://127.0.0.1/cb';
/** @type {Map<string, { nonce: string | null }>} */ const codes = new Map();

const rs256 = (/** @type {object} */ claims) =>
  new Promise((resolve, reject) => {
    const input = RS + b64(JSON.stringify(claims));
    sign('sha256', Buffer.from(input), privateKey, (err, sig) =>
      err ? reject(err) : resolve(`${input}.${sig.toString('base64url')}`),
    );
  });
const hs256 = (/** @type {object} */ claims) => {
  const input = HS + b64(JSON.stringify(claims));
  return `${input}.${createHmac('sha256', hsSecret).update(input).digest('base64url')}`;
};
const authorized = (/** @type {string | undefined} */ header, /** @type {Buffer} */ expected) => {
  const got = Buffer.from(header ?? '');
  return got.length === expected.length && timingSafeEqual(got, expected);
};

/** @param {URLSearchParams} form @param {http.IncomingMessage} req @param {string} iss */
async function token(form, req, iss) {
  const code =
    form.get('grant_type') === 'authorization_code' ? codes.get(form.get('code') ?? '') : undefined;
  if (code) codes.delete(form.get('code') ?? '');
  const ok = code
    ? form.get('redirect_uri') === REDIRECT && authorized(req.headers.authorization, WEB)
    : form.get('grant_type') === 'client_credentials' && authorized(req.headers.authorization, MACHINE);
  if (!ok) return null;
  const iat = Math.floor(Date.now() / 1000);
  const sid = randomUUID();
  const azp = code ? 'bench-web' : 'bench-machine';
  const sub = code ? 'bench-user' : 'service-account-bench-machine';
  const scope = code ? 'openid' : 'payments.read';
  const nonce = code?.nonce ? { nonce: code.nonce } : {};
  const base = { exp: iat + 300, iat, auth_time: iat, iss, sub, typ: 'Bearer', azp, ...nonce };
  const roles = {
    realm_access: { roles: ['batch'] },
    resource_access: { 'payments-api': { roles: ['read'] } },
  };
  const access = { ...base, jti: randomUUID(), aud: 'payments-api', session_state: sid, acr: '1', ...roles };
  const refresh = {
    ...base,
    exp: iat + 1800,
    jti: randomUUID(),
    aud: iss,
    typ: 'Refresh',
    ...roles,
    scope,
    sid,
  };
  const [access_token, refresh_token] = await Promise.all([
    rs256({ ...access, scope, sid, client_id: azp, preferred_username: sub }),
    hs256(refresh),
  ]);
  const at_hash = createHash('sha256')
    .update(String(access_token))
    .digest()
    .subarray(0, 16)
    .toString('base64url');
  const id = { ...base, jti: randomUUID(), aud: azp, typ: 'ID', session_state: sid, at_hash, acr: '1', sid };
  const id_token = code ? await rs256({ ...id, preferred_username: sub }) : undefined;
  return JSON.stringify({
    access_token,
    expires_in: 300,
    refresh_expires_in: 1800,
    refresh_token,
    token_type: 'bearer',
    ...(id_token ? { id_token } : {}),
    'not-before-policy': 0,
    session_state: sid,
    scope,
    sid,
  });
}

const server = http.createServer((req, res) => {
  const url = req.url ?? '';
  if (req.method === 'GET' && url.startsWith(`${BASE}/auth?`)) {
    const q = new URLSearchParams(url.slice(url.indexOf('?') + 1));
    if (q.get('client_id') !== 'bench-web' || q.get('redirect_uri') !== REDIRECT || !q.get('login_hint'))
      return res.writeHead(400).end();
    const code = randomUUID();
    codes.set(code, { nonce: q.get('nonce') });
    const back = new URLSearchParams({ state: q.get('state') ?? '', code });
    return res.writeHead(302, { Location: `${REDIRECT}?${back}`, 'Content-Length': '0' }).end();
  }
  if (req.method !== 'POST' || url !== `${BASE}/token`) return res.writeHead(404).end();
  /** @type {Buffer[]} */ const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const form = new URLSearchParams(Buffer.concat(chunks).toString('latin1'));
    token(form, req, `http://${req.headers.host}/realms/mock`).then(
      (body) => {
        if (body === null) return res.writeHead(401).end();
        const headers = {
          'Cache-Control': 'no-store',
          Pragma: 'no-cache',
          'Content-Type': 'application/json',
        };
        res.writeHead(200, { ...headers, 'Content-Length': Buffer.byteLength(body) }).end(body);
      },
      (err) => res.writeHead(500).end(String(err)),
    );
  });
});
server.listen(0, '127.0.0.1', () => {
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  console.log(`bare listening on http://127.0.0.1:${port}/realms/mock port ${port}`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)).closeAllConnections());
