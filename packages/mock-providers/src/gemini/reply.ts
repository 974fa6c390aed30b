// What the mock answers: the scripted reply, or a deterministic one derived from the
// request (echo the last user text; call the forced or first function; fill a JSON schema).
import { isRecord } from '../guards.ts';
import { sampleFromSchema } from '../openai/schema-sample.ts';
import { estimateTokens } from '../openai/text.ts';
import type { FinishReason, ScriptedReply } from '../types.ts';
import type { Content, GenerateContentRequest, Part } from './request.ts';

export interface Candidate {
  index: number;
  parts: Part[];
  finishReason: string;
}

export interface UsageMetadata {
  promptTokenCount: number;
  candidatesTokenCount: number;
  totalTokenCount: number;
  cachedContentTokenCount?: number;
  thoughtsTokenCount?: number;
  promptTokensDetails: { modality: string; tokenCount: number }[];
  cacheTokensDetails?: { modality: string; tokenCount: number }[];
}

export interface GeminiReply {
  candidates: Candidate[];
  usage: UsageMetadata;
}

/** OpenAI's finish reasons in a script → Gemini's (a function call ends with STOP). */
const FINISH: Readonly<Record<FinishReason, string>> = { stop: 'STOP', tool_calls: 'STOP', function_call: 'STOP', length: 'MAX_TOKENS', content_filter: 'SAFETY' };

/** Gemini 2.5 signs its first function call of a turn when it thinks; a fixed stand-in. */
export const MOCK_SIGNATURE = 'Cm1vY2stdGhvdWdodC1zaWduYXR1cmU=';

export function buildReply(r: GenerateContentRequest, script: Partial<ScriptedReply> | undefined): GeminiReply {
  const s = script ?? {};
  const fallback = defaultAnswer(r);
  const scriptedCalls = s.tool_calls?.map((c): Part => ({ functionCall: { ...(c.id ? { id: c.id } : {}), name: c.name, args: parseArgs(c.arguments) } }));
  const content = s.content !== undefined ? s.content : scriptedCalls ? null : fallback.content;
  const calls = (scriptedCalls ?? (s.content !== undefined ? [] : fallback.calls)).map((p, i) => (i === 0 ? { ...p, thoughtSignature: MOCK_SIGNATURE } : p));
  const thinking = r.generationConfig?.thinkingConfig;
  const parts: Part[] = [
    ...(thinking?.includeThoughts === true ? [{ text: `Thinking about: ${lastUserText(r.contents ?? [], 40)}`, thought: true }] : []),
    ...(content ? [{ text: content }] : []),
    ...calls,
  ];
  const n = Math.max(1, Number(r.generationConfig?.candidateCount ?? 1));
  const finishReason = s.finish_reason ? FINISH[s.finish_reason] : 'STOP';
  const candidates = Array.from({ length: n }, (_, index) => ({ index, parts, finishReason }));

  const answerTokens = estimateTokens((content ?? '') + calls.map((p) => `${p.functionCall?.name}${JSON.stringify(p.functionCall?.args)}`).join(''));
  const budget = Number(thinking?.thinkingBudget ?? 0);
  const thoughts = s.usage?.reasoning_tokens ?? (budget > 0 ? Math.min(budget, 24) : 0);
  const prompt = s.usage?.prompt_tokens ?? estimateTokens(requestText(r));
  const cached = s.usage?.cached_tokens ?? 0;
  const candidatesTokens = s.usage ? Math.max(0, s.usage.completion_tokens - thoughts) : answerTokens * n;
  const usage: UsageMetadata = {
    promptTokenCount: prompt,
    candidatesTokenCount: candidatesTokens,
    totalTokenCount: prompt + candidatesTokens + thoughts,
    ...(cached > 0 ? { cachedContentTokenCount: cached } : {}),
    promptTokensDetails: [{ modality: 'TEXT', tokenCount: prompt }],
    ...(cached > 0 ? { cacheTokensDetails: [{ modality: 'TEXT', tokenCount: cached }] } : {}),
    ...(thoughts > 0 ? { thoughtsTokenCount: thoughts } : {}),
  };
  return { candidates, usage };
}

function parseArgs(text: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(text);
    return isRecord(v) ? v : {};
  } catch {
    return {};
  }
}

/**
 * With function declarations (and mode not NONE) the mock calls the allowed or first one.
 * After a function response it answers in text unless a call is forced (mode ANY), so loops end.
 */
function defaultAnswer(r: GenerateContentRequest): { content: string | null; calls: Part[] } {
  const declarations = (r.tools ?? []).flatMap((t) => t.functionDeclarations ?? []);
  const fcc = r.toolConfig?.functionCallingConfig;
  const mode = String(fcc?.mode ?? 'AUTO').toUpperCase();
  const afterResponse = (r.contents?.at(-1)?.parts ?? []).some((p) => p.functionResponse);
  if (declarations.length > 0 && mode !== 'NONE' && (mode === 'ANY' || !afterResponse)) {
    const allowed = fcc?.allowedFunctionNames ?? [];
    const fn = declarations.find((d) => allowed.includes(String(d.name))) ?? declarations[0]!;
    const args = sampleFromSchema(lowerTypes(fn.parameters ?? {}));
    return { content: null, calls: [{ functionCall: { name: String(fn.name), args: isRecord(args) ? args : {} } }] };
  }
  const text = `mock answer to: ${lastUserText(r.contents ?? [], 60)}`;
  const g = r.generationConfig;
  if (g?.responseSchema) return { content: JSON.stringify(sampleFromSchema(lowerTypes(g.responseSchema))), calls: [] };
  if (g?.responseMimeType === 'application/json') return { content: JSON.stringify({ answer: text }), calls: [] };
  return { content: text, calls: [] };
}

/** Gemini's schema types may be upper case (OBJECT); the sampler reads JSON Schema's lower case. */
function lowerTypes(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(lowerTypes);
  if (!isRecord(schema)) return schema;
  return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, k === 'type' && typeof v === 'string' ? v.toLowerCase() : k === 'example' || k === 'default' ? v : lowerTypes(v)]));
}

function partText(p: Part): string {
  if (typeof p.text === 'string') return p.text;
  if (p.functionCall) return `${p.functionCall.name ?? ''}${JSON.stringify(p.functionCall.args ?? {})}`;
  if (p.functionResponse) return `${p.functionResponse.name ?? ''}${JSON.stringify(p.functionResponse.response ?? {})}`;
  return '';
}

/** All text the model reads: the system instruction and every part of every turn. */
export function requestText(r: GenerateContentRequest): string {
  const contents: Content[] = [...(r.systemInstruction ? [r.systemInstruction] : []), ...(r.contents ?? [])];
  return contents.flatMap((c) => (c.parts ?? []).map(partText)).join('');
}

export function lastUserText(contents: Content[], maxChars: number): string {
  const last = contents.findLast((c) => (c.role ?? 'user') === 'user' && (c.parts ?? []).some((p) => typeof p.text === 'string'));
  const text = (last?.parts ?? [])
    .filter((p) => typeof p.text === 'string' && !p.thought)
    .map((p) => p.text)
    .join(' ');
  return text.replace(/\s+/g, ' ').trim().slice(0, maxChars);
}
