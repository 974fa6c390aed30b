// The model catalog the gateway starts with. Prices are USD per million tokens on each
// vendor's standard tier (not batch, flex or priority), on the lowest prompt-length tier
// where a vendor charges more for long prompts. Where each price came from, and when it
// was read, is in docs/catalog-sources.md; keep the two in step.
//
// `disabled: true` marks a model the vendor has already retired from its API; it stays
// in the catalog so that calls naming it can still be priced, reported and failed over.
// `strengths` are priors from public leaderboards, not measurements (see the doc).
// `failover` lists equivalent-or-stronger models on other providers, and only models
// that are enabled here. `weights` marks the same model served by several vendors (open
// weights): a pinned model fails over to those alone unless the tenant allows any.
import type { ModelProfile } from '@optimizer/schema';

const TEXT = ['text'] as const;
const TEXT_IMAGE = ['text', 'image'] as const;
const MULTIMODAL = ['text', 'image', 'audio', 'video'] as const;
const EFFORTS_GPT5 = ['minimal', 'low', 'medium', 'high'] as const;
const EFFORTS_LMH = ['low', 'medium', 'high'] as const;

const EMBEDDING = ['embedding'] as const;

// Fields that are the same for every model seeded here.
const plain = { search_only: false, moderation_only: false } as const;

