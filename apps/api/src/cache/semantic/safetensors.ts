// Reads a safetensors file: an 8-byte little-endian header length, a JSON header naming
// each tensor's dtype, shape and byte range, then the bytes. Views, no copies.
import { readFileSync } from 'node:fs';

export interface StoredTensor {
  dtype: string;
  shape: number[];
  /** The tensor's bytes, little-endian, row-major. */
  bytes: Uint8Array;
}

export function readSafetensors(path: string): Map<string, StoredTensor> {
  const file = readFileSync(path);
  if (file.length < 8) throw new Error(`${path} is not a safetensors file (${file.length} bytes)`);
  const headerLength = Number(file.readBigUInt64LE(0));
  if (headerLength > file.length - 8) throw new Error(`${path}: header length ${headerLength} runs past the end of the file`);
  const header = JSON.parse(file.subarray(8, 8 + headerLength).toString('utf8')) as Record<string, unknown>;
  const data = file.subarray(8 + headerLength);
  const out = new Map<string, StoredTensor>();
  for (const [name, v] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    const t = v as { dtype?: unknown; shape?: unknown; data_offsets?: unknown };
    const [start, end] = Array.isArray(t.data_offsets) ? (t.data_offsets as number[]) : [];
    if (typeof t.dtype !== 'string' || !Array.isArray(t.shape) || typeof start !== 'number' || typeof end !== 'number' || end > data.length || start > end) {
      throw new Error(`${path}: tensor ${name} has a malformed header entry`);
    }
    out.set(name, { dtype: t.dtype, shape: t.shape as number[], bytes: data.subarray(start, end) });
  }
  return out;
}
