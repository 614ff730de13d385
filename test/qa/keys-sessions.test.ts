// /mock/keys (rotate, remove) and /mock/sessions (list, end one, end all) against a live server.
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  authorize,
  BATCH_JOB,
  DEFAULT_FIXTURES,
  exchangeCode,
  PAYMENTS_API,
  WEB_APP,
} from '../helpers/bundled.js';
import { call, postForm } from '../helpers/http.js';
import { endpointsOf, useIdp } from '../helpers/server.js';

const idp = useIdp({ fixtures: DEFAULT_FIXTURES });
let base: string;

beforeAll(() => {
  base = idp.issuer;
});

const clientCredentials = () =>
  postForm(endpointsOf(base).token, { grant_type: 'client_credentials' }, BATCH_JOB);
const introspect = async (token: unknown) =>
  (await postForm(endpointsOf(base).introspect, { token: String(token) }, PAYMENTS_API)).json['active'];
/**
 * The RSA signing keys of /certs, which /mock/keys rotates (the EC key and the encryption key, use enc,
 * follow them and never rotate here).
 */
const jwksKids = async () =>
  ((await call('GET', endpointsOf(base).certs)).json['keys'] as { kid: string; use: string; kty: string }[])
    .filter((k) => k.use === 'sig' && k.kty === 'RSA')
    .map((k) => k.kid);

describe('/mock/keys', () => {
  it('rotate: the new key signs, the old one stays published until removed', async () => {
    const old = await clientCredentials();
    const oldKid = String(decodeProtectedHeader(String(old.json['access_token'])).kid);
    expect((await call('GET', `${base}/mock/keys`)).json).toEqual({ kid: oldKid, keys: [oldKid] });

    const rotated = await call('POST', `${base}/mock/keys/rotate`);
    expect(rotated.status).toBe(201);
    const newKid = String(rotated.json['kid']);
    expect(newKid).not.toBe(oldKid);
    expect(rotated.json['keys']).toEqual([newKid, oldKid]);
    expect(await jwksKids()).toEqual([newKid, oldKid]);

    const fresh = await clientCredentials();
    expect(decodeProtectedHeader(String(fresh.json['access_token'])).kid).toBe(newKid);
    const jwks = createRemoteJWKSet(new URL(endpointsOf(base).certs));
    await expect(jwtVerify(String(fresh.json['access_token']), jwks)).resolves.toBeDefined();
    await expect(jwtVerify(String(old.json['access_token']), jwks)).resolves.toBeDefined();
    expect(await introspect(old.json['access_token'])).toBe(true);

    const removed = await call('DELETE', `${base}/mock/keys/${oldKid}`);
    expect(removed.status).toBe(200);
    expect(removed.json).toEqual({ kid: newKid, keys: [newKid] });
    expect(await jwksKids()).toEqual([newKid]);
    expect(await introspect(old.json['access_token'])).toBe(false);
    expect(await introspect(fresh.json['access_token'])).toBe(true);
  });

  it('removing the last key answers 409 and keeps it', async () => {
    const [only] = await jwksKids();
    const answer = await call('DELETE', `${base}/mock/keys/${only}`);
    expect(answer.status).toBe(409);
    expect(answer.json).toMatchObject({ error: 'invalid_request' });
    expect(String(answer.json['error_description'])).toMatch(/last key/);
    expect(await jwksKids()).toEqual([only]);
  });

  it('removing an unknown kid answers 404', async () => {
    const answer = await call('DELETE', `${base}/mock/keys/nope`);
    expect(answer.status).toBe(404);
    expect(String(answer.json['error_description'])).toMatch(/No key "nope"/);
  });
});

describe('/mock/sessions', () => {
  it('lists sessions of the code flow and of client_credentials', async () => {
    const code = await exchangeCode(base, (await authorize(base, 'alice')).code);
    const cc = await clientCredentials();
    const { json } = await call('GET', `${base}/mock/sessions`);
    expect(json['sessions']).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: code.json['sid'], clientId: 'web-app', username: 'alice' }),
        expect.objectContaining({ id: cc.json['sid'], clientId: 'batch-job' }),
      ]),
    );
  });

  it('DELETE {id} ends one session: its tokens stop being active, others stay', async () => {
    const a = await clientCredentials();
    const b = await clientCredentials();
    const ended = await call('DELETE', `${base}/mock/sessions/${String(a.json['sid'])}`);
    expect(ended.json).toEqual({ ended: 1 });
    expect(await introspect(a.json['access_token'])).toBe(false);
    expect(await introspect(b.json['access_token'])).toBe(true);
    const again = await call('DELETE', `${base}/mock/sessions/${String(a.json['sid'])}`);
    expect(again.status).toBe(404);
  });

  it('DELETE ends every session; refresh tokens then fail', async () => {
    const code = await exchangeCode(base, (await authorize(base, 'bob')).code);
    const ended = await call('DELETE', `${base}/mock/sessions`);
    expect(Number(ended.json['ended'])).toBeGreaterThanOrEqual(1);
    expect((await call('GET', `${base}/mock/sessions`)).json).toEqual({ sessions: [] });
    expect(await introspect(code.json['access_token'])).toBe(false);
    const refreshed = await postForm(
      endpointsOf(base).token,
      { grant_type: 'refresh_token', refresh_token: String(code.json['refresh_token']) },
      WEB_APP,
    );
    expect(refreshed.json['error']).toBe('invalid_grant');
  });
});
