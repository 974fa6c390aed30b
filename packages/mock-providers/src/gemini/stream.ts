// streamGenerateContent: the reply as a sequence of GenerateContentResponse events, and
// writing them as SSE (`?alt=sse`: `data: {...}` + CRLF CRLF, no terminator) or, without
// alt=sse, as one JSON array written piece by piece, as Gemini does.
import type { ServerResponse } from 'node:http';
import { delay, endCut } from '../http.ts';
import type { StreamCut } from '../openai/stream.ts';
import { internalError } from './errors.ts';
import type { Part } from './request.ts';
import type { GeminiReply } from './reply.ts';
import { responseBody, type ResponseMeta } from './wire.ts';

export type Framing = 'sse' | 'array';

export interface WriteOptions {
  framing: Framing;
  chunkDelayMs: number;
  signal: AbortSignal;
  headers: Record<string, string>;
  cut?: StreamCut;
  destroy: () => void;
}

/** Pieces of one candidate: each thought whole, the answer word by word, all function calls in one piece. */
function pieces(parts: Part[]): Part[][] {
  const out: Part[][] = [];
  for (const p of parts) if (p.thought) out.push([p]);
  for (const p of parts) {
    if (p.thought || typeof p.text !== 'string') continue;
    for (const word of p.text.split(/(?=\s+\S)/).filter((w) => w !== '')) out.push([{ text: word }]);
  }
  const calls = parts.filter((p) => p.functionCall);
  if (calls.length > 0) out.push(calls);
  return out;
}

export function eventSequence(reply: GeminiReply, meta: ResponseMeta): Record<string, unknown>[] {
  const perCandidate = reply.candidates.map((c) => pieces(c.parts));
  const count = Math.max(1, ...perCandidate.map((p) => p.length));
  const u = reply.usage;
  const events: Record<string, unknown>[] = [];
  for (let k = 0; k < count; k++) {
    const last = k === count - 1;
    const candidates = reply.candidates.map((c, i) => {
      const piece = perCandidate[i]?.[k];
      return { ...(piece ? { content: { parts: piece, role: 'model' } } : {}), ...(last ? { finishReason: c.finishReason } : {}), index: c.index };
    });
    // Running totals until the last event, which carries the call's usage.
    const share = Math.round((u.candidatesTokenCount * (k + 1)) / count);
    const usage = last
      ? u
      : { promptTokenCount: u.promptTokenCount, candidatesTokenCount: share, totalTokenCount: u.promptTokenCount + share + (u.thoughtsTokenCount ?? 0), promptTokensDetails: u.promptTokensDetails, ...(u.thoughtsTokenCount ? { thoughtsTokenCount: u.thoughtsTokenCount } : {}) };
    events.push(responseBody(candidates, usage, meta));
  }
  return events;
}

const FRAMES: Readonly<Record<Framing, { contentType: string; first: (json: string) => string; next: (json: string) => string; end: string }>> = {
  sse: { contentType: 'text/event-stream', first: (j) => `data: ${j}\r\n\r\n`, next: (j) => `data: ${j}\r\n\r\n`, end: '' },
  array: { contentType: 'application/json; charset=UTF-8', first: (j) => `[${j}`, next: (j) => `\n,\r\n${j}`, end: ']' },
};

export async function writeStream(res: ServerResponse, events: Record<string, unknown>[], opts: WriteOptions): Promise<void> {
  const frame = FRAMES[opts.framing];
  res.writeHead(200, { 'cache-control': 'no-cache', ...opts.headers, 'content-type': frame.contentType });
  res.flushHeaders();
  let flushed: Promise<void> = Promise.resolve();
  for (let i = 0; i < events.length; i++) {
    if (opts.cut && i === opts.cut.afterChunks) return endCut(res, opts.cut, opts, flushed, () => internalErrorFrame(frame, i));
    if (i > 0 && !(await delay(opts.chunkDelayMs, opts.signal))) return;
    if (opts.signal.aborted) return;
    const text = (i === 0 ? frame.first : frame.next)(JSON.stringify(events[i]));
    flushed = new Promise((resolve) => res.write(text, () => resolve()));
  }
  if (opts.cut) return endCut(res, opts.cut, opts, flushed, () => internalErrorFrame(frame, events.length));
  res.end(frame.end);
}

/** The vendor's 500 as the stream's next frame (the first when nothing was written), then the stream's end. */
const internalErrorFrame = (frame: (typeof FRAMES)[Framing], written: number) => `${(written === 0 ? frame.first : frame.next)(JSON.stringify(internalError().body))}${frame.end}`;
