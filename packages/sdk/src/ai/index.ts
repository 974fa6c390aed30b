// The Vercel AI SDK helper: a provider whose models send the `optimizer` annotation given as
// `providerOptions.optimizer` and hand back the response's cost block as
// `providerMetadata.optimizer` (generateText, streamText). Built on @ai-sdk/openai's
// chat-completions model, which speaks the gateway's wire format.
import { createOpenAI } from '@ai-sdk/openai';
import { wrapLanguageModel, type LanguageModelMiddleware } from 'ai';
import type { OptimizerAnnotation } from '@optimizer/schema';
import { normalizeBaseURL } from '../transport.ts';
import { ANNOTATION_HEADER, annotatingFetch, callInfo, checkAnnotation, readBlock, type OptimizerCallInfo } from '../shared/meta.ts';

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

type LanguageModel = ReturnType<typeof wrapLanguageModel>;
export type OptimizerProvider = (modelId: string) => LanguageModel;

function merge(base: OptimizerAnnotation | undefined, call: OptimizerAnnotation | undefined): OptimizerAnnotation | undefined {
  if (!base) return call;
  if (!call) return base;
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(call)) out[k] = { ...(base as Record<string, object | undefined>)[k], ...(v as object) };
  return out as OptimizerAnnotation;
}

/** The middleware: annotation in (through a header only this package's fetch reads), cost block out. */
export function optimizerMiddleware(defaults?: OptimizerAnnotation): LanguageModelMiddleware {
  return {
    transformParams: async ({ params }) => {
      const own = params.providerOptions?.optimizer;
      const annotation = merge(defaults, own === undefined ? undefined : checkAnnotation(own));
      if (!annotation) return params;
      return { ...params, headers: { ...params.headers, [ANNOTATION_HEADER]: JSON.stringify(annotation) } };
    },
    wrapGenerate: async ({ doGenerate }) => {
      const result = await doGenerate();
      const block = readBlock(result.response?.body);
      if (!block) return result;
      const info = callInfo(block, result.response?.headers);
      return { ...result, providerMetadata: { ...result.providerMetadata, optimizer: { ...info } } };
    },
    wrapStream: async ({ params, model }) => {
      // Raw chunks carry the gateway's final chunk with the block; the caller sees them only if it asked.
      const wanted = params.includeRawChunks === true;
      const out = await model.doStream({ ...params, includeRawChunks: true });
      let info: OptimizerCallInfo | null = null;
      const headers = out.response?.headers;
      const stream = out.stream.pipeThrough(
        new TransformStream({
          transform(part, controller) {
            if (part.type === 'raw') {
              const block = readBlock(part.rawValue);
              if (block) info = callInfo(block, headers);
              if (wanted) controller.enqueue(part);
              return;
            }
            if (part.type === 'finish' && info) {
              controller.enqueue({ ...part, providerMetadata: { ...part.providerMetadata, optimizer: { ...info } } });
              return;
            }
            controller.enqueue(part);
          },
        }),
      );
      return { ...out, stream };
    },
  };
}

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
  const middleware = optimizerMiddleware(opts.annotation);
  return (modelId) => wrapLanguageModel({ model: openai.chat(modelId), middleware });
}

/** The call's cost block, call id and served model from a generateText/streamText result (or its providerMetadata). */
export function optimizerInfo(result: { providerMetadata?: Record<string, unknown> | undefined } | Record<string, unknown> | undefined): OptimizerCallInfo | null {
  const meta = (result as { providerMetadata?: Record<string, unknown> } | undefined)?.providerMetadata ?? (result as Record<string, unknown> | undefined);
  const o = meta?.optimizer as OptimizerCallInfo | undefined;
  return o && typeof o.saving === 'number' ? o : null;
}
