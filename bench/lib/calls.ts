// The requests of the chaos and soak loads, over fetch, with the clients of bench/fixtures.yaml: each
// answer with its status (null when none came), its OAuth error or the transport's, and when it came.
import { Buffer } from 'node:buffer';

const MACHINE = { id: 'bench-machine', secret: 'bench-machine-secret' };
const WEB = { id: 'bench-web', secret: 'bench-web-secret', redirectUri: 'http://127.0.0.1/cb' };
/** The resource server: it only introspects. */
const API = { id: 'payments-api', secret: 'bench-rs-secret' };
const USER = 'bench-user';

const basic = (c: { id: string; secret: string }): string =>
  'Basic ' + Buffer.from(`${encodeURIComponent(c.id)}:${encodeURIComponent(c.secret)}`).toString('base64');

export interface Answer {
  status: number | null;
  /** The JSON body, when there was one. */
  json: Record<string, unknown> | undefined;
  location: string | null;
  /** The OAuth `error`, or the transport's error for no answer. */
  error?: string;
  /** performance.now() at the request and at its answer. */
  start: number;
  end: number;
}

/** One request; a transport failure or a timeout is an answer with status null. */
async function call(url: string, init: RequestInit, timeoutMs = 10_000): Promise<Answer> {
  const start = performance.now();
  try {
    const res = await fetch(url, { ...init, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
    const text = await res.text();
    let json: Record<string, unknown> | undefined;
    try {
      json = text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>);
    } catch {
      json = undefined;
    }
    const error = typeof json?.['error'] === 'string' ? json['error'] : undefined;
    return {
      status: res.status,
      json,
      location: res.headers.get('location'),
      ...(error !== undefined ? { error } : {}),
      start,
      end: performance.now(),
    };
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code;
    return {
      status: null,
      json: undefined,
      location: null,
      error: cause ?? (err as Error).name,
      start,
      end: performance.now(),
    };
  }
}

const form = (client: { id: string; secret: string }, body: Record<string, string>): RequestInit => ({
  method: 'POST',
  headers: { authorization: basic(client), 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(body).toString(),
});

export const clientCredentials = (base: string): Promise<Answer> =>
  call(`${base}/protocol/openid-connect/token`, form(MACHINE, { grant_type: 'client_credentials' }));

/** A sign-in of bench-user (login_hint): a 302 to the redirect URI with a code. */
export const authorize = (base: string, n: number): Promise<Answer> =>
  call(
    `${base}/protocol/openid-connect/auth?${new URLSearchParams({
      response_type: 'code',
      client_id: WEB.id,
      redirect_uri: WEB.redirectUri,
      scope: 'openid',
      state: `s${n}`,
      nonce: `n${n}`,
      login_hint: USER,
    })}`,
    {},
  );

/** The code of an authorize answer, if it redirected with one. */
export function codeOf(a: Answer): string | undefined {
  if (a.status !== 302 || a.location === null) return undefined;
  return new URL(a.location).searchParams.get('code') ?? undefined;
}

export const exchange = (base: string, code: string): Promise<Answer> =>
  call(
    `${base}/protocol/openid-connect/token`,
    form(WEB, { grant_type: 'authorization_code', code, redirect_uri: WEB.redirectUri }),
  );

export const refresh = (base: string, token: string): Promise<Answer> =>
  call(
    `${base}/protocol/openid-connect/token`,
    form(WEB, { grant_type: 'refresh_token', refresh_token: token }),
  );

export const revoke = (base: string, token: string): Promise<Answer> =>
  call(`${base}/protocol/openid-connect/revoke`, form(WEB, { token }));

/** Introspection by the resource server: accepted when `active` is true. */
export const introspect = (base: string, token: string): Promise<Answer> =>
  call(`${base}/protocol/openid-connect/token/introspect`, form(API, { token }));

export const health = (base: string): Promise<Answer> => call(`${new URL(base).origin}/health`, {});

/** The key ids a replica publishes in its JWKS, sorted. */
export async function keyIds(base: string): Promise<string[]> {
  const a = await call(`${base}/protocol/openid-connect/certs`, {});
  const keys = a.json?.['keys'];
  if (!Array.isArray(keys)) return [];
  return keys.map((k: { kid?: unknown }) => String(k.kid)).sort();
}

/** GET on a path of the realm (`/mock/...`, `/.well-known/...`). */
export const get = (base: string, path: string): Promise<Answer> => call(`${base}${path}`, {});

/** A string field of the JSON answer. */
export const field = (a: Answer, name: string): string | undefined => {
  const v = a.json?.[name];
  return typeof v === 'string' ? v : undefined;
};
