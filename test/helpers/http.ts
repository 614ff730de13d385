// HTTP helpers: form posts with client authentication, answers as status + headers + JSON, raw requests.
import { request as httpRequest } from 'node:http';

export interface Answer<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: T;
}

/** RFC 6749 §2.3.1: id and secret are form-urlencoded, then joined and base64-encoded. */
export function basic(id: string, secret: string): string {
  const enc = (s: string): string => new URLSearchParams({ s }).toString().slice(2);
  return `Basic ${Buffer.from(`${enc(id)}:${enc(secret)}`).toString('base64')}`;
}

export async function readAnswer<T = Record<string, unknown>>(response: Response): Promise<Answer<T>> {
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json: json as T };
}

type FormBody = Record<string, string> | [string, string][] | string;

interface PostOptions {
  /** A whole Authorization header value (see {@link basic}). */
  authorization?: string;
  headers?: Record<string, string>;
}

/** POSTs an application/x-www-form-urlencoded body; `options` may be just an Authorization header value. */
export async function postForm<T = Record<string, unknown>>(
  url: string,
  body: FormBody,
  optionsOrAuthorization: PostOptions | string = {},
): Promise<Answer<T>> {
  const options =
    typeof optionsOrAuthorization === 'string'
      ? { authorization: optionsOrAuthorization }
      : optionsOrAuthorization;
  const encoded = typeof body === 'string' ? body : new URLSearchParams(body).toString();
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(options.authorization !== undefined ? { authorization: options.authorization } : {}),
      ...options.headers,
    },
    body: encoded,
    redirect: 'manual',
  });
  return readAnswer<T>(response);
}

/** GET without following redirects. */
export async function get<T = Record<string, unknown>>(
  url: string,
  headers: Record<string, string> = {},
): Promise<Answer<T>> {
  return readAnswer<T>(await fetch(url, { headers, redirect: 'manual' }));
}

export interface RawRequest {
  method: string;
  /** Path and query, from the server origin. */
  path: string;
  /** A list sends the header once per value, each on its own line. */
  headers?: Record<string, string | string[]>;
  body?: string | Buffer;
}

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** Sends a request exactly as given; a dropped connection or a timeout rejects (an invariant failure). */
export function rawRequest(origin: string, req: RawRequest, timeoutMs = 10_000): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const url = new URL(origin);
    const r = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method: req.method,
        path: req.path,
        headers: req.headers ?? {},
        timeout: timeoutMs,
        // A fresh connection per request: a keep-alive race in the client is not the server dropping one.
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    r.on('timeout', () => r.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    r.on('error', (err) =>
      reject(new Error(`dropped connection: ${err.message} for ${req.method} ${req.path}`)),
    );
    if (req.body !== undefined) r.end(req.body);
    else r.end();
  });
}

/** A raw GET with a chosen Host header (fetch always sends the URL's own host). */
export async function getWithHost(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
  const { origin, pathname, search } = new URL(url);
  const answer = await rawRequest(origin, { method: 'GET', path: pathname + search, headers });
  return { status: answer.status, body: answer.text };
}

/** A JSON request (the QA API), without following redirects. */
export async function call<T = Record<string, unknown>>(
  method: string,
  url: string,
  body?: unknown,
): Promise<Answer<T>> {
  const init: RequestInit = { method, redirect: 'manual' };
  if (body !== undefined) {
    init.headers = { 'content-type': 'application/json' };
    init.body = JSON.stringify(body);
  }
  return readAnswer<T>(await fetch(url, init));
}
