// A scripted HTTP server on 127.0.0.1, standing in for a vendor that misbehaves in one
// precise way. Records every request (method, path, headers) it was sent.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Loopback {
  url: string;
  port: number;
  server: Server;
  seen: SeenRequest[];
  /** TCP connections accepted so far. */
  connections: number;
  handler: (req: SeenRequest, res: ServerResponse, raw: IncomingMessage) => void;
  close(): Promise<void>;
}

export async function startLoopback(handler: Loopback['handler'] = (_q, res) => res.end()): Promise<Loopback> {
  const lb = { seen: [] as SeenRequest[], connections: 0, handler } as Loopback;
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      const seen = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body };
      lb.seen.push(seen);
      lb.handler(seen, res, req);
    });
  });
  server.on('connection', () => lb.connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  lb.server = server;
  lb.port = (server.address() as AddressInfo).port;
  lb.url = `http://127.0.0.1:${lb.port}`;
  lb.close = async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
  return lb;
}
