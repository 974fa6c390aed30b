// The catalog's model between its three shapes: the GraphQL result (camelCase, strengths
// as a list), the wire profile the shared zod schema validates (snake_case), and the
// GraphQL input. Field names map one to one, so errors can point at a form field.
import { modelProfileSchema, type ModelProfile } from '@optimizer/schema';
import type { Capability, ModelFieldsFragment, ModelInput } from '../gql/graphql.ts';

export type Model = ModelFieldsFragment;

export function toProfile(m: Model): ModelProfile {
  return {
    model: m.model,
    provider: m.provider,
    input_per_mtok: m.inputPerMtok,
    output_per_mtok: m.outputPerMtok,
    cached_input_per_mtok: m.cachedInputPerMtok,
    cache_write_multiplier: m.cacheWriteMultiplier,
    input_modalities: [...m.inputModalities],
    output_modalities: [...m.outputModalities],
    tools: m.tools,
    structured_outputs: m.structuredOutputs,
    reasoning_efforts: [...m.reasoningEfforts],
    context_length: m.contextLength,
    max_output_tokens: m.maxOutputTokens,
    search_only: m.searchOnly,
    moderation_only: m.moderationOnly,
    strengths: Object.fromEntries(m.strengths.map((s) => [s.capability, s.score])),
    disabled: m.disabled,
    failover: [...m.failover],
    ...(m.weights ? { weights: m.weights } : {}),
  };
}

export function toInput(p: ModelProfile): ModelInput {
  return {
    model: p.model,
    provider: p.provider,
    inputPerMtok: p.input_per_mtok,
    outputPerMtok: p.output_per_mtok,
    cachedInputPerMtok: p.cached_input_per_mtok,
    cacheWriteMultiplier: p.cache_write_multiplier,
    inputModalities: p.input_modalities,
    outputModalities: p.output_modalities,
    tools: p.tools,
    structuredOutputs: p.structured_outputs,
    reasoningEfforts: p.reasoning_efforts,
    contextLength: p.context_length,
    maxOutputTokens: p.max_output_tokens,
    searchOnly: p.search_only,
    moderationOnly: p.moderation_only,
    strengths: Object.entries(p.strengths).map(([capability, score]) => ({ capability: capability as Capability, score: score! })),
    disabled: p.disabled,
    failover: p.failover,
    weights: p.weights ?? null,
  };
}

/** A GraphQL field name as the wire's (inputPerMtok → input_per_mtok); dotted paths keep their tail. */
export function wireField(field: string): string {
  return field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

export type FieldErrors = Record<string, string>;

/** Validates with the shared schema; errors keyed by the wire path (e.g. input_per_mtok, strengths.code). */
export function validateProfile(p: unknown): { ok: true; profile: ModelProfile } | { ok: false; errors: FieldErrors } {
  const r = modelProfileSchema.safeParse(p);
  if (r.success) return { ok: true, profile: r.data };
  const errors: FieldErrors = {};
  for (const issue of r.error.issues) {
    const key = issue.path.join('.') || 'form';
    errors[key] ??= friendly(issue.message);
  }
  return { ok: false, errors };
}

/** zod's wording, made shorter for a form. */
export function friendly(message: string): string {
  if (/expected number, received (NaN|undefined)/.test(message)) return 'Enter a number';
  if (/expected int/.test(message)) return 'Enter a whole number';
  if (/Too small: expected number to be >=0/.test(message)) return 'Must be 0 or more';
  if (/Too small: expected number to be >0/.test(message)) return 'Must be more than 0';
  if (/Too small: expected array to have >=1/.test(message)) return 'Pick at least one';
  if (/Too big: expected number to be <=1/.test(message)) return 'At most 1';
  if (/Too small: expected string to have >=1/.test(message)) return 'Required';
  return message;
}
