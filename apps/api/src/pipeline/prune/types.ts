// The shapes context pruning reads and writes: an OpenAI chat-completions request's
// `messages`, loosely typed so that fields pruning does not know pass through untouched.

export type Role = 'system' | 'developer' | 'user' | 'assistant' | 'tool';

/** One part of an array content: text, image_url, input_audio, file… Only text parts are ever edited. */
export interface ContentPart {
  type: string;
  text?: string;
  [key: string]: unknown;
}

export interface ToolCall {
  id: string;
  type: string;
  function: { name: string; arguments: string };
  [key: string]: unknown;
}

export interface Message {
  role: Role | (string & {});
  content?: string | ContentPart[] | null;
  name?: string;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  [key: string]: unknown;
}

export interface PruneOptions {
  /** The model's context length (or what is left of it after max_tokens): past it, the oldest turns are dropped. */
  contextTokens?: number;
  /** Default 2000: older tool outputs longer than this are cut to head + tail with a marker. */
  toolOutputBudgetTokens?: number;
  /** Default 2: the last N tool outputs are never cut. */
  keepRecentToolOutputs?: number;
}

export type PruneTransform =
  | 'dedupe-messages'
  | 'dedupe-tool-outputs'
  | 'collapse-whitespace'
  | 'trim-old-tool-outputs'
  | 'drop-oldest-turns';

export interface PruneStep {
  transform: PruneTransform;
  /** Estimated tokens (see estimateTokens) this transform took off; ≥ 0. */
  tokensRemoved: number;
  detail: string;
}

export interface PruneResult {
  messages: Message[];
  /** The transforms that changed something, in the order they were applied. */
  steps: PruneStep[];
  tokensBefore: number;
  tokensAfter: number;
}
