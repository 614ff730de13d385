// A small HTTP server a test starts on 127.0.0.1:0 (request_uri hosts, redirect targets); it records each hit.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LocalServer {
  /** http://127.0.0.1:{port} */
  url: string;
  /** Method, path and Accept header of every request, in order. */
  hits: { method: string; path: string; accept: string | undefined }[];
  /** Closes the server and every open connection (a handler that never answers included). */
  close(): Promise<void>;
}

/** Starts a server on 127.0.0.1, port 0; `handler` answers (or, to simulate a hang, never does). */
export async function startLocalServer(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<LocalServer> {
  const hits: LocalServer['hits'] = [];
  const server = createServer((req, res) => {
    hits.push({ method: req.method ?? '', path: req.url ?? '', accept: req.headers.accept });
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}
