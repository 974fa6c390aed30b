// ConverseStream in Bedrock's framing: the event sequence of a reply, and writing it
// message by message (with the fault cuts the other mocks have).
//
//   messageStart {role}
//   per block: [contentBlockStart {start: {toolUse}}] contentBlockDelta… contentBlockStop
//   messageStop {stopReason}
//   metadata {usage, metrics}
//
// Every payload carries `p`, the padding Bedrock adds so event sizes do not reveal
// token lengths; decoders must ignore it.
import type { ServerResponse } from 'node:http';
import { delay, endCut } from '../http.ts';
import type { StreamCut } from '../openai/stream.ts';
import { eventMessage, exceptionMessage } from './eventstream.ts';
import type { ConverseReply } from './reply.ts';

export interface StreamOptions {
  chunkDelayMs: number;
  signal: AbortSignal;
  headers: Record<string, string>;
  cut?: StreamCut;
  destroy: () => void;
}

const ARGUMENT_FRAGMENT = 8;
const PAD = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

function padded(payload: Record<string, unknown>, n: number): Record<string, unknown> {
  return { ...payload, p: PAD.slice(0, 4 + ((n * 7) % (PAD.length - 4))) };
}

function splitWords(text: string): string[] {
  return text.split(/(?=\s+\S)/).filter((piece) => piece !== '');
}

/** The events of a reply, in order, as [event type, payload]. */
export function eventSequence(reply: ConverseReply, latencyMs: number): [string, Record<string, unknown>][] {
  const events: [string, Record<string, unknown>][] = [['messageStart', { role: 'assistant' }]];
  reply.blocks.forEach((block, contentBlockIndex) => {
    if ('text' in block) {
      for (const text of splitWords(block.text)) events.push(['contentBlockDelta', { contentBlockIndex, delta: { text } }]);
    } else if ('toolUse' in block) {
      const { toolUseId, name, input } = block.toolUse;
      events.push(['contentBlockStart', { contentBlockIndex, start: { toolUse: { toolUseId, name } } }]);
      const json = JSON.stringify(input);
      for (let at = 0; at < json.length; at += ARGUMENT_FRAGMENT) {
        events.push(['contentBlockDelta', { contentBlockIndex, delta: { toolUse: { input: json.slice(at, at + ARGUMENT_FRAGMENT) } } }]);
      }
    } else {
      const { text, signature } = block.reasoningContent.reasoningText;
      events.push(['contentBlockDelta', { contentBlockIndex, delta: { reasoningContent: { text } } }]);
      events.push(['contentBlockDelta', { contentBlockIndex, delta: { reasoningContent: { signature } } }]);
    }
    events.push(['contentBlockStop', { contentBlockIndex }]);
  });
  events.push(['messageStop', { stopReason: reply.stopReason }]);
  events.push(['metadata', { usage: reply.usage, metrics: { latencyMs } }]);
  return events;
}

export async function writeEventStream(res: ServerResponse, events: [string, Record<string, unknown>][], opts: StreamOptions): Promise<void> {
  res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream', ...opts.headers });
  res.flushHeaders();
  let flushed: Promise<void> = Promise.resolve();
  for (let i = 0; i < events.length; i++) {
    if (opts.cut && i === opts.cut.afterChunks) return endCut(res, opts.cut, opts, flushed, internalServerError);
    if (i > 0 && !(await delay(opts.chunkDelayMs, opts.signal))) return;
    if (opts.signal.aborted) return;
    const [type, payload] = events[i]!;
    const frame = eventMessage(type, type === 'metadata' ? payload : padded(payload, i));
    flushed = new Promise((resolve) => res.write(frame, () => resolve()));
  }
  if (opts.cut) return endCut(res, opts.cut, opts, flushed, internalServerError);
  res.end();
}

const internalServerError = () => exceptionMessage('internalServerException', { message: 'The system encountered an unexpected error during processing. Try your request again.' });
