export { startOpenAIMock } from './openai/server.ts';
export { startAnthropicMock, type AnthropicMockOptions } from './anthropic/server.ts';
export { startGeminiMock, type GeminiMockOptions } from './gemini/server.ts';
export { startBedrockMock, type BedrockMockOptions } from './bedrock/server.ts';
// Bedrock's side of SigV4, written apart from the gateway's signer: the gateway's tests check signatures with it
export { verifySignature } from './bedrock/sigv4.ts';
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
export { startStripeMock, type StripeMock, type StripeEvent, type Delivery } from './stripe/server.ts';
