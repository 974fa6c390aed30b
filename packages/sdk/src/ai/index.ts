// The Vercel AI SDK helper: a provider whose models send the `optimizer` annotation given as
// `providerOptions.optimizer` and hand back the response's cost block, call id and served
// model as `providerMetadata.optimizer` (generateText, streamText). Built on the installed
// `@ai-sdk/openai`'s chat-completions model (major 2, 3 or 4, for `ai` 5, 6 or 7), which
// speaks the gateway's wire format.
import { createOpenAI } from '@ai-sdk/openai';
import type { OptimizerAnnotation } from '@optimizer/schema';
import { normalizeBaseURL } from '../transport.ts';
import { annotatingFetch, type OptimizerCallInfo } from '../shared/meta.ts';
import { optimizerModel } from './model.ts';

export type { OptimizerAnnotation, OptimizerCallInfo };

export interface OptimizerProviderOptions {
  /** The gateway's origin, e.g. http://127.0.0.1:8080 (a trailing /v1 is accepted). */
  baseURL: string;
  /** The tenant key (sk-opt-...). */
  apiKey: string;
  /** An annotation sent on every call; a call's providerOptions.optimizer is merged over it. */
  annotation?: OptimizerAnnotation;
  headers?: Record<string, string>;
  fetch?: typeof fetch;
}

/** A chat model of the installed `@ai-sdk/openai`, which its own `ai` major takes. */
export type OptimizerLanguageModel = ReturnType<ReturnType<typeof createOpenAI>['chat']>;
export type OptimizerProvider = (modelId: string) => OptimizerLanguageModel;

/**
 * A model factory for the AI SDK: `generateText({ model: optimizer('auto'), providerOptions:
 * { optimizer: { step: { id: 'triage' } } } })`.
 */
export function createOptimizer(opts: OptimizerProviderOptions): OptimizerProvider {
  const openai = createOpenAI({
    name: 'optimizer',
    baseURL: `${normalizeBaseURL(opts.baseURL)}/v1`,
    apiKey: opts.apiKey,
    headers: opts.headers,
    fetch: annotatingFetch(opts.fetch),
  });
  return (modelId) => optimizerModel(openai.chat(modelId), opts.annotation);
}

/** The call's cost block, call id and served model from a generateText/streamText result (or its providerMetadata). */
export function optimizerInfo(result: { providerMetadata?: Record<string, unknown> | undefined } | Record<string, unknown> | undefined): OptimizerCallInfo | null {
  const meta = (result as { providerMetadata?: Record<string, unknown> } | undefined)?.providerMetadata ?? (result as Record<string, unknown> | undefined);
  const o = meta?.optimizer as OptimizerCallInfo | undefined;
  return o && typeof o.saving === 'number' ? o : null;
}
