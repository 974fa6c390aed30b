// ConverseStream bytes → StreamEvents, incrementally: the event-stream framing is
// decoded as bytes arrive (eventstream.ts), and each message becomes zero or more
// OpenAI chunks.
//
//   messageStart                      → first chunk, delta {role: assistant, content: ''}
//   contentBlockStart {toolUse}       → tool_calls opening delta {index, id, type, function{name, arguments: ''}}
//   contentBlockDelta {text}          → delta {content}
//   contentBlockDelta {toolUse.input} → tool_calls delta {index, function{arguments}}
//                                       (JSON_TOOL's input streams as content instead)
//   contentBlockDelta {reasoningContent} → nothing (not part of the answer)
//   messageStop {stopReason}          → chunk with finish_reason
//   metadata {usage}                  → usage event (a usage-only chunk), then done
//   exception / error message         → error event (OpenAI error object)
//
// A corrupt frame (bad checksum) ends decoding with an error event.
import type { CallTarget, StreamDecoder, StreamEvent } from '../types.ts';
import { EventStreamDecoder, EventStreamError, type EventStreamMessage } from './eventstream.ts';
import { streamErrorData } from './errors.ts';
import { completionId, finishReason } from './response.ts';
import { openAIUsage, usageFromConverse } from './usage.ts';
import { JSON_TOOL } from './wire.ts';
import { VendorShapeError } from '../vendor-shape.ts';

interface State {
  id: string;
  created: number;
  model: string;
  sentRole: boolean;
  /** contentBlockIndex → OpenAI tool_calls index. */
  toolIndex: Map<number, number>;
  /** contentBlockIndex of JSON_TOOL blocks, whose input is the content. */
  jsonBlocks: Set<number>;
  stopped: boolean;
  done: boolean;
  failed: boolean;
}

/** An event's payload: a JSON object, or the stream is not Converse's. */
function payloadJson(msg: EventStreamMessage): Record<string, any> {
  const text = msg.payload.toString('utf8');
  if (text.trim() === '') return {};
  let j: unknown;
  try {
    j = JSON.parse(text);
  } catch {
    throw new VendorShapeError('a stream event whose payload is not JSON', text);
  }
  if (typeof j !== 'object' || j === null || Array.isArray(j)) throw new VendorShapeError('a stream event whose payload is not a JSON object', text);
  return j as Record<string, any>;
}

export function converseStreamDecoder(target: CallTarget): StreamDecoder {
  const provider = target.provider.name;
  const frames = new EventStreamDecoder();
  const s: State = {
    id: completionId(),
    created: Math.floor(Date.now() / 1000),
    model: target.model,
    sentRole: false,
    toolIndex: new Map(),
    jsonBlocks: new Set(),
    stopped: false,
    done: false,
    failed: false,
  };

  const chunk = (delta: Record<string, unknown>, finish: string | null = null): StreamEvent => {
    const d = s.sentRole ? delta : { role: 'assistant', ...delta };
    s.sentRole = true;
    return { kind: 'chunk', data: JSON.stringify({ id: s.id, object: 'chat.completion.chunk', created: s.created, model: s.model, choices: [{ index: 0, delta: d, finish_reason: finish, logprobs: null }] }) };
  };

  const onEvent = (type: string, p: Record<string, any>): StreamEvent[] => {
    const block = typeof p.contentBlockIndex === 'number' ? p.contentBlockIndex : 0;
    switch (type) {
      case 'messageStart':
        return s.sentRole ? [] : [chunk({ content: '' })];
      case 'contentBlockStart': {
        const use = p.start?.toolUse;
        if (!use) return [];
        if (use.name === JSON_TOOL) {
          s.jsonBlocks.add(block);
          return [];
        }
        const index = s.toolIndex.size;
        s.toolIndex.set(block, index);
        return [chunk({ tool_calls: [{ index, id: String(use.toolUseId), type: 'function', function: { name: String(use.name), arguments: '' } }] })];
      }
      case 'contentBlockDelta': {
        const delta = p.delta ?? {};
        if (typeof delta.text === 'string') return [chunk({ content: delta.text })];
        const input = delta.toolUse?.input;
        if (typeof input !== 'string' || input === '') return [];
        if (s.jsonBlocks.has(block)) return [chunk({ content: input })];
        const index = s.toolIndex.get(block);
        return index === undefined ? [] : [chunk({ tool_calls: [{ index, function: { arguments: input } }] })];
      }
      case 'messageStop':
        s.stopped = true;
        return [chunk({}, finishReason(p.stopReason, s.toolIndex.size === 0))];
      case 'metadata': {
        const usage = usageFromConverse(p.usage);
        const out: StreamEvent[] = [];
        if (usage) {
          const data = JSON.stringify({ id: s.id, object: 'chat.completion.chunk', created: s.created, model: s.model, choices: [], usage: openAIUsage(usage) });
          out.push({ kind: 'usage', usage, data });
        }
        if (s.stopped && !s.done) {
          s.done = true;
          out.push({ kind: 'done' });
        }
        return out;
      }
      default:
        return [];
    }
  };

  const onMessage = (msg: EventStreamMessage): StreamEvent[] => {
    const kind = msg.headers[':message-type'];
    if (kind === 'exception') {
      s.failed = true;
      return [{ kind: 'error', data: streamErrorData(provider, String(msg.headers[':exception-type'] ?? 'exception'), msg.payload) }];
    }
    if (kind === 'error') {
      s.failed = true;
      const code = String(msg.headers[':error-code'] ?? 'error');
      const message = String(msg.headers[':error-message'] ?? 'the response stream failed');
      return [{ kind: 'error', data: JSON.stringify({ error: { message: `${provider}: ${message}`, type: 'upstream_error', code } }) }];
    }
    return onEvent(String(msg.headers[':event-type'] ?? ''), payloadJson(msg));
  };

  return {
    push(bytes) {
      if (s.failed) return [];
      let messages: EventStreamMessage[];
      try {
        messages = frames.push(bytes);
      } catch (e) {
        if (!(e instanceof EventStreamError)) throw e;
        s.failed = true;
        return [{ kind: 'error', data: JSON.stringify({ error: { message: `${provider}: the response stream is corrupt (${e.message}).`, type: 'upstream_error', code: 'event_stream_corrupt' } }) }];
      }
      const out: StreamEvent[] = [];
      for (const m of messages) {
        if (s.failed) break;
        out.push(...onMessage(m));
      }
      return out;
    },
    end() {
      // The metadata event normally closes the stream; a stream that stopped cleanly without it is still done.
      if (s.failed || s.done || !s.stopped || frames.pending > 0) return [];
      s.done = true;
      return [{ kind: 'done' }];
    },
  };
}
