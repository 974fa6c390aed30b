// One adapter per wire format. OpenAI-compatible vendors share the openai adapter
// (with per-vendor parameter mapping); the others translate.
import { ApiError } from '../errors.ts';
import { openaiAdapter } from './openai/adapter.ts';
import type { ChatAdapter, Wire } from './types.ts';

const adapters: Partial<Record<Wire, ChatAdapter>> = {
  openai: openaiAdapter,
};

export function adapterFor(wire: Wire): ChatAdapter {
  const a = adapters[wire];
  if (!a) throw new ApiError('provider_unavailable', `The ${wire} wire format is not available in this build.`);
  return a;
}

export function hasAdapter(wire: Wire): boolean {
  return adapters[wire] !== undefined;
}
