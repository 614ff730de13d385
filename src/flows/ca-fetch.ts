// A fetch that trusts one more CA (the mock CA of a server that made its certificate at start): Node's own
// fetch takes no CA, so the few calls the library and the container module make go through node:https.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { rootCertificates } from 'node:tls';

/** The part of fetch the token flow, the QA mint and the journal use. */
export type FlowFetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** Statuses whose response has no body (the Response constructor refuses one). */
const NULL_BODY = new Set([101, 204, 205, 304]);

function bodyOf(body: RequestInit['body']): string | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string' || body instanceof URLSearchParams) return body.toString();
  throw new TypeError('fetchTrusting: only string and URLSearchParams bodies are sent');
}

/** Fetch, trusting `ca` (PEM) beside the system's roots; redirects are answered, not followed. */
export function fetchTrusting(ca: string): FlowFetch {
  return (url, init = {}) =>
    new Promise<Response>((resolve, reject) => {
      const target = new URL(url);
      const body = bodyOf(init.body);
      const headers = Object.fromEntries(new Headers(init.headers).entries());
      if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
      const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
      const req = send(
        target,
        { method: init.method ?? 'GET', headers, ca: [...rootCertificates, ca] },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', reject);
          res.on('end', () => {
            const status = res.statusCode ?? 502;
            const answer = new Headers();
            for (const [name, value] of Object.entries(res.headers))
              for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value])
                answer.append(name, one);
            resolve(
              new Response(NULL_BODY.has(status) ? null : Buffer.concat(chunks), {
                status,
                headers: answer,
              }),
            );
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
}
