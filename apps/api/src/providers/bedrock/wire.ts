// The Converse wire format, as far as this adapter writes and reads it
// (Amazon Bedrock Runtime API reference: Converse, ConverseStream, ContentBlock).

export type ImageFormat = 'png' | 'jpeg' | 'gif' | 'webp';

export type ToolResultContent = { text: string } | { json: unknown };

export type ContentBlock =
  | { text: string }
  | { image: { format: ImageFormat; source: { bytes: string } } }
  | { toolUse: { toolUseId: string; name: string; input: unknown } }
  | { toolResult: { toolUseId: string; content: ToolResultContent[]; status?: 'success' | 'error' } }
  | { reasoningContent: { reasoningText?: { text: string; signature?: string }; redactedContent?: string } };

export interface Message {
  role: 'user' | 'assistant';
  content: ContentBlock[];
}

export interface ToolSpec {
  toolSpec: { name: string; description?: string; inputSchema: { json: unknown } };
}

export type ToolChoice = { auto: Record<string, never> } | { any: Record<string, never> } | { tool: { name: string } };

export interface ConverseRequest {
  messages: Message[];
  system?: { text: string }[];
  inferenceConfig?: { maxTokens?: number; temperature?: number; topP?: number; stopSequences?: string[] };
  toolConfig?: { tools: ToolSpec[]; toolChoice?: ToolChoice };
  additionalModelRequestFields?: Record<string, unknown>;
  requestMetadata?: Record<string, string>;
  serviceTier?: { type: string };
}

export type StopReason =
  | 'end_turn'
  | 'tool_use'
  | 'max_tokens'
  | 'stop_sequence'
  | 'guardrail_intervened'
  | 'content_filtered'
  | 'model_context_window_exceeded';

export interface TokenUsage {
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
  cacheReadInputTokens?: number;
  cacheWriteInputTokens?: number;
}

export interface ConverseResponse {
  output?: { message?: { role: string; content?: Record<string, any>[] } };
  stopReason?: string;
  usage?: TokenUsage;
  metrics?: { latencyMs?: number };
}

/**
 * The tool a `response_format` of json_schema / json_object becomes: forced, its input
 * is the answer (the approach Anthropic documents for JSON output). The name is
 * reserved: a client tool by that name is refused.
 */
export const JSON_TOOL = 'json_response';
