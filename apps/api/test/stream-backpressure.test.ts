// A stream relayed to a client that stops reading stops reading the vendor too: the
// gateway waits for the client's socket to drain instead of buffering the vendor's
// whole answer in memory. When the client reads again, every byte arrives.
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signup, startGateway, type TestGateway } from './support/gateway.ts';
import { startLoopback, type Loopback } from './support/loopback.ts';

const KEY = 'sk-platform-backpressure-0123456789';
/** One SSE event of about 4 KiB. */
const EVENT = `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4.1-mini', choices: [{ index: 0, delta: { content: 'word '.repeat(800) }, finish_reason: null }] })}\n\n`;
// ~50 MB: more than the kernel can hold between vendor and client. A connection the gateway
// read fast at first may autotune its receive buffer up to tcp_rmem's maximum (32 MiB here) on
// top of the vendor's 4 MiB send buffer, and a loaded machine lets it: 12.6 of 25 MB once got
// through. It stays under the 64 MiB the gateway reads of a vendor answer by default.
const EVENTS = 12_000;
let sent = 0;
let vendor: Loopback;
let gw: TestGateway;
let tenant: { api_key: string };

beforeAll(async () => {
  vendor = await startLoopback(async (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (let i = 0; i < EVENTS; i++) {
      sent += EVENT.length;
      if (!res.write(EVENT)) await new Promise((r) => res.once('drain', r));
      if (res.destroyed) return;
    }
    const stop = { id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4.1-mini', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] };
    const usage = { id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4.1-mini', choices: [], usage: { prompt_tokens: 1, completion_tokens: EVENTS * 800, total_tokens: 1 + EVENTS * 800 } };
    res.end(`data: ${JSON.stringify(stop)}\n\ndata: ${JSON.stringify(usage)}\n\ndata: [DONE]\n\n`);
  });
  gw = await startGateway({ env: { OPENAI_BASE_URL: `${vendor.url}/v1`, OPENAI_API_KEY: KEY, UPSTREAM_IDLE_TIMEOUT_MS: '1000' } });
  tenant = await signup(gw);
});
afterAll(async () => {
  await gw.close();
  await vendor.close();
});

describe('stream backpressure', () => {
  // keep-alive takes the socket path, close is handed to node:http: both relay the same way
  it.each(['keep-alive', 'close'])('stops reading the vendor while the client does not read, and delivers everything once it does (connection: %s)', async (connection) => {
    sent = 0;
    const { port } = new URL(gw.url);
    const body = JSON.stringify({ model: 'gpt-4.1-mini', stream: true, messages: [{ role: 'user', content: 'hi' }] });
    const socket: Socket = connect(Number(port), '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    socket.pause(); // a client that does not read
    socket.write(`POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${tenant.api_key}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: ${connection}\r\n\r\n${body}`);
    // let the vendor write as much as the path will take
    let last = -1;
    for (let i = 0; i < 40 && sent !== last; i++) {
      last = sent;
      await sleep(250);
    }
    const total = EVENT.length * EVENTS;
    expect(sent).toBeLessThan(total * 0.8); // held back by the client, not buffered in the gateway
    // stalled for longer than the vendor idle timeout (1 s): a paused read is not idle
    await sleep(1_500);
    let received = 0;
    let tail = '';
    const ended = new Promise<void>((resolve) =>
      socket.on('data', (c: Buffer) => {
        received += c.length;
        tail = (tail + c.toString('latin1')).slice(-4096);
        if (tail.endsWith('\r\n0\r\n\r\n')) resolve(); // the chunked answer's last chunk
      }).once('close', () => resolve()), // an answer cut short fails on what arrived, not on the timeout
    );
    socket.resume();
    await ended;
    socket.destroy();
    expect(sent).toBe(total);
    expect(received).toBeGreaterThan(total);
    expect(tail).toContain('data: [DONE]');
  }, 60_000);
});
