// The floor for any gateway on this machine: a bare forwarding proxy on node:http (server and a
// keep-alive upstream agent), with no auth, parsing, metering or logging. argv[2] is the upstream
// base URL (the mock's …/v1); prints {"url"} on stdout.
import { Agent, createServer, request } from 'node:http';

const upstream = new URL(process.argv[2] ?? 'http://127.0.0.1:1/v1');
const agent = new Agent({ keepAlive: true, maxSockets: 256 });
const prefix = upstream.pathname.replace(/\/$/, '');

const server = createServer((req, res) => {
  const path = `${prefix}${(req.url ?? '/').replace(/^\/v1/, '')}`;
  const headers: Record<string, string> = {};
  for (const name of ['content-type', 'content-length', 'authorization', 'accept']) {
    const v = req.headers[name];
    if (typeof v === 'string') headers[name] = v;
  }
  const up = request({ host: upstream.hostname, port: upstream.port, method: req.method, path, headers, agent }, (ur) => {
    res.writeHead(ur.statusCode ?? 502, ur.headers);
    ur.pipe(res);
  });
  up.on('error', () => {
    if (!res.headersSent) res.writeHead(502);
    res.end();
  });
  req.pipe(up);
});
server.keepAliveTimeout = 72_000;
server.listen(0, '127.0.0.1', () => {
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}` })}\n`);
});

let stopping = false;
function stop(): void {
  if (stopping) return;
  stopping = true;
  setTimeout(() => process.exit(0), 1000).unref();
  server.close(() => process.exit(0));
  server.closeIdleConnections();
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
