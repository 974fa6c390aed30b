// Gemini's embedContent and batchEmbedContents as the Generative Language API answers
// them: {embedding: {values}} and {embeddings: [{values}]}, no usage. Requests are checked
// like the real API: unknown fields (protobuf JSON), empty content, a batch request naming
// another model than the URL, more than 100 requests, a bad taskType, an unknown model.
import { isRecord } from '../guards.ts';
import { MAGIC_MODELS } from '../faults.ts';
import { mockVector } from '../vectors.ts';
import { googleError, invalidArgument, payloadErrors, type GoogleError } from './errors.ts';

const MODELS: Readonly<Record<string, { dims: number; resizable: boolean }>> = {
  'text-embedding-004': { dims: 768, resizable: true },
  'gemini-embedding-001': { dims: 3072, resizable: true },
  'embedding-001': { dims: 768, resizable: false },
};

const FIELDS = new Set(['model', 'content', 'taskType', 'title', 'outputDimensionality']);
const TASK_TYPES = new Set([
  'TASK_TYPE_UNSPECIFIED', 'RETRIEVAL_QUERY', 'RETRIEVAL_DOCUMENT', 'SEMANTIC_SIMILARITY', 'CLASSIFICATION', 'CLUSTERING',
  'QUESTION_ANSWERING', 'FACT_VERIFICATION', 'CODE_RETRIEVAL_QUERY',
]);
const MAX_BATCH = 100;

export interface EmbedPlan {
  texts: string[];
  dims: number;
  batch: boolean;
}

const unknownField = (name: string, at: string): GoogleError =>
  payloadErrors([{ field: at, description: `Invalid JSON payload received. Unknown name "${name}" at '${at}': Cannot find field.` }]);

function textOf(req: Record<string, unknown>, where: string): string | GoogleError {
  const content = req.content;
  if (!isRecord(content) || !Array.isArray(content.parts) || content.parts.length === 0) return invalidArgument(`* ${where}.content: contents is not specified`);
  const texts: string[] = [];
  for (const p of content.parts) {
    if (!isRecord(p) || typeof p.text !== 'string') return invalidArgument(`* ${where}.content.parts: only text parts can be embedded`);
    texts.push(p.text);
  }
  const text = texts.join(' ');
  return text.trim() === '' ? invalidArgument(`* ${where}.content: contents is not specified`) : text;
}

function checkOne(req: unknown, where: string, at: string, model: string): string | GoogleError {
  if (!isRecord(req)) return invalidArgument(`* ${where}: must be an object`);
  for (const k of Object.keys(req)) if (!FIELDS.has(k)) return unknownField(k, at);
  if (req.taskType !== undefined && !TASK_TYPES.has(String(req.taskType))) {
    return payloadErrors([{ field: `${at}.task_type`, description: `Invalid value at '${at}.task_type' (type.googleapis.com/google.ai.generativelanguage.v1beta.TaskType), "${String(req.taskType)}"` }]);
  }
  if (req.outputDimensionality !== undefined) {
    const known = MODELS[model];
    const d = req.outputDimensionality;
    if (known && !known.resizable) return invalidArgument(`* ${where}.output_dimensionality: ${model} does not support output_dimensionality`);
    if (!Number.isInteger(d) || (d as number) < 1 || (known && (d as number) > known.dims)) return invalidArgument(`* ${where}.output_dimensionality: must be between 1 and ${known?.dims ?? 3072}`);
  }
  return textOf(req, where);
}

/** Validates one embedContent or batchEmbedContents body for `model` (from the URL). */
export function validateEmbed(body: unknown, model: string, batch: boolean, version: string): EmbedPlan | GoogleError {
  const magic = (MAGIC_MODELS as readonly string[]).includes(model);
  if (!Object.hasOwn(MODELS, model) && !magic) {
    return googleError('NOT_FOUND', `models/${model} is not found for API version ${version}, or is not supported for ${batch ? 'batchEmbedContents' : 'embedContent'}. Call ListModels to see the list of available models and their supported methods.`);
  }
  if (!isRecord(body)) return invalidArgument('Invalid JSON payload received.');
  const requests: unknown[] = [];
  if (batch) {
    for (const k of Object.keys(body)) if (k !== 'requests') return unknownField(k, k);
    if (!Array.isArray(body.requests) || body.requests.length === 0) return invalidArgument('* BatchEmbedContentsRequest.requests: must not be empty');
    if (body.requests.length > MAX_BATCH) return invalidArgument(`* BatchEmbedContentsRequest.requests: at most ${MAX_BATCH} requests can be in one batch`);
    for (const [i, r] of body.requests.entries()) {
      const named = isRecord(r) ? r.model : undefined;
      if (named !== `models/${model}`) return invalidArgument(`* BatchEmbedContentsRequest.requests[${i}].model: the model ${String(named)} does not match the model models/${model} in the URL`);
      requests.push(r);
    }
  } else {
    requests.push(body);
  }
  const texts: string[] = [];
  let dims = MODELS[model]?.dims ?? 8;
  for (const [i, r] of requests.entries()) {
    const where = batch ? `BatchEmbedContentsRequest.requests[${i}]` : 'EmbedContentRequest';
    const text = checkOne(r, where, batch ? `requests[${i}]` : '', model);
    if (typeof text !== 'string') return text;
    texts.push(text);
    const d = (r as Record<string, unknown>).outputDimensionality;
    if (typeof d === 'number') dims = d;
  }
  return { texts, dims, batch };
}

export function embedBody(plan: EmbedPlan): Record<string, unknown> {
  const vectors = plan.texts.map((t) => ({ values: mockVector(t, plan.dims) }));
  return plan.batch ? { embeddings: vectors } : { embedding: vectors[0] };
}
