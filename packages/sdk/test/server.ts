// A canned HTTP server for the SDK tests: records each request and answers from a
// route table ("METHOD /path" without the query string).
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Recorded {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: any;
  rawBody: string;
}

export interface Canned {
  status?: number;
  headers?: Record<string, string>;
  /** A string is sent as is; anything else as JSON. */
  body?: unknown;
  /** Server-sent events: each string is written as its own chunk. */
  sse?: string[];
}

export type Handler = Canned | ((req: Recorded, res: ServerResponse) => Canned | void);

export interface TestServer {
  url: string;
  requests: Recorded[];
  routes: Map<string, Handler>;
  close(): Promise<void>;
}

function reply(res: ServerResponse, c: Canned): void {
  if (c.sse) {
    res.writeHead(c.status ?? 200, { 'content-type': 'text/event-stream', ...c.headers });
    for (const part of c.sse) res.write(part);
    res.end();
    return;
  }
  const isText = typeof c.body === 'string';
  const payload = c.body === undefined ? '' : isText ? (c.body as string) : JSON.stringify(c.body);
  const type = isText ? 'text/plain' : 'application/json';
  res.writeHead(c.status ?? 200, c.body === undefined ? { ...c.headers } : { 'content-type': type, ...c.headers });
  res.end(payload);
}

export async function startServer(routes: Record<string, Handler> = {}): Promise<TestServer> {
  const table = new Map(Object.entries(routes));
  const requests: Recorded[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const rawBody = Buffer.concat(chunks).toString('utf8');
      const rec: Recorded = {
        method: req.method ?? '',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        rawBody,
        body: rawBody ? JSON.parse(rawBody) : undefined,
      };
      requests.push(rec);
      const h = table.get(`${rec.method} ${rec.path}`);
      if (!h) return reply(res, { status: 404, body: { error: { message: `no route ${rec.method} ${rec.path}`, type: 'not_found_error', code: 'not_found', param: null } } });
      const c = typeof h === 'function' ? h(rec, res) : h;
      if (c) reply(res, c);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    routes: table,
    close: () => new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve()))),
  };
}

export const block = { cache_hit: false, baseline_cost: 0.01, served_cost: 0.002, actual_cost: 0.002, exploration_cost: 0, saving: 0.008 };

export function completion(content = 'hi') {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1,
    model: 'gpt-4o-mini',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
    optimizer: block,
  };
}

export function chunk(content: string | null, extra: Record<string, unknown> = {}) {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'gpt-4o-mini',
    choices: content === null ? [] : [{ index: 0, delta: { content }, finish_reason: null }],
    ...extra,
  };
}