export const seedCatalog: ModelProfile[] = [
  // ── OpenAI ──────────────────────────────────────────────────────────────────────────
  // Deprecated: gpt-5, gpt-5-mini, gpt-5-nano and o3 shut down 2026-12-11;
  // gpt-4.1, gpt-4.1-mini, gpt-4o and gpt-4o-mini shut down 2027-01-14.
  {
    model: 'gpt-5', provider: 'openai',
    input_per_mtok: 1.25, output_per_mtok: 10, cached_input_per_mtok: 0.125, cache_write_multiplier: 1,
    input_modalities: [...TEXT_IMAGE], output_modalities: [...TEXT],
    tools: 'full', structured_outputs: true, reasoning_efforts: [...EFFORTS_GPT5],
    context_length: 400_000, max_output_tokens: 128_000, ...plain,
    strengths: { code: 0.85, reasoning: 0.88, math: 0.92, extraction: 0.88, classification: 0.88, chat: 0.86, vision: 0.82, long_context: 0.8, tool_use: 0.86 },
    disabled: false,
    failover: ['claude-opus-5-5', 'gemini-2.5-pro', 'claude-sonnet-4-5'],
  },
  {
    model: 'gpt-5-mini', provider: 'openai',
    input_per_mtok: 0.25, output_per_mtok: 2, cached_input_per_mtok: 0.025, cache_write_multiplier: 1,
    input_modalities: [...TEXT_IMAGE], output_modalities: [...TEXT],
    tools: 'full', structured_outputs: true, reasoning_efforts: [...EFFORTS_GPT5],
    context_length: 400_000, max_output_tokens: 128_000, ...plain,
    strengths: { code: 0.75, reasoning: 0.8, math: 0.88, extraction: 0.84, classification: 0.85, chat: 0.78, vision: 0.75, long_context: 0.75, tool_use: 0.78 },
    disabled: false,
    failover: ['claude-sonnet-4-5', 'gemini-2.5-pro', 'gemini-2.5-flash'],
  },
  {
    model: 'gpt-5-nano', provider: 'openai',
    input_per_mtok: 0.05, output_per_mtok: 0.4, cached_input_per_mtok: 0.005, cache_write_multiplier: 1,
    input_modalities: [...TEXT_IMAGE], output_modalities: [...TEXT],
    tools: 'full', structured_outputs: true, reasoning_efforts: [...EFFORTS_GPT5],
    context_length: 400_000, max_output_tokens: 128_000, ...plain,
    strengths: { code: 0.55, reasoning: 0.65, math: 0.78, extraction: 0.75, classification: 0.78, chat: 0.65, vision: 0.62, long_context: 0.65, tool_use: 0.62 },
    disabled: false,
    failover: ['gemini-2.5-flash', 'claude-haiku-4-5', 'gemini-2.5-flash-lite'],
  },
  {
    model: 'gpt-4.1', provider: 'openai',
    input_per_mtok: 2, output_per_mtok: 8, cached_input_per_mtok: 0.5, cache_write_multiplier: 1,
    input_modalities: [...TEXT_IMAGE], output_modalities: [...TEXT],
    tools: 'full', structured_outputs: true, reasoning_efforts: [],
    context_length: 1_047_576, max_output_tokens: 32_768, ...plain,
    strengths: { code: 0.68, reasoning: 0.65, math: 0.55, extraction: 0.88, classification: 0.86, chat: 0.8, vision: 0.75, long_context: 0.85, tool_use: 0.82 },
    disabled: false,
    failover: ['claude-sonnet-4-5', 'gemini-2.5-pro'],
  },
  {
    model: 'gpt-4.1-mini', provider: 'openai',
    input_per_mtok: 0.4, output_per_mtok: 1.6, cached_input_per_mtok: 0.1, cache_write_multiplier: 1,
    input_modalities: [...TEXT_IMAGE], output_modalities: [...TEXT],
    tools: 'full', structured_outputs: true, reasoning_efforts: [],
    context_length: 1_047_576, max_output_tokens: 32_768, ...plain,
    strengths: { code: 0.58, reasoning: 0.58, math: 0.5, extraction: 0.82, classification: 0.82, chat: 0.74, vision: 0.7, long_context: 0.8, tool_use: 0.75 },
    disabled: false,
    failover: ['gemini-2.5-flash', 'claude-haiku-4-5'],
  },
  {
    // Shut down on the OpenAI API on 2026-10-23.
    model: 'gpt-4.1-nano', provider: 'openai',
    input_per_mtok: 0.1, output_per_mtok: 0.4, cached_input_per_mtok: 0.025, cache_write_multiplier: 1,
    input_modalities: [...TEXT_IMAGE], output_modalities: [...TEXT],
    tools: 'full', structured_outputs: true, reasoning_efforts: [],
    context_length: 1_047_576, max_output_tokens: 32_768, ...plain,
    strengths: { code: 0.4, reasoning: 0.45, math: 0.38, extraction: 0.72, classification: 0.75, chat: 0.6, vision: 0.55, long_context: 0.7, tool_use: 0.6 },
    disabled: true,
    failover: ['gemini-2.5-flash-lite', 'gemini-2.5-flash'],
  },
  {
    model: 'gpt-4o', provider: 'openai',
    input_per_mtok: 2.5, output_per_mtok: 10, cached_input_per_mtok: 1.25, cache_write_multiplier: 1,
    input_modalities: [...TEXT_IMAGE], output_modalities: [...TEXT],
    tools: 'full', structured_outputs: true, reasoning_efforts: [],
    context_length: 128_000, max_output_tokens: 16_384, ...plain,
    strengths: { code: 0.58, reasoning: 0.58, math: 0.45, extraction: 0.84, classification: 0.84, chat: 0.82, vision: 0.75, long_context: 0.6, tool_use: 0.75 },
    disabled: false,
    failover: ['claude-sonnet-4-5', 'gemini-2.5-pro'],
  },
  {
    model: 'gpt-4o-mini', provider: 'openai',
    input_per_mtok: 0.15, output_per_mtok: 0.6, cached_input_per_mtok: 0.075, cache_write_multiplier: 1,
    input_modalities: [...TEXT_IMAGE], output_modalities: [...TEXT],
    tools: 'full', structured_outputs: true, reasoning_efforts: [],
    context_length: 128_000, max_output_tokens: 16_384, ...plain,
    strengths: { code: 0.42, reasoning: 0.48, math: 0.4, extraction: 0.75, classification: 0.78, chat: 0.7, vision: 0.62, long_context: 0.55, tool_use: 0.65 },
    disabled: false,
    failover: ['gemini-2.5-flash', 'claude-haiku-4-5'],
  },
  {
    model: 'o3', provider: 'openai',
    input_per_mtok: 2, output_per_mtok: 8, cached_input_per_mtok: 0.5, cache_write_multiplier: 1,
    input_modalities: [...TEXT_IMAGE], output_modalities: [...TEXT],
    tools: 'full', structured_outputs: true, reasoning_efforts: [...EFFORTS_LMH],
    context_length: 200_000, max_output_tokens: 100_000, ...plain,
    strengths: { code: 0.85, reasoning: 0.9, math: 0.92, extraction: 0.85, classification: 0.85, chat: 0.8, vision: 0.85, long_context: 0.72, tool_use: 0.85 },
    disabled: false,
    failover: ['claude-opus-5-5', 'gemini-2.5-pro'],
  },
  {
    // Shut down on the OpenAI API on 2026-10-23.
    model: 'o4-mini', provider: 'openai',
    input_per_mtok: 1.1, output_per_mtok: 4.4, cached_input_per_mtok: 0.275, cache_write_multiplier: 1,
    input_modalities: [...TEXT_IMAGE], output_modalities: [...TEXT],
    tools: 'full', structured_outputs: true, reasoning_efforts: [...EFFORTS_LMH],
    context_length: 200_000, max_output_tokens: 100_000, ...plain,
    strengths: { code: 0.78, reasoning: 0.82, math: 0.9, extraction: 0.8, classification: 0.82, chat: 0.72, vision: 0.78, long_context: 0.68, tool_use: 0.78 },
    disabled: true,
    failover: ['gemini-2.5-pro', 'claude-sonnet-4-5'],
  },

  // ── Anthropic ───────────────────────────────────────────────────────────────────────
  // cache_write_multiplier 1.25 is the 5-minute cache write; 1-hour writes cost 2x input.
  // For Claude models before Opus 4.5, reasoning_efforts are the gateway's mapping onto
  // extended-thinking budgets, not an effort parameter of the vendor's API.
  {
    // The current Opus (released after Opus 5, which is now legacy).
    model: 'claude-opus-5-5', provider: 'anthropic',
    input_per_mtok: 4, output_per_mtok: 20, cached_input_per_mtok: 0.2, cache_write_multiplier: 1.25,
    input_modalities: [...TEXT_IMAGE], output_modalities: [...TEXT],
    tools: 'full', structured_outputs: true, reasoning_efforts: [...EFFORTS_LMH],
    context_length: 1_000_000, max_output_tokens: 128_000, ...plain,
    strengths: { code: 0.97, reasoning: 0.95, math: 0.92, extraction: 0.92, classification: 0.9, chat: 0.92, vision: 0.85, long_context: 0.92, tool_use: 0.95 },
    disabled: false,
    // Nothing enabled on another provider in this seed is equivalent or stronger.
    failover: [],
  },
  {
    // Retired on the Claude API on 2026-08-05 (still served on Bedrock and Google Cloud).
    model: 'claude-opus-4-1', provider: 'anthropic',
    input_per_mtok: 15, output_per_mtok: 75, cached_input_per_mtok: 1.5, cache_write_multiplier: 1.25,
    input_modalities: [...TEXT_IMAGE], output_modalities: [...TEXT],
    tools: 'full', structured_outputs: true, reasoning_efforts: [...EFFORTS_LMH],
    context_length: 200_000, max_output_tokens: 32_000, ...plain,
    strengths: { code: 0.9, reasoning: 0.85, math: 0.78, extraction: 0.88, classification: 0.86, chat: 0.88, vision: 0.75, long_context: 0.75, tool_use: 0.88 },
    disabled: true,
    failover: ['gpt-5', 'gemini-2.5-pro'],
  },
  {
    model: 'claude-sonnet-4-5', provider: 'anthropic',
    input_per_mtok: 3, output_per_mtok: 15, cached_input_per_mtok: 0.3, cache_write_multiplier: 1.25,
    input_modalities: [...TEXT_IMAGE], output_modalities: [...TEXT],
    tools: 'full', structured_outputs: true, reasoning_efforts: [...EFFORTS_LMH],
    context_length: 200_000, max_output_tokens: 64_000, ...plain,
    strengths: { code: 0.92, reasoning: 0.85, math: 0.8, extraction: 0.88, classification: 0.86, chat: 0.88, vision: 0.76, long_context: 0.8, tool_use: 0.9 },
    disabled: false,
    failover: ['gpt-5', 'gemini-2.5-pro'],
  },
  {
    model: 'claude-haiku-4-5', provider: 'anthropic',
    input_per_mtok: 1, output_per_mtok: 5, cached_input_per_mtok: 0.1, cache_write_multiplier: 1.25,
    input_modalities: [...TEXT_IMAGE], output_modalities: [...TEXT],
    tools: 'full', structured_outputs: true, reasoning_efforts: [...EFFORTS_LMH],
    context_length: 200_000, max_output_tokens: 64_000, ...plain,
    strengths: { code: 0.8, reasoning: 0.72, math: 0.65, extraction: 0.82, classification: 0.82, chat: 0.78, vision: 0.68, long_context: 0.7, tool_use: 0.8 },
    disabled: false,
    failover: ['gpt-5-mini', 'gemini-2.5-flash'],
  },
  {
    // Retired on the Claude API on 2026-02-19. Its undated alias was claude-3-5-haiku-latest.
    model: 'claude-3-5-haiku-20241022', provider: 'anthropic',
    input_per_mtok: 0.8, output_per_mtok: 4, cached_input_per_mtok: 0.08, cache_write_multiplier: 1.25,
    input_modalities: [...TEXT_IMAGE], output_modalities: [...TEXT],
    tools: 'full', structured_outputs: false, reasoning_efforts: [],
    context_length: 200_000, max_output_tokens: 8_192, ...plain,
    strengths: { code: 0.52, reasoning: 0.5, math: 0.38, extraction: 0.75, classification: 0.78, chat: 0.68, vision: 0.5, long_context: 0.6, tool_use: 0.65 },
    disabled: true,
    failover: ['gpt-4.1-mini', 'gemini-2.5-flash'],
  },

  // ── Google Gemini API ───────────────────────────────────────────────────────────────
  // Prices are for text/image/video input (audio input costs more) on prompts up to 200k
  // tokens. Cache writes cost no more than input (explicit caches also bill storage per
  // hour, which is not a per-token price). gemini-2.5-pro and gemini-2.5-flash are
  // deprecated and shut down 2026-12-01; gemini-2.5-flash-lite is not deprecated.
  {
    model: 'gemini-2.5-pro', provider: 'gemini',
    input_per_mtok: 1.25, output_per_mtok: 10, cached_input_per_mtok: 0.125, cache_write_multiplier: 1,
    input_modalities: [...MULTIMODAL], output_modalities: [...TEXT],
    tools: 'full', structured_outputs: true, reasoning_efforts: [...EFFORTS_LMH],
    context_length: 1_048_576, max_output_tokens: 65_536, ...plain,
    strengths: { code: 0.82, reasoning: 0.86, math: 0.88, extraction: 0.86, classification: 0.85, chat: 0.87, vision: 0.86, long_context: 0.9, tool_use: 0.78 },
    disabled: false,
    failover: ['gpt-5', 'claude-sonnet-4-5'],
  },
  {
    model: 'gemini-2.5-flash', provider: 'gemini',
    input_per_mtok: 0.3, output_per_mtok: 2.5, cached_input_per_mtok: 0.03, cache_write_multiplier: 1,
    input_modalities: [...MULTIMODAL], output_modalities: [...TEXT],
    tools: 'full', structured_outputs: true, reasoning_efforts: ['none', ...EFFORTS_LMH],
    context_length: 1_048_576, max_output_tokens: 65_536, ...plain,
    strengths: { code: 0.68, reasoning: 0.75, math: 0.8, extraction: 0.82, classification: 0.82, chat: 0.8, vision: 0.78, long_context: 0.85, tool_use: 0.7 },
    disabled: false,
    failover: ['gpt-5-mini', 'claude-haiku-4-5'],
  },
  {
    model: 'gemini-2.5-flash-lite', provider: 'gemini',
    input_per_mtok: 0.1, output_per_mtok: 0.4, cached_input_per_mtok: 0.01, cache_write_multiplier: 1,
    input_modalities: [...MULTIMODAL], output_modalities: [...TEXT],
    tools: 'full', structured_outputs: true, reasoning_efforts: ['none', ...EFFORTS_LMH],
    context_length: 1_048_576, max_output_tokens: 65_536, ...plain,
    strengths: { code: 0.5, reasoning: 0.58, math: 0.62, extraction: 0.75, classification: 0.78, chat: 0.68, vision: 0.68, long_context: 0.78, tool_use: 0.58 },
    disabled: false,
    failover: ['gpt-4.1-mini', 'gpt-5-nano'],
  },

  // ── Mistral ─────────────────────────────────────────────────────────────────────────
  // "-latest" aliases move when Mistral ships a new version; prices are for the versions
  // they pointed at when last verified (Mistral Large 3 and Mistral Small 3.2). Prompt-cache
  // hits are billed at 10% of the input price (docs.mistral.ai, prompt caching). Mistral
  // publishes no output cap apart from the context window; 32k is a conservative catalog limit.
  {
    model: 'mistral-large-latest', provider: 'mistral',
    input_per_mtok: 0.5, output_per_mtok: 1.5, cached_input_per_mtok: 0.05, cache_write_multiplier: 1,
    input_modalities: [...TEXT_IMAGE], output_modalities: [...TEXT],
    tools: 'full', structured_outputs: true, reasoning_efforts: [],
    context_length: 262_144, max_output_tokens: 32_768, ...plain,
    strengths: { code: 0.65, reasoning: 0.62, math: 0.58, extraction: 0.8, classification: 0.8, chat: 0.76, vision: 0.62, long_context: 0.65, tool_use: 0.7 },
    disabled: false,
    failover: ['gpt-4.1', 'claude-sonnet-4-5'],
  },
  {
    model: 'mistral-small-latest', provider: 'mistral',
    input_per_mtok: 0.1, output_per_mtok: 0.3, cached_input_per_mtok: 0.01, cache_write_multiplier: 1,
    input_modalities: [...TEXT_IMAGE], output_modalities: [...TEXT],
    tools: 'full', structured_outputs: true, reasoning_efforts: [],
    context_length: 131_072, max_output_tokens: 32_768, ...plain,
    strengths: { code: 0.5, reasoning: 0.5, math: 0.45, extraction: 0.72, classification: 0.75, chat: 0.66, vision: 0.55, long_context: 0.55, tool_use: 0.62 },
    disabled: false,
    failover: ['gpt-4.1-mini', 'gemini-2.5-flash'],
  },

  // ── DeepSeek ────────────────────────────────────────────────────────────────────────
  // Both names were retired on 2026-07-24 (replaced by deepseek-v4-flash / deepseek-v4-pro).
  // Prices are the V3.2 list prices those names last carried; cache-miss input is
  // input_per_mtok, cache-hit input is cached_input_per_mtok, and writes cost no extra.
  {
    model: 'deepseek-chat', provider: 'deepseek',
    input_per_mtok: 0.28, output_per_mtok: 0.42, cached_input_per_mtok: 0.028, cache_write_multiplier: 1,
    input_modalities: [...TEXT], output_modalities: [...TEXT],
    tools: 'basic', structured_outputs: false, reasoning_efforts: [],
    context_length: 128_000, max_output_tokens: 8_192, ...plain,
    strengths: { code: 0.75, reasoning: 0.75, math: 0.8, extraction: 0.8, classification: 0.8, chat: 0.78, long_context: 0.6, tool_use: 0.7 },
    disabled: true,
    failover: ['gpt-5-mini', 'gemini-2.5-flash'],
  },
  {
    // Always reasons; it has no effort control.
    model: 'deepseek-reasoner', provider: 'deepseek',
    input_per_mtok: 0.28, output_per_mtok: 0.42, cached_input_per_mtok: 0.028, cache_write_multiplier: 1,
    input_modalities: [...TEXT], output_modalities: [...TEXT],
    tools: 'basic', structured_outputs: false, reasoning_efforts: [],
    context_length: 128_000, max_output_tokens: 65_536, ...plain,
    strengths: { code: 0.78, reasoning: 0.85, math: 0.9, extraction: 0.75, classification: 0.78, chat: 0.72, long_context: 0.6, tool_use: 0.65 },
    disabled: true,
    failover: ['gpt-5-mini', 'gemini-2.5-pro'],
  },

  // ── xAI ─────────────────────────────────────────────────────────────────────────────
  {
    // "grok-4" (grok-4-0709) was retired on 2026-05-15; xAI names grok-4.3 as its
    // replacement. It charged double above 128k prompt tokens.
    model: 'grok-4', provider: 'xai',
    input_per_mtok: 3, output_per_mtok: 15, cached_input_per_mtok: 0.75, cache_write_multiplier: 1,
    input_modalities: [...TEXT_IMAGE], output_modalities: [...TEXT],
    tools: 'full', structured_outputs: true, reasoning_efforts: [],
    context_length: 256_000, max_output_tokens: 64_000, ...plain,
    strengths: { code: 0.82, reasoning: 0.88, math: 0.9, extraction: 0.82, classification: 0.82, chat: 0.84, vision: 0.72, long_context: 0.7, tool_use: 0.8 },
    disabled: true,
    failover: ['gpt-5', 'gemini-2.5-pro'],
  },
  {
    model: 'grok-3-mini', provider: 'xai',
    input_per_mtok: 0.3, output_per_mtok: 0.5, cached_input_per_mtok: 0.075, cache_write_multiplier: 1,
    input_modalities: [...TEXT], output_modalities: [...TEXT],
    tools: 'full', structured_outputs: true, reasoning_efforts: ['low', 'high'],
    context_length: 131_072, max_output_tokens: 32_768, ...plain,
    strengths: { code: 0.6, reasoning: 0.72, math: 0.82, extraction: 0.72, classification: 0.75, chat: 0.65, long_context: 0.58, tool_use: 0.62 },
    disabled: false,
    failover: ['gpt-5-mini', 'gemini-2.5-flash'],
  },

  // ── Groq ────────────────────────────────────────────────────────────────────────────
  // Both Llama models were decommissioned on Groq on 2026-08-16. Groq gave no cache
  // discount on them.
  {
    model: 'llama-3.3-70b-versatile', provider: 'groq',
    input_per_mtok: 0.59, output_per_mtok: 0.79, cached_input_per_mtok: 0.59, cache_write_multiplier: 1,
    input_modalities: [...TEXT], output_modalities: [...TEXT],
    tools: 'basic', structured_outputs: false, reasoning_efforts: [],
    context_length: 131_072, max_output_tokens: 32_768, ...plain,
    strengths: { code: 0.45, reasoning: 0.5, math: 0.45, extraction: 0.72, classification: 0.76, chat: 0.68, long_context: 0.55, tool_use: 0.58 },
    disabled: true,
    failover: ['meta-llama/Llama-3.3-70B-Instruct-Turbo', 'gpt-4.1-mini'],
    weights: 'llama-3.3-70b-instruct',
  },
  {
    model: 'llama-3.1-8b-instant', provider: 'groq',
    input_per_mtok: 0.05, output_per_mtok: 0.08, cached_input_per_mtok: 0.05, cache_write_multiplier: 1,
    input_modalities: [...TEXT], output_modalities: [...TEXT],
    tools: 'basic', structured_outputs: false, reasoning_efforts: [],
    context_length: 131_072, max_output_tokens: 131_072, ...plain,
    strengths: { code: 0.22, reasoning: 0.28, math: 0.25, extraction: 0.55, classification: 0.62, chat: 0.48, long_context: 0.4, tool_use: 0.4 },
    disabled: true,
    failover: ['gemini-2.5-flash-lite', 'gpt-4o-mini'],
  },

  // ── Together AI ─────────────────────────────────────────────────────────────────────
  // One price for input and output, and no cache discount. Together publishes no output
  // cap for Llama 3.3 apart from the context window; 32k is a conservative catalog limit.
  {
    model: 'meta-llama/Llama-3.3-70B-Instruct-Turbo', provider: 'together',
    input_per_mtok: 0.88, output_per_mtok: 0.88, cached_input_per_mtok: 0.88, cache_write_multiplier: 1,
    input_modalities: [...TEXT], output_modalities: [...TEXT],
    tools: 'basic', structured_outputs: true, reasoning_efforts: [],
    context_length: 131_072, max_output_tokens: 32_768, ...plain,
    strengths: { code: 0.45, reasoning: 0.5, math: 0.45, extraction: 0.72, classification: 0.76, chat: 0.68, long_context: 0.55, tool_use: 0.58 },
    disabled: false,
    failover: ['gpt-4.1-mini', 'gemini-2.5-flash'],

    weights: 'llama-3.3-70b-instruct',
  },
  {
    model: 'Qwen/Qwen2.5-72B-Instruct-Turbo', provider: 'together',
    input_per_mtok: 1.2, output_per_mtok: 1.2, cached_input_per_mtok: 1.2, cache_write_multiplier: 1,
    input_modalities: [...TEXT], output_modalities: [...TEXT],
    tools: 'basic', structured_outputs: true, reasoning_efforts: [],
    context_length: 32_768, max_output_tokens: 8_192, ...plain,
    strengths: { code: 0.55, reasoning: 0.55, math: 0.62, extraction: 0.75, classification: 0.76, chat: 0.68, long_context: 0.35, tool_use: 0.58 },
    disabled: false,
    failover: ['gpt-4.1-mini', 'gemini-2.5-flash'],
  },

  // ── Embedding models ────────────────────────────────────────────────────────────────
  // Served by POST /v1/embeddings only (output modality `embedding`), never routed for
  // chat and never failed over: another vendor's vectors live in another space. Input
  // tokens are all they bill; max_output_tokens is 1 because the schema wants a positive
  // cap and an embedding model writes no tokens. context_length is the longest input.
  ...([
    ['text-embedding-3-small', 'openai', 0.02, 8_191],
    ['text-embedding-3-large', 'openai', 0.13, 8_191],
    ['text-embedding-ada-002', 'openai', 0.1, 8_191],
    ['gemini-embedding-001', 'gemini', 0.15, 2_048],
    ['mistral-embed', 'mistral', 0.1, 8_192],
    ['codestral-embed', 'mistral', 0.15, 8_192],
    ['amazon.titan-embed-text-v2:0', 'bedrock', 0.02, 8_192],
    ['cohere.embed-english-v3', 'bedrock', 0.1, 512],
    ['cohere.embed-multilingual-v3', 'bedrock', 0.1, 512],
    ['BAAI/bge-base-en-v1.5', 'together', 0.008, 512],
    ['nomic-ai/nomic-embed-text-v1.5', 'fireworks', 0.008, 8_192],
  ] as const).map(([model, provider, input, context]): ModelProfile => ({
    model, provider,
    input_per_mtok: input, output_per_mtok: 0, cached_input_per_mtok: input, cache_write_multiplier: 1,
    input_modalities: [...TEXT], output_modalities: [...EMBEDDING],
    tools: 'none', structured_outputs: false, reasoning_efforts: [],
    context_length: context, max_output_tokens: 1, ...plain,
    strengths: {}, disabled: false, failover: [],
  })),
];
