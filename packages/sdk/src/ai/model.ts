// The AI SDK model wrapper, written against no one major of `ai`: it wraps a chat model from
// whichever `@ai-sdk/openai` is installed (2, 3 or 4: model specification v2, v3 or v4) and
// keeps that model's own shape, so `ai` 5, 6 and 7 each take it as their own. The call's
// `providerOptions.optimizer` goes out as the annotation (through a header only the SDK's
// fetch reads); the response's cost block comes back as `providerMetadata.optimizer`, on the
// generate result and on a stream's finish part.
import type { OptimizerAnnotation } from '@optimizer/schema';
import { ANNOTATION_HEADER, callInfo, checkAnnotation, readBlock, type OptimizerCallInfo } from '../shared/meta.ts';
import { mergeAnnotations } from '../shared/merge.ts';

type Meta = Record<string, Record<string, unknown>>;
type HeaderBag = Record<string, string | undefined>;

/** What the wrapper needs of a model; every specification version since v2 has it. */
export interface ChatModelLike {
  readonly specificationVersion: string;
  doGenerate(options: never): PromiseLike<unknown>;
  doStream(options: never): PromiseLike<unknown>;
}

interface CallOptions {
  headers?: HeaderBag;
  providerOptions?: Record<string, unknown>;
  includeRawChunks?: boolean;
  [k: string]: unknown;
}

interface GenerateResult {
  providerMetadata?: Meta;
  response?: { headers?: HeaderBag; body?: unknown };
  [k: string]: unknown;
}

interface StreamPart {
  type: string;
  rawValue?: unknown;
  providerMetadata?: Meta;
}

interface StreamResult {
  stream: ReadableStream<StreamPart>;
  response?: { headers?: HeaderBag };
  [k: string]: unknown;
}

function annotated(params: CallOptions, defaults: OptimizerAnnotation | undefined): CallOptions {
  const own = params.providerOptions?.optimizer;
  const annotation = mergeAnnotations(defaults, own === undefined ? undefined : checkAnnotation(own));
  if (!annotation) return params;
  return { ...params, headers: { ...params.headers, [ANNOTATION_HEADER]: JSON.stringify(annotation) } };
}

const withInfo = (meta: Meta | undefined, info: OptimizerCallInfo): Meta => ({ ...meta, optimizer: { ...info } });

/**
 * Wraps a chat model whose provider sends through the SDK's annotating fetch. The wrapper
 * inherits everything else from the model (its provider, id, supported URLs, specification
 * version), so it is the same kind of model to the `ai` that drives it.
 */
export function optimizerModel<M extends ChatModelLike>(inner: M, defaults?: OptimizerAnnotation): M {
  const generate = inner.doGenerate.bind(inner) as unknown as (o: CallOptions) => Promise<GenerateResult>;
  const stream = inner.doStream.bind(inner) as unknown as (o: CallOptions) => Promise<StreamResult>;
  const wrapped = Object.create(inner) as M & { doGenerate: unknown; doStream: unknown };

  wrapped.doGenerate = async (params: CallOptions): Promise<GenerateResult> => {
    const result = await generate(annotated(params, defaults));
    const block = readBlock(result.response?.body);
    if (!block) return result;
    return { ...result, providerMetadata: withInfo(result.providerMetadata, callInfo(block, result.response?.headers)) };
  };

  wrapped.doStream = async (params: CallOptions): Promise<StreamResult> => {
    // Raw chunks carry the gateway's final chunk with the block; the caller sees them only if it asked.
    const wanted = params.includeRawChunks === true;
    const out = await stream({ ...annotated(params, defaults), includeRawChunks: true });
    const headers = out.response?.headers;
    let info: OptimizerCallInfo | null = null;
    const parts = out.stream.pipeThrough(
      new TransformStream<StreamPart, StreamPart>({
        transform(part, controller) {
          if (part.type === 'raw') {
            const block = readBlock(part.rawValue);
            if (block) info = callInfo(block, headers);
            if (wanted) controller.enqueue(part);
            return;
          }
          if (part.type === 'finish' && info) {
            controller.enqueue({ ...part, providerMetadata: withInfo(part.providerMetadata, info) });
            return;
          }
          controller.enqueue(part);
        },
      }),
    );
    return { ...out, stream: parts };
  };
  return wrapped;
}
