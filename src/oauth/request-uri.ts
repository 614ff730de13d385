// Fetching a `request_uri` (OIDC Core 6.2): http(s) only, bounded in time and size, no redirects followed.
import { OAuthError } from './errors.js';

/** How long the whole fetch (answer and body) may take, ms. */
export const REQUEST_URI_TIMEOUT_MS = 5000;
/** The largest request object a request_uri may answer, bytes. */
const REQUEST_URI_MAX_BYTES = 64 * 1024;

export interface RequestUriLimits {
  /** Default: {@link REQUEST_URI_TIMEOUT_MS}. */
  timeoutMs?: number;
  /** Default: {@link REQUEST_URI_MAX_BYTES}. */
  maxBytes?: number;
}

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*(\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*)?$/;

const invalidUri = (why: string): OAuthError =>
  new OAuthError('invalid_request_uri', `Invalid request_uri: ${why}`);

/** GETs the request object a request_uri points at; throws invalid_request_uri for any failure. */
export async function fetchRequestUri(uri: string, limits: RequestUriLimits = {}): Promise<string> {
  const timeoutMs = limits.timeoutMs ?? REQUEST_URI_TIMEOUT_MS;
  const maxBytes = limits.maxBytes ?? REQUEST_URI_MAX_BYTES;
  const url = URL.canParse(uri) ? new URL(uri) : undefined;
  if (url === undefined) throw invalidUri('not an absolute URL');
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw invalidUri(`only http and https are fetched, not ${url.protocol}`);
  if (url.username !== '' || url.password !== '') throw invalidUri('a URL with user info is not fetched');
  const signal = AbortSignal.timeout(timeoutMs);
  const timedOut = (): OAuthError => invalidUri(`no complete answer within ${timeoutMs} ms`);
  let response: Response;
  try {
    response = await fetch(url, {
      redirect: 'manual',
      signal,
      headers: { Accept: 'application/oauth-authz-req+jwt, application/jwt' },
    });
  } catch (err) {
    if (signal.aborted) throw timedOut();
    const code = (err as { cause?: { code?: unknown } }).cause?.code;
    throw invalidUri(`could not be fetched${typeof code === 'string' ? ` (${code})` : ''}`);
  }
  if (response.status !== 200) {
    await response.body?.cancel().catch(() => undefined);
    const redirect = response.status >= 300 && response.status < 400;
    throw invalidUri(`answered ${response.status}${redirect ? ' (redirects are not followed)' : ''}`);
  }
  const declared = Number(response.headers.get('content-length') ?? '0');
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw invalidUri(`the answer is larger than ${maxBytes} bytes`);
  }
  const body = await readCapped(response, maxBytes).catch((err: unknown) => {
    if (signal.aborted) throw timedOut();
    throw err instanceof OAuthError ? err : invalidUri('the answer could not be read');
  });
  const text = body.trim();
  if (!JWT_SHAPE.test(text)) throw invalidUri('the answer is not a JWT');
  return text;
}

/** The body as text, refusing (and cancelling) it once it passes `maxBytes`. */
async function readCapped(response: Response, maxBytes: number): Promise<string> {
  if (response.body === null) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw invalidUri(`the answer is larger than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
