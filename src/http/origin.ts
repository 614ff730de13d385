// The public origin of a request: Host, or X-Forwarded-Proto/-Host/-Port when a proxy or port mapping sets them.
import type { Request } from 'express';

const HOST = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/;

function first(value: string | string[] | undefined): string | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  return v?.split(',')[0]?.trim() || undefined;
}

export function requestOrigin(req: Request): string {
  const proto = first(req.headers['x-forwarded-proto']);
  const scheme =
    proto === 'https' || proto === 'http'
      ? proto
      : 'encrypted' in req.socket && req.socket.encrypted
        ? 'https'
        : 'http';
  const local = req.socket.localAddress ?? '127.0.0.1';
  const socketHost = `${local.includes(':') ? `[${local}]` : local}:${req.socket.localPort ?? 80}`;
  let host = first(req.headers['x-forwarded-host']) ?? req.headers.host;
  if (host === undefined || !HOST.test(host)) host = socketHost;
  const port = first(req.headers['x-forwarded-port']);
  if (port !== undefined && /^\d{1,5}$/.test(port)) host = `${host.replace(/:\d+$/, '')}:${port}`;
  // What the headers name must be a URL's host (a port up to 65535, a real IPv6 literal); else the socket's.
  if (!URL.canParse(`${scheme}://${host}`)) host = socketHost;
  const defaultPort = scheme === 'https' ? ':443' : ':80';
  if (host.endsWith(defaultPort)) host = host.slice(0, -defaultPort.length);
  return `${scheme}://${host}`;
}
