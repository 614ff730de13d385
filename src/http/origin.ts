// The public origin of a request: Host, or X-Forwarded-Proto/-Host/-Port when a proxy or port mapping sets them.
import type { Request } from 'express';
import { BoundedMemo } from '../memo.js';

const HOST = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/;

function first(value: string | string[] | undefined): string | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  return v?.split(',')[0]?.trim() || undefined;
}

/**
 * Origins of requests without X-Forwarded-* headers, by scheme and Host: a server is reached under a few
 * names, and each request would otherwise repeat the checks below (two regular expressions and a URL parse).
 * Only origins made from the Host header are kept (not the socket's address, which differs per connection).
 */
const byHost = new BoundedMemo<string>(64);

export function requestOrigin(req: Request): string {
  const h = req.headers;
  const encrypted = 'encrypted' in req.socket && req.socket.encrypted === true;
  const plain =
    h.host !== undefined &&
    h['x-forwarded-proto'] === undefined &&
    h['x-forwarded-host'] === undefined &&
    h['x-forwarded-port'] === undefined;
  // A space cannot be part of a Host header that passes HOST, so the key is unambiguous.
  const key = plain ? `${encrypted ? 'https' : 'http'} ${h.host}` : undefined;
  const known = key !== undefined ? byHost.get(key) : undefined;
  if (known !== undefined) return known;
  const { origin, fromHeaders } = computeOrigin(req, encrypted);
  if (key !== undefined && fromHeaders) byHost.set(key, origin);
  return origin;
}

function computeOrigin(req: Request, encrypted: boolean): { origin: string; fromHeaders: boolean } {
  const proto = first(req.headers['x-forwarded-proto']);
  const scheme = proto === 'https' || proto === 'http' ? proto : encrypted ? 'https' : 'http';
  const local = req.socket.localAddress ?? '127.0.0.1';
  const socketHost = `${local.includes(':') ? `[${local}]` : local}:${req.socket.localPort ?? 80}`;
  let host = first(req.headers['x-forwarded-host']) ?? req.headers.host;
  let fromHeaders = true;
  if (host === undefined || !HOST.test(host)) {
    host = socketHost;
    fromHeaders = false;
  }
  const port = first(req.headers['x-forwarded-port']);
  if (port !== undefined && /^\d{1,5}$/.test(port)) host = `${host.replace(/:\d+$/, '')}:${port}`;
  // What the headers name must be a URL's host (a port up to 65535, a real IPv6 literal); else the socket's.
  if (!URL.canParse(`${scheme}://${host}`)) {
    host = socketHost;
    fromHeaders = false;
  }
  const defaultPort = scheme === 'https' ? ':443' : ':80';
  if (host.endsWith(defaultPort)) host = host.slice(0, -defaultPort.length);
  return { origin: `${scheme}://${host}`, fromHeaders };
}
