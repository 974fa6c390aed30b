// The one interface every sentence embedder of the semantic cache implements.

export interface Embedder {
  /** Length of every vector `embed` returns. */
  readonly dims: number;
  /** Short name for logs and benchmark output ("onnx-minilm", "lexical"). */
  readonly name: string;
  /** One L2-normalised vector per text, in order. */
  embed(texts: string[]): Promise<Float32Array[]>;
  /** Frees the model / worker thread. Pending `embed` calls are rejected. */
  close(): Promise<void>;
}

/** Worker protocol of the ONNX embedder (main thread ⇄ onnx-worker.ts). */
export type WorkerRequest = { type: 'embed'; id: number; texts: string[] } | { type: 'close' };

export type WorkerResponse =
  | { type: 'ready'; dims: number }
  | { type: 'init-error'; message: string }
  | { type: 'result'; id: number; dims: number; data: Float32Array }
  | { type: 'error'; id: number; message: string };

export interface WorkerInit {
  modelDir: string;
  maxTokens: number;
  intraOpThreads: number;
}
