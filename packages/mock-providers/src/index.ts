export { startOpenAIMock } from './openai/server.ts';
export { MAGIC_MODELS, SLOW_MS } from './faults.ts';
export type {
  FinishReason,
  MockVendor,
  OpenAIMockOptions,
  RecordedRequest,
  ScriptedReply,
  ScriptedToolCall,
  ScriptedUsage,
} from './types.ts';
