// A catalog model for failover tests: plain text, every capability, one failover chain.
import type { ModelProfile } from '@optimizer/schema';

export function failoverProfile(model: string, provider: string, failover: string[]): ModelProfile {
  return {
    model, provider, input_per_mtok: 1, output_per_mtok: 2, cached_input_per_mtok: 0.5, cache_write_multiplier: 1,
    input_modalities: ['text'], output_modalities: ['text'], tools: 'full', structured_outputs: true, reasoning_efforts: [],
    context_length: 128_000, max_output_tokens: 16_000, search_only: false, moderation_only: false, strengths: { chat: 0.8 }, disabled: false, failover,
  };
}
