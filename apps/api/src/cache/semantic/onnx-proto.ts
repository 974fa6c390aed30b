// The handful of ONNX protobuf messages a model needs (ModelProto, GraphProto, NodeProto,
// TensorProto, ValueInfoProto), written straight in protobuf's wire format. Enough for
// onnxruntime to load a graph built in memory (minilm-graph.ts); nothing here reads ONNX.
// Field numbers are onnx.proto's.

/** TensorProto.DataType values used here. */
export const DataType = { FLOAT: 1, INT64: 7, FLOAT16: 10 } as const;

const utf8 = new TextEncoder();

/** One protobuf message under construction: its encoded parts, concatenated once by `bytes()`. */
export class Message {
  readonly parts: Uint8Array[] = [];
  length = 0;

  private push(b: Uint8Array): void {
    this.parts.push(b);
    this.length += b.length;
  }

  private varint(value: number | bigint): void {
    let v = BigInt.asUintN(64, BigInt(value)); // negative int64 as ten bytes, like protobuf
    const out: number[] = [];
    while (v > 0x7fn) {
      out.push(Number(v & 0x7fn) | 0x80);
      v >>= 7n;
    }
    out.push(Number(v));
    this.push(Uint8Array.from(out));
  }

  private tag(field: number, wire: 0 | 2 | 5): void {
    this.varint((field << 3) | wire);
  }

  int(field: number, value: number | bigint): this {
    this.tag(field, 0);
    this.varint(value);
    return this;
  }

  float(field: number, value: number): this {
    this.tag(field, 5);
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, value, true);
    this.push(b);
    return this;
  }

  bytes(field: number, value: Uint8Array): this {
    this.tag(field, 2);
    this.varint(value.length);
    this.push(value);
    return this;
  }

  string(field: number, value: string): this {
    return this.bytes(field, utf8.encode(value));
  }

  message(field: number, m: Message): this {
    this.tag(field, 2);
    this.varint(m.length);
    for (const p of m.parts) this.push(p);
    return this;
  }

  /** The encoded message. */
  encode(): Uint8Array {
    const out = new Uint8Array(this.length);
    let at = 0;
    for (const p of this.parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  }
}

export function tensor(name: string, dataType: number, dims: readonly number[], raw: Uint8Array): Message {
  const t = new Message();
  for (const d of dims) t.int(1, d);
  return t.int(2, dataType).string(8, name).bytes(9, raw);
}

export function int64Tensor(name: string, values: readonly number[], dims: readonly number[] = [values.length]): Message {
  return tensor(name, DataType.INT64, dims, new Uint8Array(BigInt64Array.from(values, (v) => BigInt(v)).buffer));
}

export function floatScalar(name: string, value: number): Message {
  return tensor(name, DataType.FLOAT, [], new Uint8Array(Float32Array.of(value).buffer));
}

export type Attribute = { name: string; int: number } | { name: string; float: number } | { name: string; ints: readonly number[] };

function attribute(a: Attribute): Message {
  const m = new Message().string(1, a.name);
  if ('int' in a) return m.int(3, a.int).int(20, 2);
  if ('float' in a) return m.float(2, a.float).int(20, 1);
  for (const i of a.ints) m.int(8, i);
  return m.int(20, 7);
}

export function node(opType: string, inputs: readonly string[], outputs: readonly string[], attributes: readonly Attribute[] = []): Message {
  const n = new Message();
  for (const i of inputs) n.string(1, i);
  for (const o of outputs) n.string(2, o);
  n.string(3, outputs[0]!).string(4, opType);
  for (const a of attributes) n.message(5, attribute(a));
  return n;
}

/** A graph input or output: element type and shape, a string dimension being symbolic. */
export function valueInfo(name: string, elemType: number, dims: readonly (number | string)[]): Message {
  const shape = new Message();
  for (const d of dims) shape.message(1, typeof d === 'number' ? new Message().int(1, d) : new Message().string(2, d));
  const tensorType = new Message().int(1, elemType).message(2, shape);
  return new Message().string(1, name).message(2, new Message().message(1, tensorType));
}

export interface GraphParts {
  name: string;
  nodes: Message[];
  initializers: Message[];
  inputs: Message[];
  outputs: Message[];
}

/** A ModelProto (IR version 8, default domain at `opset`) holding one graph, encoded. */
export function model(g: GraphParts, opset: number, producer: string): Uint8Array {
  const graph = new Message();
  for (const n of g.nodes) graph.message(1, n);
  graph.string(2, g.name);
  for (const t of g.initializers) graph.message(5, t);
  for (const i of g.inputs) graph.message(11, i);
  for (const o of g.outputs) graph.message(12, o);
  return new Message()
    .int(1, 8)
    .string(2, producer)
    .message(7, graph)
    .message(8, new Message().string(1, '').int(2, opset))
    .encode();
}
