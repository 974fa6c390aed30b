// The LangChain helper: a ChatOpenAI (chat-completions) model that sends the `optimizer`
// annotation (set on the model, or per call as the `optimizer` call option) and puts the
// response's cost block, call id and served model on the answer's
// `response_metadata.optimizer`, for invoke and for stream (on the last chunk).
import { ChatOpenAICompletions, type ChatOpenAICallOptions, type ChatOpenAIFields } from '@langchain/openai';
import type { BaseMessage } from '@langchain/core/messages';
import { AIMessageChunk } from '@langchain/core/messages';
import type { CallbackManagerForLLMRun } from '@langchain/core/callbacks/manager';
import { ChatGenerationChunk, type ChatResult } from '@langchain/core/outputs';
import type { OptimizerAnnotation } from '@optimizer/schema';
import { normalizeBaseURL } from '../transport.ts';
import { checkAnnotation, type OptimizerCallInfo } from '../shared/meta.ts';
import { BlockCapture } from './capture.ts';
import { mergeAnnotations } from '../shared/merge.ts';

export type { OptimizerAnnotation, OptimizerCallInfo };

export interface OptimizerChatCallOptions extends ChatOpenAICallOptions {
  /** This call's annotation, merged over the model's. */
  optimizer?: OptimizerAnnotation;
}

export interface OptimizerChatFields extends Omit<ChatOpenAIFields, 'configuration' | 'apiKey'> {
  /** The gateway's origin, e.g. http://127.0.0.1:8080 (a trailing /v1 is accepted). */
  baseURL: string;
  /** The tenant key (sk-opt-...). */
  apiKey: string;
  /** Sent on every call; a call's `optimizer` option is merged over it. */
  annotation?: OptimizerAnnotation;
  fetch?: typeof fetch;
}

const RAW = '__raw_response';

function rawId(msg: BaseMessage): string | null {
  const raw = msg.additional_kwargs?.[RAW] as { id?: unknown } | undefined;
  delete msg.additional_kwargs?.[RAW];
  return typeof raw?.id === 'string' ? raw.id : null;
}

export class OptimizerChatOpenAI extends ChatOpenAICompletions<OptimizerChatCallOptions> {
  readonly annotation: OptimizerAnnotation | undefined;
  readonly #capture: BlockCapture;

  static override lc_name(): string {
    return 'OptimizerChatOpenAI';
  }

  constructor(fields: OptimizerChatFields) {
    const { baseURL, apiKey, annotation, fetch: innerFetch, ...rest } = fields;
    const capture = new BlockCapture();
    // __includeRawResponse hands each answer's raw body to _generate, which reads its id to pair it with its block.
    super({ ...rest, apiKey, configuration: { baseURL: `${normalizeBaseURL(baseURL)}/v1`, fetch: capture.fetch(innerFetch) }, __includeRawResponse: true });
    this.annotation = annotation === undefined ? undefined : checkAnnotation(annotation);
    this.#capture = capture;
  }

  override invocationParams(options?: this['ParsedCallOptions'], extra?: { streaming?: boolean }): ReturnType<ChatOpenAICompletions['invocationParams']> {
    const params = super.invocationParams(options, extra);
    const own = options?.optimizer;
    const optimizer = mergeAnnotations(this.annotation, own === undefined ? undefined : checkAnnotation(own));
    return (optimizer ? { ...params, optimizer } : params) as ReturnType<ChatOpenAICompletions['invocationParams']>;
  }

  override async _generate(messages: BaseMessage[], options: this['ParsedCallOptions'], runManager?: CallbackManagerForLLMRun): Promise<ChatResult> {
    const result = await super._generate(messages, options, runManager);
    for (const g of result.generations) {
      const id = rawId(g.message);
      const info = id === null ? null : await this.#capture.take(id);
      if (info) g.message.response_metadata = { ...g.message.response_metadata, optimizer: info };
    }
    return result;
  }

  override async *_streamResponseChunks(messages: BaseMessage[], options: this['ParsedCallOptions'], runManager?: CallbackManagerForLLMRun): AsyncGenerator<ChatGenerationChunk> {
    let id: string | null = null;
    for await (const chunk of super._streamResponseChunks(messages, options, runManager)) {
      const seen = rawId(chunk.message);
      id ??= seen;
      yield chunk;
    }
    const info = id === null ? null : await this.#capture.take(id);
    if (info) yield new ChatGenerationChunk({ text: '', message: new AIMessageChunk({ content: '', response_metadata: { optimizer: info } }) });
  }
}

/** The cost block, call id and served model of a LangChain answer (an AIMessage or the concatenated stream). */
export function optimizerInfo(message: { response_metadata?: Record<string, unknown> } | undefined): OptimizerCallInfo | null {
  const o = message?.response_metadata?.optimizer as OptimizerCallInfo | undefined;
  return o && typeof o.saving === 'number' ? o : null;
}
