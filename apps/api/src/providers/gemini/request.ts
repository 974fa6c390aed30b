// OpenAI chat-completions body → Gemini generateContent body, as a pure function.
import type { ChatBody } from '../types.ts';
import { convertMessages } from './messages.ts';
import { applyParams, paramProblem } from './params.ts';
import { geminiTools, toolsProblem } from './tools.ts';

/** The first thing in this request Gemini cannot do, as a short phrase, or null. */
export function requestProblem(body: ChatBody, model: string): string | null {
  const converted = convertMessages(body.messages, model);
  return paramProblem(body) ?? (converted.ok ? null : converted.problem) ?? toolsProblem(body.tools);
}

export function geminiRequestBody(body: ChatBody, model: string): Record<string, unknown> {
  const converted = convertMessages(body.messages, model);
  // The gateway asks `unsupported()` first; reaching this is a bug in the caller.
  if (!converted.ok) throw new TypeError(`gemini cannot translate this request: ${converted.problem}`);
  const tools = geminiTools(body.tools);
  return {
    contents: converted.contents,
    ...(converted.systemInstruction ? { systemInstruction: converted.systemInstruction } : {}),
    ...(tools ? { tools } : {}),
    ...applyParams(body),
  };
}
