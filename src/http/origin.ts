// The public origin of a request: express's req.protocol and req.host (X-Forwarded-Proto and -Host, under the
// app's 'trust proxy'), the X-Forwarded-Port that express does not read, else the listening socket's address.
import type { Request } from 'express';

const HOST = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/;

export function requestOrigin(req: Request): string {
  const encrypted = 'encrypted' in req.socket && req.socket.encrypted === true;
  const proto = req.protocol;
  const scheme = proto === 'https' || proto === 'http' ? proto : encrypted ? 'https' : 'http';
  const local = req.socket.localAddress ?? '127.0.0.1';
  const socketHost = `${local.includes(':') ? `[${local}]` : local}:${req.socket.localPort ?? 80}`;
  // req.host is undefined for an empty first X-Forwarded-Host entry; the Host header stands in then.
  let host = req.host ?? req.headers.host;
  if (host === undefined || !HOST.test(host)) host = socketHost;
  const port = req.get('X-Forwarded-Port')?.split(',')[0]?.trim();
  if (port !== undefined && /^\d{1,5}$/.test(port)) host = `${host.replace(/:\d+$/, '')}:${port}`;
  // What the headers name must be a URL's host (a port up to 65535, a real IPv6 literal); else the socket's.
  if (!URL.canParse(`${scheme}://${host}`)) host = socketHost;
  const defaultPort = scheme === 'https' ? ':443' : ':80';
  if (host.endsWith(defaultPort)) host = host.slice(0, -defaultPort.length);
  return `${scheme}://${host}`;
}
