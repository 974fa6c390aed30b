// Rendering a Reply on a server's response: a whole body through the server's send; a stream
// piece by piece, one write each, waiting for the client to drain, the last piece with the end,
// and read to its end even once the client has gone (its call is metered there).
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';

import { clientOf, renderReply, type RawStream, type ReplySink } from './render-reply.ts';

class FakeRaw extends EventEmitter implements RawStream {
  writes: string[] = [];
  ended: string | undefined | null = null;
  head: [number, Record<string, string>] | null = null;
  full = false;
  writableEnded = false;
  writableFinished = false;
  destroyed = false;
  socket = null;
  writeHead(status: number, headers: Record<string, string>) {
    this.head = [status, headers];
  }
  flushHeaders() {}
  write(chunk: string) {
    this.writes.push(chunk);
    return !this.full;
  }
  end(chunk?: string) {
    this.ended = chunk;
    this.writableEnded = this.writableFinished = true;
  }
}

function sinkOf(raw: FakeRaw) {
  const sent: { status?: number; headers?: Record<string, string>; body?: string; hijacked: boolean } = { hijacked: false };
  const sink: ReplySink = {
    elapsedTime: 3,
    raw,
    code: (status) => (sent.status = status),
    headers: (values) => (sent.headers = values),
    send: (payload) => (sent.body = payload),
    hijack: () => (sent.hijacked = true),
  };
  return { sink, sent };
}

async function* pieces(log: string[], ...texts: string[]): AsyncGenerator<string, string, undefined> {
  for (const t of texts) {
    log.push(`pulled ${t}`);
    yield t;
  }
  log.push('ended');
  return 'tail';
}

describe('renderReply', () => {
  it("sends a whole body through the server's send, then runs the Reply's after", () => {
    const raw = new FakeRaw();
    const { sink, sent } = sinkOf(raw);
    let after = 0;
    void renderReply({ status: 201, headers: { a: 'b' }, body: 'whole', after: () => void after++ }, sink);
    expect(sent).toEqual({ status: 201, headers: { a: 'b' }, body: 'whole', hijacked: false });
    expect(after).toBe(1);
  });

  it('writes a stream piece by piece, pulls the next only once the client drained, and ends with the last piece', async () => {
    const raw = new FakeRaw();
    const { sink, sent } = sinkOf(raw);
    const log: string[] = [];
    let after = 0;
    raw.full = true; // the client is not reading
    const done = renderReply({ status: 200, headers: { 'content-type': 'text/event-stream' }, body: pieces(log, 'a', 'b'), after: () => void after++ }, sink)!;
    await new Promise((r) => setTimeout(r, 10));
    expect(sent.hijacked).toBe(true);
    expect(raw.head).toEqual([200, { 'content-type': 'text/event-stream' }]);
    expect(log).toEqual(['pulled a']); // held at the first piece until the client drains
    raw.full = false;
    raw.emit('drain');
    await done;
    expect(raw.writes).toEqual(['a', 'b']);
    expect(raw.ended).toBe('tail');
    expect(after).toBe(1);
  });

  it('reads a stream to its end after the client has gone, writing nothing more', async () => {
    const raw = new FakeRaw();
    const { sink } = sinkOf(raw);
    const client = clientOf(sink);
    const log: string[] = [];
    raw.full = true;
    const done = renderReply({ status: 200, headers: {}, body: pieces(log, 'a', 'b', 'c') }, sink)!;
    await new Promise((r) => setTimeout(r, 5));
    raw.destroyed = true;
    raw.emit('close');
    await done;
    expect(client.gone.aborted).toBe(true);
    expect(log).toEqual(['pulled a', 'pulled b', 'pulled c', 'ended']);
    expect(raw.writes).toEqual(['a']);
    expect(raw.ended).toBeNull();
  });

  it("gives the pipeline the call's clock, and a signal only for a client that left before its answer went whole", () => {
    const raw = new FakeRaw();
    const { sink } = sinkOf(raw);
    const client = clientOf(sink);
    expect(client.elapsed()).toBe(3);
    raw.writableFinished = true;
    raw.emit('close');
    expect(client.gone.aborted).toBe(false);
  });
});

