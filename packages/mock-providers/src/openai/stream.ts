// Server-sent events: the chunk sequence of a streamed reply and writing it chunk by chunk.
import type { ServerResponse } from 'node:http';
import { delay, endCut, type StreamCut } from '../http.ts';

export type { StreamCut } from '../http.ts';
import type { Reply } from './reply.ts';
import { chunkBody, deltaChoice, type ReplyMeta } from './wire.ts';


export interface StreamOptions {
  chunkDelayMs: number;
  signal: AbortSignal;
  headers: Record<string, string>;
  cut?: StreamCut;
  /** Drops the connection (used for the `reset` cut). */
  destroy: () => void;
}

const ARGUMENT_FRAGMENT = 8;

export function chunkSequence(reply: Reply, meta: ReplyMeta, includeUsage: boolean): Record<string, unknown>[] {
  const chunk = (choices: unknown[], usage: Reply['usage'] | null = null) => chunkBody(meta, choices, includeUsage, usage);
  const chunks = [chunk([deltaChoice({ role: 'assistant', content: '', refusal: null })])];
  for (const piece of splitWords(reply.content ?? '')) chunks.push(chunk([deltaChoice({ content: piece })]));
  reply.toolCalls.forEach((call, index) => {
    const head = { index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } };
    chunks.push(chunk([deltaChoice({ tool_calls: [head] })]));
    for (let at = 0; at < call.arguments.length; at += ARGUMENT_FRAGMENT) {
      const fragment = call.arguments.slice(at, at + ARGUMENT_FRAGMENT);
      chunks.push(chunk([deltaChoice({ tool_calls: [{ index, function: { arguments: fragment } }] })]));
    }
  });
  chunks.push(chunk([deltaChoice({}, reply.finishReason)]));
  if (includeUsage) chunks.push(chunk([], reply.usage));
  return chunks;
}

/** Word-sized pieces (" answer", " to:") whose concatenation is exactly `text`. */
function splitWords(text: string): string[] {
  return text.split(/(?=\s+\S)/).filter((piece) => piece !== '');
}

/** Writes each chunk as its own `data:` event, flushed at once, then `data: [DONE]`. */
export async function writeSse(res: ServerResponse, chunks: Record<string, unknown>[], opts: StreamOptions): Promise<void> {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    ...opts.headers,
  });
  res.flushHeaders();
  let flushed: Promise<void> = Promise.resolve();
  for (let i = 0; i < chunks.length; i++) {
    if (opts.cut && i === opts.cut.afterChunks) return endCut(res, opts.cut, opts, flushed, serverError);
    if (i > 0 && !(await delay(opts.chunkDelayMs, opts.signal))) return;
    if (opts.signal.aborted) return;
    const event = `data: ${JSON.stringify(chunks[i])}\n\n`;
    flushed = new Promise((resolve) => res.write(event, () => resolve()));
  }
  if (opts.cut) return endCut(res, opts.cut, opts, flushed, serverError);
  res.end('data: [DONE]\n\n');
}

const serverError = () => `data: ${JSON.stringify({ error: { message: 'The server had an error while processing your request. Sorry about that!', type: 'server_error', param: null, code: null } })}\n\n`;
