// A chat-completions event stream (`data: {chunk}` … `data: [DONE]`) rewritten, as it is
// written, into the Responses API's typed events: response.created and in_progress first,
// then per output item its added / delta / done events (a message's output_text, a
// function call's arguments), and response.completed (with usage and the `optimizer`
// block) where [DONE] was. An error event of the chat stream becomes an `error` event
// and response.failed. The translator holds no I/O: it takes the text the pipeline
// writes and returns the text to write instead.
import { SseSplitter, eventData } from './sse.ts';
import { ResponseIds, ending, functionCallItem, messageItem, outputText, responseObject, responsesUsage } from './responses-answer.ts';
import type { ResponsesEcho } from './responses-request.ts';

type Json = Record<string, unknown>;

interface ChunkChoice {
  index?: number;
  delta?: { content?: string | null; refusal?: string | null; tool_calls?: { index?: number; id?: string; function?: { name?: string; arguments?: string } }[] };
  finish_reason?: string | null;
}

interface Chunk {
  created?: number;
  model?: string;
  choices?: ChunkChoice[];
  usage?: Parameters<typeof responsesUsage>[0] | null;
  optimizer?: unknown;
  error?: { message?: string; type?: string; code?: string | null; param?: string | null };
}

interface OpenCall {
  index: number;
  outputIndex: number;
  id: string;
  call_id: string;
  name: string;
  arguments: string;
}

export class ResponsesStream {
  readonly #ids: ResponseIds;
  readonly #echo: ResponsesEcho;
  readonly #splitter = new SseSplitter();
  #seq = 0;
  #at: { created: number; model: string } | null = null;
  /** Items finished so far, in output order. */
  readonly #output: Json[] = [];
  #message: { outputIndex: number; text: string } | null = null;
  #call: OpenCall | null = null;
  #calls = 0;
  #finish: string | null = null;
  #usage: Chunk['usage'] = null;
  #optimizer: unknown = undefined;
  #ended = false;

  constructor(ids: ResponseIds, echo: ResponsesEcho) {
    this.#ids = ids;
    this.#echo = echo;
  }

  /** The Responses events for what the pipeline wrote (whole events; a split one waits for its end). */
  push(text: string): string {
    let out = '';
    for (const event of this.#splitter.push(text)) {
      const data = eventData(event);
      if (data !== null) out += this.#data(data);
    }
    return out;
  }

  #data(data: string): string {
    if (this.#ended) return '';
    if (data === '[DONE]') return this.#complete();
    let chunk: Chunk;
    try {
      chunk = JSON.parse(data) as Chunk;
    } catch {
      return '';
    }
    if (chunk.error) return this.#fail(chunk.error);
    let out = this.#start(chunk);
    if (chunk.usage) this.#usage = chunk.usage;
    if (chunk.optimizer !== undefined) this.#optimizer = chunk.optimizer;
    for (const choice of chunk.choices ?? []) {
      if ((choice.index ?? 0) !== 0) continue;
      const d = choice.delta ?? {};
      if (typeof d.content === 'string' && d.content !== '') out += this.#text(d.content);
      for (const t of d.tool_calls ?? []) out += this.#toolDelta(t);
      if (choice.finish_reason) this.#finish = choice.finish_reason;
    }
    return out;
  }

  #event(type: string, fields: Json): string {
    return `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: this.#seq++, ...fields })}\n\n`;
  }

  #response(state: Json): Json {
    return responseObject(this.#ids, this.#echo, this.#at ?? { created: Math.floor(Date.now() / 1000), model: '' }, state);
  }

  #start(chunk: Chunk): string {
    if (this.#at !== null) return '';
    this.#at = { created: chunk.created ?? Math.floor(Date.now() / 1000), model: chunk.model ?? '' };
    const response = this.#response({});
    return this.#event('response.created', { response }) + this.#event('response.in_progress', { response });
  }

  #text(delta: string): string {
    let out = this.#closeCall();
    const itemId = this.#ids.message();
    if (this.#message === null) {
      this.#message = { outputIndex: this.#output.length, text: '' };
      out += this.#event('response.output_item.added', { output_index: this.#message.outputIndex, item: messageItem(itemId, '', 'in_progress') });
      out += this.#event('response.content_part.added', { item_id: itemId, output_index: this.#message.outputIndex, content_index: 0, part: outputText('') });
    }
    this.#message.text += delta;
    return out + this.#event('response.output_text.delta', { item_id: itemId, output_index: this.#message.outputIndex, content_index: 0, delta, logprobs: [] });
  }

  #closeMessage(): string {
    const m = this.#message;
    if (m === null) return '';
    this.#message = null;
    const itemId = this.#ids.message();
    const item = messageItem(itemId, m.text, 'completed');
    this.#output.push(item);
    return (
      this.#event('response.output_text.done', { item_id: itemId, output_index: m.outputIndex, content_index: 0, text: m.text, logprobs: [] }) +
      this.#event('response.content_part.done', { item_id: itemId, output_index: m.outputIndex, content_index: 0, part: outputText(m.text) }) +
      this.#event('response.output_item.done', { output_index: m.outputIndex, item })
    );
  }

  #toolDelta(t: NonNullable<NonNullable<ChunkChoice['delta']>['tool_calls']>[number]): string {
    let out = '';
    const index = t.index ?? 0;
    if (this.#call === null || this.#call.index !== index) {
      out += this.#closeMessage() + this.#closeCall();
      const call: OpenCall = { index, outputIndex: this.#output.length, id: this.#ids.functionCall(this.#calls++), call_id: t.id ?? '', name: t.function?.name ?? '', arguments: '' };
      this.#call = call;
      out += this.#event('response.output_item.added', { output_index: call.outputIndex, item: functionCallItem(call.id, call, 'in_progress') });
    } else if (t.function?.name) this.#call.name += t.function.name;
    const delta = t.function?.arguments ?? '';
    if (delta === '') return out;
    this.#call.arguments += delta;
    return out + this.#event('response.function_call_arguments.delta', { item_id: this.#call.id, output_index: this.#call.outputIndex, delta });
  }

  #closeCall(): string {
    const c = this.#call;
    if (c === null) return '';
    this.#call = null;
    const item = functionCallItem(c.id, c, 'completed');
    this.#output.push(item);
    return (
      this.#event('response.function_call_arguments.done', { item_id: c.id, output_index: c.outputIndex, name: c.name, arguments: c.arguments }) +
      this.#event('response.output_item.done', { output_index: c.outputIndex, item })
    );
  }

  #complete(): string {
    let out = this.#start({}) + this.#closeMessage() + this.#closeCall();
    this.#ended = true;
    const response = this.#response({
      ...ending(this.#finish),
      output: this.#output,
      usage: responsesUsage(this.#usage),
      ...(this.#optimizer !== undefined ? { optimizer: this.#optimizer } : {}),
    });
    out += this.#event(response.status === 'completed' ? 'response.completed' : 'response.incomplete', { response });
    return out;
  }

  #fail(e: NonNullable<Chunk['error']>): string {
    const out = this.#start({});
    this.#ended = true;
    const error = { type: e.type ?? 'server_error', code: e.code ?? 'upstream_error', message: e.message ?? 'The call failed.', param: e.param ?? null };
    const response = this.#response({ status: 'failed', error: { code: error.code, message: error.message }, output: this.#output, usage: responsesUsage(this.#usage) });
    // the error's fields at the top (the API reference's shape) and under `error` (what clients read)
    return out + this.#event('error', { code: error.code, message: error.message, param: error.param, error }) + this.#event('response.failed', { response });
  }
}
