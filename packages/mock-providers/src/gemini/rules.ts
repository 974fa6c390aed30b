// The checks Gemini makes once the body parses: contents present, valid roles, non-empty
// parts, function-call and function-response turns in the right places, valid function
// names, non-empty OBJECT schemas. Each answers 400 INVALID_ARGUMENT with Gemini's text.
import { isRecord } from '../guards.ts';
import { invalidArgument, type GoogleError } from './errors.ts';
import type { GenerateContentRequest, Content, Part } from './request.ts';

const DATA_FIELDS = ['text', 'inlineData', 'fileData', 'functionCall', 'functionResponse', 'executableCode', 'codeExecutionResult'] as const;
const FUNCTION_NAME = /^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$/;

const field = (path: string, problem: string): GoogleError => invalidArgument(`* GenerateContentRequest.${path}: ${problem}\n`);

export function checkRequest(r: GenerateContentRequest): GoogleError | null {
  return checkContents(r.contents) ?? checkTurnOrder(r.contents ?? []) ?? checkSystem(r.systemInstruction) ?? checkTools(r) ?? checkGenerationConfig(r);
}

function checkContents(contents: Content[] | undefined): GoogleError | null {
  if (!contents || contents.length === 0) return field('contents', 'contents is not specified');
  for (const [i, c] of contents.entries()) {
    if (c.role !== undefined && c.role !== '' && c.role !== 'user' && c.role !== 'model') return invalidArgument('Please use a valid role: user, model.');
    const problem = checkParts(c.parts, `contents[${i}]`);
    if (problem) return problem;
  }
  return null;
}

function checkSystem(system: Content | undefined): GoogleError | null {
  return system ? checkParts(system.parts, 'system_instruction') : null;
}

function checkParts(parts: Part[] | undefined, at: string): GoogleError | null {
  if (!parts || parts.length === 0) return field(`${at}.parts`, 'contents.parts must not be empty.');
  for (const [j, p] of parts.entries()) {
    if (!DATA_FIELDS.some((k) => p[k] !== undefined)) return field(`${at}.parts[${j}].data`, "required oneof field 'data' must have one initialized field");
    if (p.functionCall && !p.functionCall.name) return field(`${at}.parts[${j}].function_call.name`, 'Name cannot be empty.');
    if (p.functionResponse && !p.functionResponse.name) return field(`${at}.parts[${j}].function_response.name`, 'Name cannot be empty.');
  }
  return null;
}

const calls = (c: Content | undefined): number => (c?.parts ?? []).filter((p) => p.functionCall).length;
const responses = (c: Content | undefined): number => (c?.parts ?? []).filter((p) => p.functionResponse).length;

/** A function-call turn follows a user turn; a function-response turn answers the call turn before it, part for part. */
function checkTurnOrder(contents: Content[]): GoogleError | null {
  for (const [i, c] of contents.entries()) {
    const prev = contents[i - 1];
    if (calls(c) > 0 && (c.role !== 'model' || !prev || prev.role === 'model')) {
      return invalidArgument('Please ensure that function call turn comes immediately after a user turn or after a function response turn.');
    }
    if (responses(c) > 0) {
      if (calls(prev) === 0) return invalidArgument('Please ensure that function response turn comes immediately after a function call turn.');
      if (responses(c) !== calls(prev)) {
        return invalidArgument('Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.');
      }
    }
  }
  return null;
}

function checkTools(r: GenerateContentRequest): GoogleError | null {
  for (const [i, tool] of (r.tools ?? []).entries()) {
    for (const [j, fn] of (tool.functionDeclarations ?? []).entries()) {
      const at = `tools[${i}].function_declarations[${j}]`;
      if (typeof fn.name !== 'string' || !FUNCTION_NAME.test(fn.name)) {
        return field(
          `${at}.name`,
          'Invalid function name. Must start with a letter or an underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots (.), colons (:), or dashes (-), with a maximum length of 64.',
        );
      }
      const schemaProblem = fn.parameters ? checkSchema(fn.parameters, `${at}.parameters`) : null;
      if (schemaProblem) return schemaProblem;
    }
  }
  const fcc = r.toolConfig?.functionCallingConfig;
  if (fcc?.allowedFunctionNames?.length && !['ANY', 'VALIDATED'].includes(String(fcc.mode ?? '').toUpperCase())) {
    return field('tool_config.function_calling_config.allowed_function_names', 'allowed_function_names may be set only when function calling mode is ANY or VALIDATED.');
  }
  return null;
}

function checkSchema(schema: Record<string, unknown>, at: string): GoogleError | null {
  if (String(schema.type).toUpperCase() === 'OBJECT' && isRecord(schema.properties) && Object.keys(schema.properties).length === 0) {
    return field(`${at}.properties`, 'should be non-empty for OBJECT type');
  }
  const subs: [string, unknown][] = [
    ...Object.values(isRecord(schema.properties) ? schema.properties : {}).map((s, i) => [`${at}.properties[${i}].value`, s] as [string, unknown]),
    [`${at}.items`, schema.items],
    ...(Array.isArray(schema.anyOf) ? schema.anyOf : []).map((s, i) => [`${at}.any_of[${i}]`, s] as [string, unknown]),
  ];
  for (const [path, sub] of subs) {
    const problem = isRecord(sub) ? checkSchema(sub, path) : null;
    if (problem) return problem;
  }
  return null;
}

function checkGenerationConfig(r: GenerateContentRequest): GoogleError | null {
  const g = r.generationConfig;
  if (!g) return null;
  if (g.responseSchema && g.responseMimeType !== 'application/json' && g.responseMimeType !== 'text/x.enum') {
    return field('generation_config.response_mime_type', 'response_mime_type must be application/json or text/x.enum when response_schema is set.');
  }
  if (g.responseSchema) return checkSchema(g.responseSchema, 'generation_config.response_schema');
  return null;
}
