// The OpenAI chat-completions wire types the SDK sends and receives, plus the gateway's
// `optimizer` annotation (request) and block (response). Unknown fields pass through.
import type { ModelProfile, OptimizerAnnotation, OptimizerBlock } from '@optimizer/schema';

export type { ModelProfile, OptimizerAnnotation, OptimizerBlock };

export type ChatRole = 'system' | 'developer' | 'user' | 'assistant' | 'tool' | (string & {});

export interface ChatMessageParam {
  role: ChatRole;
  content?: string | Array<Record<string, unknown>> | null;
  name?: string;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  [field: string]: unknown;
}

export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ChatCompletionCreateParams {
  model: string;
  messages: ChatMessageParam[];
  optimizer?: OptimizerAnnotation;
  temperature?: number | null;
  top_p?: number | null;
  max_tokens?: number | null;
  max_completion_tokens?: number | null;
  n?: number | null;
  stop?: string | string[] | null;
  tools?: Array<Record<string, unknown>>;
  tool_choice?: unknown;
  response_format?: Record<string, unknown>;
  reasoning_effort?: string | null;
  user?: string;
  stream?: boolean | null;
  stream_options?: { include_usage?: boolean } | null;
  /** Any other OpenAI field is sent as given. */
  [field: string]: unknown;
}

export interface CompletionUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens?: number; [k: string]: unknown };
  completion_tokens_details?: { reasoning_tokens?: number; [k: string]: unknown };
}

export interface ChatCompletionMessage {
  role: 'assistant';
  content: string | null;
  refusal?: string | null;
  tool_calls?: ToolCall[];
  [field: string]: unknown;
}

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: Array<{ index: number; message: ChatCompletionMessage; finish_reason: string | null; logprobs?: unknown }>;
  usage?: CompletionUsage;
  system_fingerprint?: string | null;
  [field: string]: unknown;
}

/** What the gateway's response says about the call beside its body. */
export interface CallResponse {
  /** The gateway's id for the call (x-optimizer-call-id); look its reasons up with client.calls.find. */
  call_id: string | null;
  /** The response's headers (x-optimizer-model, x-optimizer-cache, x-optimizer-overhead-ms, ...). Not enumerable, so the answer prints and serializes as its body. */
  readonly headers: Headers;
}

export type OptimizedChatCompletion = ChatCompletion & { optimizer: OptimizerBlock } & CallResponse;

export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: Array<{
    index: number;
    delta: { role?: string; content?: string | null; refusal?: string | null; tool_calls?: Array<Partial<ToolCall> & { index: number }> };
    finish_reason: string | null;
    logprobs?: unknown;
  }>;
  usage?: CompletionUsage | null;
  /** Present on the last chunk before [DONE]. */
  optimizer?: OptimizerBlock;
  [field: string]: unknown;
}

/** Per-request options for completions. */
export interface RequestOptions {
  /** Sent as Idempotency-Key: a retry with the same key and body is answered once. */
  idempotencyKey?: string;
  /** Sent as x-provider-key: the vendor key for this call only, never stored. */
  providerKey?: string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export interface OutcomeSignals {
  schema_valid?: boolean;
  tool_executed?: boolean;
  retried?: boolean;
  run_completed?: boolean;
  human_verdict?: 'accepted' | 'edited' | 'rejected';
  score?: number;
}

/** What POST /v1/outcomes answers: the outcome as recorded, with the calls it was matched to. */
export interface RecordedOutcome {
  run_id: string;
  step_id: string;
  /** The signals' score in [0, 1], the evidence the router learns from. */
  score: number;
  /** The ids of the run's calls for the step that the outcome counts for. */
  calls: string[];
}

export interface OutcomeReport {
  run_id: string;
  step_id: string;
  signals: OutcomeSignals;
}
