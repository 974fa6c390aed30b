// Anthropic's server-sent events: `event: <type>` and `data: <json>` per event.
//   message_start → per block: content_block_start, deltas (text_delta, input_json_delta,
//   thinking_delta + signature_delta), content_block_stop → message_delta (stop_reason,
//   output usage) → message_stop; a `ping` after the first block starts.
// A faulty stream stops after `afterChunks` events: the connection drops, stalls, or
// ends with an `event: error` carrying overloaded_error.
import type { ServerResponse } from 'node:http';
import { delay, endCut } from '../http.ts';
import type { StreamCut } from '../openai/stream.ts';
import type { Reply, ReplyBlock } from './reply.ts';
import type { ReplyMeta } from './wire.ts';

type Event = Record<string, unknown> & { type: string };

export interface StreamOptions {
  chunkDelayMs: number;
  signal: AbortSignal;
  headers: Record<string, string>;
  cut?: StreamCut;
  destroy: () => void;
}

const JSON_FRAGMENT = 8;

/** Word-sized pieces whose concatenation is exactly `text`. */
function words(text: string): string[] {
  return text.split(/(?=\s+\S)/).filter((piece) => piece !== '');
}

function fragments(text: string): string[] {
  const out: string[] = [];
  for (let at = 0; at < text.length; at += JSON_FRAGMENT) out.push(text.slice(at, at + JSON_FRAGMENT));
  return out;
}

function blockEvents(block: ReplyBlock, index: number): Event[] {
  const delta = (d: Record<string, unknown>): Event => ({ type: 'content_block_delta', index, delta: d });
  switch (block.type) {
    case 'thinking':
      return [
        { type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } },
        ...words(block.thinking).map((t) => delta({ type: 'thinking_delta', thinking: t })),
        delta({ type: 'signature_delta', signature: block.signature }),
      ];
    case 'text':
      return [{ type: 'content_block_start', index, content_block: { type: 'text', text: '' } }, ...words(block.text).map((t) => delta({ type: 'text_delta', text: t }))];
    case 'tool_use':
      return [
        { type: 'content_block_start', index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } },
        delta({ type: 'input_json_delta', partial_json: '' }),
        ...fragments(JSON.stringify(block.input)).map((j) => delta({ type: 'input_json_delta', partial_json: j })),
      ];
  }
}

export function eventSequence(reply: Reply, meta: ReplyMeta): Event[] {
  const { output_tokens_details, ...start } = reply.usage;
  const events: Event[] = [
    {
      type: 'message_start',
      message: { id: meta.id, type: 'message', role: 'assistant', model: meta.model, content: [], stop_reason: null, stop_sequence: null, usage: { ...start, output_tokens: 1, service_tier: 'standard' } },
    },
  ];
  reply.content.forEach((block, index) => {
    events.push(...blockEvents(block, index), { type: 'content_block_stop', index });
    if (index === 0) events.splice(2, 0, { type: 'ping' });
  });
  events.push(
    {
      type: 'message_delta',
      delta: { stop_reason: reply.stopReason, stop_sequence: reply.stopSequence },
      usage: { output_tokens: reply.usage.output_tokens, ...(output_tokens_details ? { output_tokens_details } : {}) },
    },
    { type: 'message_stop' },
  );
  return events;
}

function frame(event: Event): string {
  return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

export async function writeSse(res: ServerResponse, events: Event[], opts: StreamOptions): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive', ...opts.headers });
  res.flushHeaders();
  let flushed: Promise<void> = Promise.resolve();
  for (let i = 0; i < events.length; i++) {
    if (opts.cut && i === opts.cut.afterChunks) return endCut(res, opts.cut, opts, flushed, overloaded);
    if (i > 0 && !(await delay(opts.chunkDelayMs, opts.signal))) return;
    if (opts.signal.aborted) return;
    const text = frame(events[i]!);
    flushed = new Promise((resolve) => res.write(text, () => resolve()));
  }
  if (opts.cut) return endCut(res, opts.cut, opts, flushed, overloaded);
  res.end();
}

const overloaded = () => frame({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
