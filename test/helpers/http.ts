// HTTP helpers: form posts with client authentication, and reading answers as status + headers + JSON.
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

export type FormBody = Record<string, string> | [string, string][] | string;

export interface PostOptions {
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

/** A raw GET with a chosen Host header (fetch always sends the URL's own host). */
export function getWithHost(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'GET', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
      );
    });
    req.on('error', reject);
    req.end();
  });
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
