// The outbound module on a real loopback server: bodies read whole or as they arrive,
// aborts at every point of an exchange, and the address check on the connected socket.
import { getEventListeners } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BlockedAddressError, Outbound, type BodySink } from './outbound.ts';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

let server: Server;
let base: string;
let handler: Handler = (_req, res) => res.end();
/** Requests whose connection closed before the server ended its answer. */
let cutOff = 0;
const outbound = new Outbound({ firstByteMs: 2_000, idleMs: 2_000 });

beforeAll(async () => {
  server = createServer((req, res) => {
    res.on('close', () => {
      if (!res.writableFinished) cutOff++;
    });
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await outbound.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

afterEach(() => {
  cutOff = 0;
});

const post = (signal?: AbortSignal, path = '/v1/x') => outbound.request({ url: new URL(`${base}${path}`), method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}', signal });

/** A sink that records what it was given. */
function recorder(): BodySink & { chunks: string[]; ended: Promise<void>; failed: Promise<Error> } {
  let end!: () => void;
  let fail!: (e: Error) => void;
  const ended = new Promise<void>((r) => (end = r));
  const failed = new Promise<Error>((r) => (fail = r));
  const chunks: string[] = [];
  return { chunks, ended, failed, data: (c) => chunks.push(c.toString('utf8')), end: () => end(), error: (e) => fail(e) };
}

describe('outbound exchanges', () => {
  it('reads a whole body, with headers as the request API gives them', async () => {
    let got = '';
    handler = (req, res) => {
      req.setEncoding('utf8');
      req.on('data', (c: string) => (got += c));
      req.on('end', () => {
        res.setHeader('Set-Cookie', ['a=1', 'b=2']);
        res.setHeader('Retry-After', '3');
        res.writeHead(201, { 'content-type': 'application/json' });
        res.end('{"ok":"é"}');
      });
    };
    const r = await post();
    expect(r.statusCode).toBe(201);
    expect(r.headers['retry-after']).toBe('3');
    expect(r.headers['set-cookie']).toEqual(['a=1', 'b=2']);
    expect(await r.body.text()).toBe('{"ok":"é"}');
    expect(got).toBe('{"a":1}');
  });

  it('keeps chunks that arrive before the reader attaches, in order', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('one ');
      setTimeout(() => res.write('two '), 5);
      setTimeout(() => res.end('three'), 10);
    };
    const r = await post();
    await sleep(50); // everything has arrived before anyone reads
    expect(r.body.buffered).toBeGreaterThan(0);
    const sink = recorder();
    r.body.consume(sink);
    await sink.ended;
    expect(sink.chunks.join('')).toBe('one two three');
    expect(r.body.buffered).toBe(0);
  });

  it('refuses a second reader', async () => {
    handler = (_req, res) => res.end('x');
    const r = await post();
    await r.body.text();
    expect(() => r.body.consume(recorder())).toThrow(/one reader/);
  });

  it('rejects with the signal’s reason when aborted before the answer, and closes the upstream request', async () => {
    handler = () => undefined; // never answers
    const c = new AbortController();
    const pending = post(c.signal);
    await sleep(50);
    c.abort(new DOMException('total upstream timeout', 'TimeoutError'));
    await expect(pending).rejects.toMatchObject({ name: 'TimeoutError' });
    await expect.poll(() => cutOff).toBe(1);
    expect(getEventListeners(c.signal, 'abort')).toHaveLength(0);
  });

  it('never sends a request whose signal is already aborted', async () => {
    let seen = 0;
    handler = (_req, res) => {
      seen++;
      res.end();
    };
    const c = new AbortController();
    c.abort(new Error('gone'));
    await expect(post(c.signal)).rejects.toThrow('gone');
    await sleep(30);
    expect(seen).toBe(0);
  });

  it('fails the reader with the signal’s reason when aborted mid-body, and stops the transfer', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('first ');
    };
    const c = new AbortController();
    const r = await post(c.signal);
    const sink = recorder();
    r.body.consume(sink);
    await expect.poll(() => sink.chunks.length).toBe(1);
    c.abort(new Error('client went away'));
    expect((await sink.failed).message).toBe('client went away');
    await expect.poll(() => cutOff).toBe(1);
  });

  it('stops the transfer when the reader destroys the body', async () => {
    handler = (_req, res) => {
      res.writeHead(200);
      res.write('partial');
    };
    const r = await post();
    const text = r.body.text();
    await sleep(20);
    r.body.destroy(new Error('unreadable'));
    await expect(text).rejects.toThrow('unreadable');
    await expect.poll(() => cutOff).toBe(1);
  });

  it('fails the reader when the vendor cuts the connection mid-body', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('short');
      setTimeout(() => res.socket?.destroy(), 10);
    };
    const r = await post();
    await expect(r.body.text()).rejects.toBeInstanceOf(Error);
  });

  it('leaves no abort listener behind on a signal shared by finished calls', async () => {
    handler = (_req, res) => res.end('ok');
    const c = new AbortController();
    for (let i = 0; i < 5; i++) await (await post(c.signal)).body.text();
    expect(getEventListeners(c.signal, 'abort')).toHaveLength(0);
  });

  it('refuses to talk to a private address under the public-only policy, checked on the connected socket', async () => {
    handler = (_req, res) => res.end('should not be reached');
    const pending = outbound.request({ url: new URL(`${base}/v1/x`), method: 'GET', headers: {}, policy: 'public-only' });
    await expect(pending).rejects.toBeInstanceOf(BlockedAddressError);
  });
});
