// The vendor-facing HTTP/1.1 client against scripted servers that write exact bytes:
// framing (length, chunked split anywhere, until close, none), interim answers,
// keep-alive reuse and its limits, timeouts, queueing and refusing unsafe headers.
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { Http1Client, type ResponseHandler } from './http1-client.ts';

type Script = (socket: Socket, request: string, index: number) => void | Promise<void>;

interface Scripted {
  url: URL;
  connections: number;
  requests: string[];
  server: Server;
}

const servers: Server[] = [];
const clients: Http1Client[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

/** A server that hands each complete request (head and Content-Length body) to `script`. */
async function scripted(script: Script): Promise<Scripted> {
  const state: Scripted = { url: new URL('http://127.0.0.1'), connections: 0, requests: [], server: null as unknown as Server };
  const server = createServer((socket) => {
    state.connections++;
    let buf = '';
    socket.on('error', () => undefined);
    socket.on('data', (c) => {
      buf += c.toString('latin1');
      for (;;) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const length = Number(/\r\ncontent-length: (\d+)/i.exec(buf.slice(0, end))?.[1] ?? 0);
        if (buf.length < end + 4 + length) return;
        const request = buf.slice(0, end + 4 + length);
        buf = buf.slice(end + 4 + length);
        state.requests.push(request);
        void script(socket, request, state.requests.length - 1);
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push(server);
  state.server = server;
  state.url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/x?q=1`);
  return state;
}

function client(overrides: Partial<{ firstByteMs: number; idleMs: number; keepAliveMs: number; maxConnections: number; maxResponseBytes: number }> = {}): Http1Client {
  const c = new Http1Client({
    timeouts: { connectMs: 2_000, firstByteMs: overrides.firstByteMs ?? 2_000, idleMs: overrides.idleMs ?? 2_000, keepAliveMs: overrides.keepAliveMs ?? 30_000 },
    maxConnections: overrides.maxConnections ?? 8,
    maxResponseBytes: overrides.maxResponseBytes ?? 1024 * 1024,
    check: null,
  });
  clients.push(c);
  return c;
}

interface Answer {
  status: number;
  headers: Record<string, string | string[]>;
  body: string;
}

function send(c: Http1Client, url: URL, body = '{"a":1}', headers: Record<string, string> = { 'content-type': 'application/json' }): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let status = 0;
    let head: Record<string, string | string[]> = {};
    const handler: ResponseHandler = {
      onHeaders: (s, h) => {
        status = s;
        head = h;
      },
      onData: (c) => chunks.push(c),
      onComplete: () => resolve({ status, headers: head, body: Buffer.concat(chunks).toString('utf8') }),
      onError: reject,
    };
    c.request(url, { method: 'POST', headers, body }, handler);
  });
}

const ok = (body: string, extra = '') => `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`;

/** Writes `text` a few bytes at a time, each piece its own write. */
async function dribble(socket: Socket, text: string, step = 1): Promise<void> {
  for (let i = 0; i < text.length; i += step) {
    socket.write(text.slice(i, i + step), 'latin1');
    await sleep(0);
  }
}

describe('the vendor HTTP/1.1 client', () => {
  it('sends one well-formed request and reads a Content-Length answer, reusing the connection', async () => {
    const s = await scripted((sock) => void sock.write(ok('{"ok":"é"}')));
    const c = client();
    for (let i = 0; i < 3; i++) expect(await send(c, s.url)).toEqual({ status: 200, headers: expect.objectContaining({ 'content-type': 'application/json' }), body: '{"ok":"é"}' });
    expect(s.connections).toBe(1);
    expect(s.requests[0]).toBe(`POST /v1/x?q=1 HTTP/1.1\r\nhost: ${s.url.host}\r\nconnection: keep-alive\r\ncontent-type: application/json\r\ncontent-length: 7\r\n\r\n{"a":1}`);
  });

  it('decodes a chunked answer split at every byte, with extensions and trailers, and keeps the connection', async () => {
    const wire = 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-Repeated: a\r\nX-Repeated: b\r\n\r\n5\r\nhello\r\n6;name=v\r\n world\r\n0\r\nx-trailer: 1\r\n\r\n';
    const s = await scripted((sock) => dribble(sock, wire));
    const c = client();
    const a = await send(c, s.url);
    expect(a.body).toBe('hello world');
    expect(a.headers['x-repeated']).toEqual(['a', 'b']);
    expect((await send(c, s.url)).body).toBe('hello world');
    expect(s.connections).toBe(1);
  });

  it('skips interim answers and reads an answer that ends with the connection', async () => {
    const s = await scripted((sock) => {
      sock.write('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n\r\nuntil ');
      setTimeout(() => sock.end('close'), 10);
    });
    const c = client();
    expect((await send(c, s.url)).body).toBe('until close');
    expect((await send(c, s.url)).body).toBe('until close');
    expect(s.connections).toBe(2);
  });

  it('reads no body for 204, and opens a new connection after Connection: close', async () => {
    const s = await scripted((sock, _r, i) => {
      if (i === 0) sock.write('HTTP/1.1 204 No Content\r\n\r\n');
      else sock.write(ok('{}', 'connection: close\r\n'));
    });
    const c = client();
    expect(await send(c, s.url)).toMatchObject({ status: 204, body: '' });
    expect((await send(c, s.url)).body).toBe('{}');
    expect((await send(c, s.url)).body).toBe('{}');
    expect(s.connections).toBe(2);
  });

  it('never reuses a connection that sent bytes after a bodiless answer', async () => {
    const s = await scripted((sock, _r, i) => {
      if (i === 0) sock.write('HTTP/1.1 204 No Content\r\n\r\nstray');
      else sock.write(ok('{}'));
    });
    const c = client();
    expect(await send(c, s.url)).toMatchObject({ status: 204, body: '' });
    expect((await send(c, s.url)).body).toBe('{}');
    expect(s.connections).toBe(2);
  });

  it('fails an answer cut short, and one that is not HTTP', async () => {
    const s = await scripted((sock, _r, i) => {
      if (i === 0) sock.end('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\nshort');
      else sock.end('SMTP ready\r\n\r\n');
    });
    const c = client();
    await expect(send(c, s.url)).rejects.toMatchObject({ code: 'UND_ERR_SOCKET', message: 'other side closed' });
    await expect(send(c, s.url)).rejects.toMatchObject({ code: 'UND_ERR_SOCKET', message: 'invalid response status line' });
  });

  it('times out a missing first byte and a stalled body with their own codes', async () => {
    const s = await scripted((sock, _r, i) => {
      if (i === 1) sock.write('HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nabc');
    });
    const c = client({ firstByteMs: 150, idleMs: 150 });
    await expect(send(c, s.url)).rejects.toMatchObject({ code: 'UND_ERR_HEADERS_TIMEOUT' });
    await expect(send(c, s.url)).rejects.toMatchObject({ code: 'UND_ERR_BODY_TIMEOUT' });
  });

  it('notices a vendor closing an idle connection and opens a new one', async () => {
    const s = await scripted((sock) => {
      sock.write(ok('{}'));
      setTimeout(() => sock.destroy(), 20);
    });
    const c = client();
    expect((await send(c, s.url)).body).toBe('{}');
    await sleep(80);
    expect((await send(c, s.url)).body).toBe('{}');
    expect(s.connections).toBe(2);
  });

  it('closes connections idle past the keep-alive time', async () => {
    let closed = 0;
    const s = await scripted((sock) => {
      sock.once('close', () => closed++);
      sock.write(ok('{}'));
    });
    const c = client({ keepAliveMs: 100 });
    await send(c, s.url);
    await expect.poll(() => closed, { timeout: 2_000 }).toBe(1);
  });

  it("keeps an idle connection no longer than the server's Keep-Alive timeout (less a margin)", async () => {
    let closedAt = 0;
    const s = await scripted((sock) => {
      sock.once('close', () => (closedAt = performance.now()));
      sock.write(ok('{}', 'keep-alive: timeout=2, max=100\r\n'));
    });
    const c = client({ keepAliveMs: 30_000 });
    await send(c, s.url);
    const answeredAt = performance.now();
    await expect.poll(() => closedAt, { timeout: 3_000, interval: 50 }).toBeGreaterThan(0);
    // the client closed it about a second after the answer: well before its own 30 s, and before the server's 2 s
    expect(closedAt - answeredAt).toBeGreaterThan(700);
    expect(closedAt - answeredAt).toBeLessThan(1_900);
  });

  it('does not reuse a connection whose Keep-Alive timeout leaves no time for another request', async () => {
    const s = await scripted((sock) => void sock.write(ok('{}', 'keep-alive: timeout=1\r\n')));
    const c = client();
    expect((await send(c, s.url)).body).toBe('{}');
    expect((await send(c, s.url)).body).toBe('{}');
    expect(s.connections).toBe(2);
  });

  it('refuses a body over the maximum: by its Content-Length before reading it, and chunked or until close as it arrives', async () => {
    const big = 'x'.repeat(1500);
    const s = await scripted((sock, _r, i) => {
      if (i === 0) sock.write('HTTP/1.1 200 OK\r\ncontent-length: 5000\r\n\r\n');
      else if (i === 1) {
        sock.write(`HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3e8\r\n${'y'.repeat(1000)}\r\n`);
        setTimeout(() => sock.write(`5dc\r\n${big}\r\n0\r\n\r\n`), 20);
      }
      else if (i === 2) sock.end(`HTTP/1.1 200 OK\r\n\r\n${big}${big}`);
      else sock.write(ok('z'.repeat(2048)));
    });
    const c = client({ maxResponseBytes: 2048 });
    await expect(send(c, s.url)).rejects.toMatchObject({ code: 'UND_ERR_RES_EXCEEDED_MAX_SIZE' });
    await expect(send(c, s.url)).rejects.toMatchObject({ code: 'UND_ERR_RES_EXCEEDED_MAX_SIZE' });
    await expect(send(c, s.url)).rejects.toMatchObject({ code: 'UND_ERR_RES_EXCEEDED_MAX_SIZE' });
    expect((await send(c, s.url)).body).toBe('z'.repeat(2048)); // exactly the maximum is fine
  });

  it('tells a reset connection by its error code', async () => {
    const s = await scripted((sock) => {
      sock.write('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\npartial');
      setTimeout(() => sock.resetAndDestroy(), 20);
    });
    await expect(send(client(), s.url)).rejects.toMatchObject({ code: 'UND_ERR_SOCKET', message: 'other side reset the connection' });
  });

  it('queues requests beyond the connection limit and serves them all', async () => {
    let open = 0;
    let most = 0;
    const s = await scripted(async (sock) => {
      open++;
      most = Math.max(most, open);
      await sleep(20);
      open--;
      sock.write(ok('{}'));
    });
    const c = client({ maxConnections: 2 });
    const answers = await Promise.all(Array.from({ length: 6 }, () => send(c, s.url)));
    expect(answers.map((a) => a.body)).toEqual(Array(6).fill('{}'));
    expect(most).toBe(2);
    expect(s.connections).toBe(2);
  });

  it('cancels a queued request before it is sent, and an exchange in flight', async () => {
    const s = await scripted(() => undefined); // never answers
    const c = client({ maxConnections: 1 });
    const errors: string[] = [];
    const handler = (tag: string): ResponseHandler => ({ onHeaders: () => undefined, onData: () => undefined, onComplete: () => errors.push(`${tag} completed`), onError: (e) => errors.push(`${tag}: ${e.message}`) });
    const first = c.request(new URL('/a', s.url), { method: 'POST', headers: {}, body: '1' }, handler('first'));
    const second = c.request(new URL('/b', s.url), { method: 'POST', headers: {}, body: '2' }, handler('second'));
    await expect.poll(() => s.requests.length).toBe(1);
    c.cancel(second, new Error('not needed'));
    c.cancel(first, new Error('client went away'));
    expect(errors).toEqual(['second: not needed', 'first: client went away']);
    await sleep(50);
    expect(s.requests).toHaveLength(1);
    expect(s.requests[0]).toContain('POST /a ');
  });

  it('refuses a header that would split the request, sending nothing', async () => {
    const s = await scripted((sock) => void sock.write(ok('{}')));
    const c = client();
    await expect(send(c, s.url, '{}', { 'x-provider-key': 'sk-1\r\nx-evil: 1' })).rejects.toMatchObject({ code: 'UND_ERR_INVALID_ARG' });
    await sleep(30);
    expect(s.requests).toHaveLength(0);
  });
});
