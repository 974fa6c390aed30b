// The hot route read off the socket, on raw connections: requests split anywhere,
// pipelined, mixed with other routes on one keep-alive connection (handed to node:http
// from the right byte), malformed heads left to node:http, and closing the server.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRig, type Rig } from './support/vendor.ts';

let rig: Rig;
let port: number;

beforeAll(async () => {
  rig = await startRig();
  port = Number(new URL(rig.gw.url).port);
});
afterAll(async () => {
  await rig.close();
});

const chat = (content: string, extra = '') => {
  const body = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }] });
  return `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAuthorization: Bearer ${rig.tenant.api_key}\r\n${extra}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
};
const health = 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n';

interface Parsed {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A raw connection that collects complete HTTP/1.1 answers (Content-Length or chunked). */
function open(): Promise<{ socket: Socket; answers: Parsed[]; closed: () => boolean }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => resolve({ socket, answers, closed: () => closed }));
    const answers: Parsed[] = [];
    let closed = false;
    let buf = Buffer.alloc(0);
    socket.on('close', () => (closed = true));
    socket.on('data', (c: Buffer) => {
      buf = Buffer.concat([buf, c]);
      for (;;) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const [line, ...rest] = buf.toString('latin1', 0, end).split('\r\n');
        const headers = Object.fromEntries(rest.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
        let body: string;
        let used: number;
        if (headers['transfer-encoding'] === 'chunked') {
          let i = end + 4;
          const parts: Buffer[] = [];
          for (;;) {
            const nl = buf.indexOf('\r\n', i);
            if (nl < 0) return;
            const size = parseInt(buf.toString('latin1', i, nl), 16);
            if (buf.length < nl + 2 + size + 2) return;
            parts.push(buf.subarray(nl + 2, nl + 2 + size));
            i = nl + 2 + size + 2;
            if (size === 0) break;
          }
          body = Buffer.concat(parts).toString('utf8');
          used = i;
        } else {
          const length = Number(headers['content-length'] ?? 0);
          if (buf.length < end + 4 + length) return;
          body = buf.toString('utf8', end + 4, end + 4 + length);
          used = end + 4 + length;
        }
        answers.push({ status: Number(line!.split(' ')[1]), headers, body });
        buf = buf.subarray(used);
      }
    });
  });
}

describe('the hot route on raw connections', () => {
  it('serves a request that arrives a few bytes at a time', async () => {
    const c = await open();
    const text = chat('dribbled');
    for (let i = 0; i < text.length; i += 7) {
      c.socket.write(text.slice(i, i + 7));
      await new Promise((r) => setImmediate(r));
    }
    await expect.poll(() => c.answers.length).toBe(1);
    expect(c.answers[0]!.status).toBe(200);
    expect(JSON.parse(c.answers[0]!.body).choices[0].message.content).toContain('dribbled');
    expect(c.answers[0]!.headers['keep-alive']).toMatch(/^timeout=\d+$/);
    c.socket.destroy();
  });

  it('serves a large body that arrives in many pieces', async () => {
    const c = await open();
    const text = chat(`big ${'x'.repeat(300_000)}`);
    for (let i = 0; i < text.length; i += 16_384) {
      c.socket.write(text.slice(i, i + 16_384));
      await new Promise((r) => setImmediate(r));
    }
    await expect.poll(() => c.answers.length).toBe(1);
    expect(c.answers[0]!.status).toBe(200);
    expect(JSON.parse(c.answers[0]!.body).choices[0].message.content).toContain('big xxx');
    c.socket.destroy();
  });

  it('answers pipelined requests in order, handing the connection to node:http at the first other route', async () => {
    const c = await open();
    c.socket.write(chat('first') + chat('second') + health + chat('after hand-off'));
    await expect.poll(() => c.answers.length).toBe(4);
    expect(c.answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    expect(JSON.parse(c.answers[0]!.body).choices[0].message.content).toContain('first');
    expect(JSON.parse(c.answers[1]!.body).choices[0].message.content).toContain('second');
    expect(JSON.parse(c.answers[2]!.body)).toMatchObject({ status: 'ok' });
    expect(JSON.parse(c.answers[3]!.body).choices[0].message.content).toContain('after hand-off');
    c.socket.destroy();
  });

  it('hands a first request on another route to node:http, and keeps serving the hot route there', async () => {
    const c = await open();
    c.socket.write(health);
    await expect.poll(() => c.answers.length).toBe(1);
    c.socket.write(chat('via node'));
    await expect.poll(() => c.answers.length).toBe(2);
    expect(c.answers[1]!.status).toBe(200);
    expect(JSON.parse(c.answers[1]!.body).optimizer).toBeDefined();
    c.socket.destroy();
  });

  it('leaves malformed and unusual heads to node:http, which answers them as it always has', async () => {
    const dup = await open();
    dup.socket.write(chat('twice', 'Content-Length: 5\r\n'));
    await expect.poll(() => dup.closed() || dup.answers.length > 0).toBe(true);
    expect(dup.answers[0]?.status).toBe(400);
    dup.socket.destroy();

    const folded = await open();
    folded.socket.write(chat('folded', 'X-Folded: a\r\n b\r\n'));
    await expect.poll(() => folded.closed() || folded.answers.length > 0).toBe(true);
    expect(folded.answers[0]?.status).toBe(400);
    folded.socket.destroy();

    // a client that says it will close: served by node:http and Fastify, then closed
    const closing = await open();
    closing.socket.write(chat('then close', 'Connection: close\r\n'));
    await expect.poll(() => closing.closed()).toBe(true);
    expect(closing.answers[0]!.status).toBe(200);
  });

  it('answers a stream in chunked framing that ends with [DONE], and keeps the connection for the next call', async () => {
    const c = await open();
    const body = JSON.stringify({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'stream me' }] });
    c.socket.write(`POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAuthorization: Bearer ${rig.tenant.api_key}\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    await expect.poll(() => c.answers.length).toBe(1);
    expect(c.answers[0]!.headers['content-type']).toContain('text/event-stream');
    expect(c.answers[0]!.body.trimEnd().endsWith('data: [DONE]')).toBe(true);
    c.socket.write(chat('next'));
    await expect.poll(() => c.answers.length).toBe(2);
    expect(c.answers[1]!.status).toBe(200);
    c.socket.destroy();
  });

  it('answers an unreadable body with 400 and closes the connection, as Fastify does', async () => {
    const c = await open();
    c.socket.write(`POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAuthorization: Bearer ${rig.tenant.api_key}\r\nContent-Length: 5\r\n\r\n{nope`);
    await expect.poll(() => c.closed()).toBe(true);
    expect(c.answers[0]!.status).toBe(400);
    expect(JSON.parse(c.answers[0]!.body).error.code).toBe('invalid_json');
  });
});

describe('closing the server', () => {
  it('closes idle hot-route connections at once instead of waiting out keep-alive', async () => {
    const r = await startRig();
    const c = await new Promise<Socket>((resolve) => {
      const s = connect(Number(new URL(r.gw.url).port), '127.0.0.1', () => resolve(s));
    });
    let answered = false;
    let closed = false;
    c.on('data', () => (answered = true));
    c.on('close', () => (closed = true));
    const body = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] });
    c.write(`POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAuthorization: Bearer ${r.tenant.api_key}\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    await expect.poll(() => answered).toBe(true);
    await r.close(); // would wait out the 72 s keep-alive (and time the test out) if the connection stayed open
    await expect.poll(() => closed).toBe(true);
  });
});
