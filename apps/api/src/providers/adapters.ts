// One adapter per wire format. The openai wire serves OpenAI as-is and the
// OpenAI-compatible vendors through their profiles (openai-compatible/); the others translate.
import { ApiError } from '../errors.ts';
import { anthropicAdapter } from './anthropic/adapter.ts';
import { bedrockAdapter } from './bedrock/adapter.ts';
import { geminiAdapter } from './gemini/adapter.ts';
import { openaiWireAdapter } from './openai-compatible/adapter.ts';
import type { ChatAdapter, Wire } from './types.ts';

const adapters: Partial<Record<Wire, ChatAdapter>> = {
  openai: openaiWireAdapter,
  anthropic: anthropicAdapter,
  gemini: geminiAdapter,
  bedrock: bedrockAdapter,
};

export function adapterFor(wire: Wire): ChatAdapter {
  const a = adapters[wire];
  if (!a) throw new ApiError('provider_unavailable', `The ${wire} wire format is not available in this build.`);
  return a;
}

export function hasAdapter(wire: Wire): boolean {
  return adapters[wire] !== undefined;
}
