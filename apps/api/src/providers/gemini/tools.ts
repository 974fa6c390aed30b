// OpenAI `tools` → Gemini `tools: [{functionDeclarations}]`. Only function tools exist
// on both sides; `strict` has no Gemini switch (Gemini always fills the declared schema).
import { isRecord } from './guards.ts';
import { isEmptyObjectSchema, toGeminiSchema } from './schema.ts';

export function toolsProblem(tools: unknown): string | null {
  if (tools === null || tools === undefined) return null;
  if (!Array.isArray(tools)) return 'tools that is not an array';
  for (const tool of tools) {
    if (!isRecord(tool) || tool.type !== 'function') return `tools of type "${isRecord(tool) ? String(tool.type) : typeof tool}" (Gemini takes function tools)`;
    if (!isRecord(tool.function) || typeof tool.function.name !== 'string') return 'a function tool without a name';
  }
  return null;
}

export function geminiTools(tools: unknown): Record<string, unknown>[] | undefined {
  if (!Array.isArray(tools) || tools.length === 0) return undefined;
  return [{ functionDeclarations: tools.map((t) => declaration((t as { function: Record<string, unknown> }).function)) }];
}

function declaration(fn: Record<string, unknown>): Record<string, unknown> {
  const parameters = isRecord(fn.parameters) ? toGeminiSchema(fn.parameters) : undefined;
  return {
    name: fn.name,
    ...(typeof fn.description === 'string' && fn.description ? { description: fn.description } : {}),
    // A function without arguments has no parameters: Gemini refuses an OBJECT with no properties.
    ...(parameters && !isEmptyObjectSchema(parameters) ? { parameters } : {}),
  };
}
