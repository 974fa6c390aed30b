// Anthropic's SSE stream → OpenAI chat.completion.chunk events, incrementally: feed any
// byte split. Anthropic frames each event as `event: <type>` + `data: {...}`:
//   message_start (id, model, input usage) → role chunk
//   content_block_start text / tool_use (id, name) / thinking
//   content_block_delta text_delta → content; input_json_delta → tool-call arguments
//     (or content, for the json_output tool); thinking_delta and signature_delta → nothing
//   message_delta (stop_reason, final usage) → the finish_reason chunk
//   message_stop → usage event (with a usage-only chunk) and done; ping → nothing
//   error → an OpenAI error object
// OpenAI's tool-call index counts tool calls (0, 1, …), not Anthropic's content blocks.
import { StringDecoder } from 'node:string_decoder';
import { SseSplitter, eventData } from '../../wire/sse.ts';
import { tryJson } from '../vendor-error.ts';
import type { StreamDecoder, StreamEvent } from '../types.ts';
import { streamErrorData } from './errors.ts';
import { finishReason, openAIUsage, usageFromAnthropic } from './response.ts';
import { JSON_TOOL } from './tools.ts';
import type { AnthropicUsage, ResponseBlock } from './wire.ts';
import { VendorShapeError } from '../vendor-shape.ts';

type Block = { kind: 'text' } | { kind: 'tool'; index: number } | { kind: 'json' } | { kind: 'skip' };

interface StreamEventData {
  type?: string;
  index?: number;
  message?: { id?: string; model?: string; usage?: AnthropicUsage };
  content_block?: ResponseBlock;
  delta?: { type?: string; text?: string; partial_json?: string; stop_reason?: string | null };
  usage?: AnthropicUsage;
}

const defined = (u: AnthropicUsage | undefined): AnthropicUsage =>
  Object.fromEntries(Object.entries(u ?? {}).filter(([, v]) => v !== null && v !== undefined)) as AnthropicUsage;

export class AnthropicStreamTranslator {
  readonly #provider: string;
  readonly #created: number;
  #id = '';
  #model = '';
  #usage: AnthropicUsage = {};
  #blocks = new Map<number, Block>();
  #toolCalls = 0;

  constructor(provider: string, now: number = Date.now()) {
    this.#provider = provider;
    this.#created = Math.floor(now / 1000);
  }

  #chunk(delta: Record<string, unknown>, finish: string | null = null): StreamEvent {
    const choice = { index: 0, delta, logprobs: null, finish_reason: finish };
    return { kind: 'chunk', data: JSON.stringify({ id: this.#id, object: 'chat.completion.chunk', created: this.#created, model: this.#model, choices: [choice] }) };
  }

  #toolDelta(index: number, fn: Record<string, unknown>, head: Record<string, unknown> = {}): StreamEvent {
    return this.#chunk({ tool_calls: [{ index, ...head, function: fn }] });
  }

  #blockStart(index: number, block: ResponseBlock): StreamEvent[] {
    if (block.type === 'text') {
      this.#blocks.set(index, { kind: 'text' });
      return block.text ? [this.#chunk({ content: block.text })] : [];
    }
    if (block.type === 'tool_use' && block.name === JSON_TOOL) {
      this.#blocks.set(index, { kind: 'json' });
      return [];
    }
    if (block.type === 'tool_use') {
      const at = this.#toolCalls++;
      this.#blocks.set(index, { kind: 'tool', index: at });
      const input = block.input && typeof block.input === 'object' && Object.keys(block.input).length > 0 ? JSON.stringify(block.input) : '';
      return [this.#toolDelta(at, { name: block.name, arguments: input }, { id: block.id, type: 'function' })];
    }
    this.#blocks.set(index, { kind: 'skip' }); // thinking, redacted_thinking, server tools
    return [];
  }

  #blockDelta(index: number, delta: NonNullable<StreamEventData['delta']>): StreamEvent[] {
    const block = this.#blocks.get(index);
    if (delta.type === 'text_delta' && block?.kind === 'text' && delta.text) return [this.#chunk({ content: delta.text })];
    if (delta.type !== 'input_json_delta' || !delta.partial_json) return [];
    if (block?.kind === 'tool') return [this.#toolDelta(block.index, { arguments: delta.partial_json })];
    if (block?.kind === 'json') return [this.#chunk({ content: delta.partial_json })];
    return [];
  }

  /** The OpenAI events one Anthropic event makes. */
  translate(ev: StreamEventData): StreamEvent[] {
    switch (ev.type) {
      case 'message_start':
        this.#id = ev.message?.id ?? '';
        this.#model = ev.message?.model ?? '';
        this.#usage = defined(ev.message?.usage);
        return [this.#chunk({ role: 'assistant', content: '' })];
      case 'content_block_start':
        return ev.content_block ? this.#blockStart(ev.index ?? 0, ev.content_block) : [];
      case 'content_block_delta':
        return ev.delta ? this.#blockDelta(ev.index ?? 0, ev.delta) : [];
      case 'message_delta':
        this.#usage = { ...this.#usage, ...defined(ev.usage) };
        return [this.#chunk({}, finishReason(ev.delta?.stop_reason, this.#toolCalls > 0))];
      case 'message_stop': {
        const usage = usageFromAnthropic(this.#usage);
        if (!usage) return [{ kind: 'done' }];
        const data = JSON.stringify({ id: this.#id, object: 'chat.completion.chunk', created: this.#created, model: this.#model, choices: [], usage: openAIUsage(usage) });
        return [{ kind: 'usage', usage, data }, { kind: 'done' }];
      }
      case 'error':
        return [{ kind: 'error', data: streamErrorData(this.#provider, ev) }];
      default:
        return []; // ping, content_block_stop, and event types added later
    }
  }
}

export function anthropicStreamDecoder(provider: string, now?: number): StreamDecoder {
  // Decoded here, not in the splitter, so a UTF-8 character split across reads stays whole.
  const utf8 = new StringDecoder('utf8');
  const splitter = new SseSplitter();
  const translator = new AnthropicStreamTranslator(provider, now);
  const decode = (events: string[]): StreamEvent[] =>
    events.flatMap((raw) => {
      const data = eventData(raw);
      if (data === null || data.trim() === '') return [];
      const ev = tryJson(data) as StreamEventData | null;
      // every Anthropic event is an object naming its type; anything else is not Anthropic's stream
      if (!ev || typeof ev !== 'object' || Array.isArray(ev) || typeof ev.type !== 'string') throw new VendorShapeError('a stream event without a type', data);
      return translator.translate(ev);
    });
  return {
    push: (bytes) => decode(splitter.push(utf8.write(bytes))),
    end: () => {
      const events = splitter.push(utf8.end());
      return decode(splitter.rest().trim() ? [...events, splitter.rest()] : events);
    },
  };
}
