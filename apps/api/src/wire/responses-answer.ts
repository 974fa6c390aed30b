// A chat.completion answer (with its `optimizer` block) written back as a Responses API
// object: a message item with output_text, a function_call item per tool call, usage in
// input/output tokens. The response id is the call's id (`resp_<call id>`), so a response
// can be looked up among the calls (GET /v1/calls/<call id>). The stream's events (responses-stream.ts) end on
// the same object.
import type { ResponsesEcho } from './responses-request.ts';

type Json = Record<string, unknown>;

/** Ids of a response and its items, all derived from the gateway's call id. */
export class ResponseIds {
  readonly response: string;
  readonly #base: string;

  constructor(callId: string | undefined) {
    this.#base = (callId || `call_${crypto.randomUUID()}`).replace(/[^A-Za-z0-9_-]/g, '');
    this.response = `resp_${this.#base}`;
  }

  message(): string {
    return `msg_${this.#base}`;
  }

  functionCall(i: number): string {
    return `fc_${this.#base}_${i}`;
  }
}

interface ChatUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number } | null;
  completion_tokens_details?: { reasoning_tokens?: number } | null;
}

/** Chat usage as Responses usage (zeros when the answer carried none). */
export function responsesUsage(u: ChatUsage | null | undefined): Json {
  const input = u?.prompt_tokens ?? 0;
  const output = u?.completion_tokens ?? 0;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: u?.prompt_tokens_details?.cached_tokens ?? 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: u?.completion_tokens_details?.reasoning_tokens ?? 0 },
    total_tokens: input + output,
  };
}

/** The status a chat finish reason ends a response in, and why when incomplete. */
export function ending(finish: string | null | undefined): { status: 'completed' | 'incomplete'; incomplete_details: { reason: string } | null } {
  if (finish === 'length') return { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } };
  if (finish === 'content_filter') return { status: 'incomplete', incomplete_details: { reason: 'content_filter' } };
  return { status: 'completed', incomplete_details: null };
}

/** The Responses object around `output`, echoing the request. */
export function responseObject(ids: ResponseIds, echo: ResponsesEcho, at: { created: number; model: string }, state: Json): Json {
  return {
    id: ids.response,
    object: 'response',
    created_at: at.created,
    status: 'in_progress',
    error: null,
    incomplete_details: null,
    instructions: echo.instructions,
    max_output_tokens: echo.max_output_tokens,
    model: at.model,
    output: [],
    parallel_tool_calls: echo.parallel_tool_calls,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: false,
    temperature: echo.temperature,
    text: echo.text,
    tool_choice: echo.tool_choice,
    tools: echo.tools,
    top_p: echo.top_p,
    truncation: 'disabled',
    usage: null,
    user: echo.user,
    metadata: echo.metadata,
    ...state,
  };
}

export function messageItem(id: string, text: string, status: 'in_progress' | 'completed'): Json {
  return { id, type: 'message', status, role: 'assistant', content: status === 'completed' ? [outputText(text)] : [] };
}

export function outputText(text: string): Json {
  return { type: 'output_text', text, annotations: [], logprobs: [] };
}

export function functionCallItem(id: string, call: { call_id: string; name: string; arguments: string }, status: 'in_progress' | 'completed'): Json {
  return { id, type: 'function_call', status, call_id: call.call_id, name: call.name, arguments: call.arguments };
}

interface ChatCompletion {
  created?: number;
  model?: string;
  choices?: {
    message?: { content?: string | null; refusal?: string | null; tool_calls?: { id?: string; function?: { name?: string; arguments?: string } }[] };
    finish_reason?: string | null;
  }[];
  usage?: ChatUsage;
  optimizer?: unknown;
}

/** A chat.completion's JSON text as the Responses object's JSON text. */
export function responseFromCompletion(json: string, ids: ResponseIds, echo: ResponsesEcho): string {
  const c = JSON.parse(json) as ChatCompletion;
  const choice = c.choices?.[0];
  const message = choice?.message ?? {};
  const output: Json[] = [];
  if (typeof message.content === 'string' && message.content !== '') output.push(messageItem(ids.message(), message.content, 'completed'));
  else if (typeof message.refusal === 'string' && message.refusal !== '') {
    output.push({ id: ids.message(), type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'refusal', refusal: message.refusal }] });
  }
  (message.tool_calls ?? []).forEach((t, i) => {
    output.push(functionCallItem(ids.functionCall(i), { call_id: t.id ?? '', name: t.function?.name ?? '', arguments: t.function?.arguments ?? '' }, 'completed'));
  });
  const response = responseObject(ids, echo, { created: c.created ?? Math.floor(Date.now() / 1000), model: c.model ?? '' }, {
    ...ending(choice?.finish_reason),
    output,
    usage: responsesUsage(c.usage),
    ...(c.optimizer !== undefined ? { optimizer: c.optimizer } : {}),
  });
  return JSON.stringify(response);
}
