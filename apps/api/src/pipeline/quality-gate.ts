// The quality gate (design §6): cheap checks on a downshifted answer before it is
// served — non-empty, not cut off, not refused, JSON where JSON was asked for and valid
// against the request's `json_schema`, and tool calls to tools the request offered with
// arguments valid against each tool's parameter schema (schema-check.ts, Ajv).
import type { Completed } from './complete.ts';
import { schemaProblem } from './schema-check.ts';

interface ToolDef {
  type?: string;
  function?: { name?: string; parameters?: unknown; strict?: boolean };
}

/** Whether the request asks for an answer the gate can check beyond text: structured output or tools. */
export function asksForStructure(body: Record<string, unknown>): boolean {
  const rf = (body.response_format as { type?: string } | undefined)?.type;
  return rf === 'json_object' || rf === 'json_schema' || (Array.isArray(body.tools) && body.tools.length > 0);
}

function toolProblem(tools: Map<string | undefined, unknown>, call: { function?: { name?: string; arguments?: string } }): string | null {
  const name = call.function?.name;
  let args: unknown;
  try {
    args = JSON.parse(call.function?.arguments ?? '');
  } catch {
    return `calls ${name} with arguments that are not JSON`;
  }
  if (!tools.has(name)) return `calls an unknown tool ${name}`;
  const params = tools.get(name);
  if (params === undefined) return null; // a tool without parameters takes whatever it is given
  const wrong = schemaProblem(params, args);
  return wrong ? `calls ${name} with arguments that break its schema (${wrong})` : null;
}

/** What is wrong with the answer, or null when it passes. */
export function validateAnswer(body: Record<string, unknown>, c: Completed): string | null {
  let msg: { content?: string | null; tool_calls?: { function?: { name?: string; arguments?: string } }[]; refusal?: string | null } | undefined;
  try {
    msg = (JSON.parse(c.text) as { choices?: { message?: typeof msg }[] }).choices?.[0]?.message;
  } catch {
    return 'is not a readable completion';
  }
  if (!msg) return 'is empty';
  if (msg.refusal) return 'is a refusal';
  if (c.finishReason === 'content_filter') return 'was filtered';
  const asked = body.max_tokens !== undefined || body.max_completion_tokens !== undefined;
  if (c.finishReason === 'length' && !asked) return 'was cut off';
  const tools = new Map(((body.tools as ToolDef[] | undefined) ?? []).map((t) => [t.function?.name, t.function?.parameters]));
  if (msg.tool_calls?.length) {
    for (const t of msg.tool_calls) {
      const problem = toolProblem(tools, t);
      if (problem) return problem;
    }
    return null;
  }
  const content = msg.content ?? '';
  if (!content.trim()) return 'is empty';
  const rf = body.response_format as { type?: string; json_schema?: { schema?: unknown } } | undefined;
  if (rf?.type === 'json_object' || rf?.type === 'json_schema') {
    let value: unknown;
    try {
      value = JSON.parse(content);
    } catch {
      return 'is not the JSON the request asked for';
    }
    if (rf.type === 'json_schema') {
      const wrong = schemaProblem(rf.json_schema?.schema, value);
      if (wrong) return `breaks the request's JSON schema (${wrong})`;
    }
  }
  return null;
}
