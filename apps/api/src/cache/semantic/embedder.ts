// Picks the embedder: all-MiniLM-L6-v2 on onnxruntime when a model directory loads,
// otherwise the lexical fallback (with a reason the caller can log).
import { LexicalEmbedder } from './lexical.ts';
import { OnnxMiniLM, type OnnxMiniLMOptions } from './onnx-embedder.ts';
import type { Embedder } from './types.ts';

export interface CreateEmbedderOptions extends OnnxMiniLMOptions {
  /** Use the lexical embedder without trying the model. */
  lexical?: boolean;
  /** Told why the model did not load when the lexical fallback is used. */
  onFallback?: (reason: string) => void;
}

export async function createEmbedder(opts: CreateEmbedderOptions = {}): Promise<Embedder> {
  if (opts.lexical) return new LexicalEmbedder();
  const onnx = new OnnxMiniLM(opts);
  try {
    await onnx.ready;
    return onnx;
  } catch (err) {
    await onnx.close();
    opts.onFallback?.(err instanceof Error ? err.message : String(err));
    return new LexicalEmbedder();
  }
}
