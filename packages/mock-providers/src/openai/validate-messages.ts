// Validation of `messages`: shape, roles, and the tool-call pairing rules the real vendor enforces.
import { isRecord, type JsonObject } from '../guards.ts';
import { invalidRequest, type ApiError } from './errors.ts';
import { typeMessage } from './describe.ts';

const ROLES = ['system', 'developer', 'user', 'assistant', 'tool'];

export function validateMessages(messages: unknown): ApiError | null {
  if (messages === undefined || messages === null) {
    return invalidRequest("Missing required parameter: 'messages'.", 'messages', 'missing_required_parameter');
  }
  if (!Array.isArray(messages)) {
    return invalidRequest(typeMessage('messages', 'an array of objects', messages), 'messages', 'invalid_type');
  }
  if (messages.length === 0) {
    return invalidRequest(
      "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
      'messages',
      'empty_array',
    );
  }
  for (let i = 0; i < messages.length; i++) {
    const error = validateMessage(messages[i], `messages[${i}]`);
    if (error) return error;
  }
  return validateToolPairing(messages as JsonObject[]);
}

function missing(param: string): ApiError {
  return invalidRequest(`Missing required parameter: '${param}'.`, param, 'missing_required_parameter');
}

function validateMessage(message: unknown, at: string): ApiError | null {
  if (!isRecord(message)) return invalidRequest(typeMessage(at, 'an object', message), at, 'invalid_type');
  const role = message.role;
  if (role === undefined) return missing(`${at}.role`);
  if (typeof role !== 'string' || !ROLES.includes(role)) {
    return invalidRequest(
      `Invalid value: '${String(role)}'. Supported values are: 'system', 'assistant', 'user', 'tool', and 'developer'.`,
      `${at}.role`,
      'invalid_value',
    );
  }
  const content = message.content;
  const hasToolCalls = Array.isArray(message.tool_calls) && message.tool_calls.length > 0;
  if (content === undefined || content === null) {
    if (role !== 'assistant' || (!hasToolCalls && message.refusal == null)) return missing(`${at}.content`);
  } else if (typeof content !== 'string' && !Array.isArray(content)) {
    return invalidRequest(
      typeMessage(`${at}.content`, 'one of a string or array of objects', content),
      `${at}.content`,
      'invalid_type',
    );
  }
  if (role === 'tool' && typeof message.tool_call_id !== 'string') return missing(`${at}.tool_call_id`);
  if (message.tool_calls !== undefined) {
    if (role !== 'assistant' || !Array.isArray(message.tool_calls)) {
      return invalidRequest(typeMessage(`${at}.tool_calls`, 'an array of objects', message.tool_calls), `${at}.tool_calls`, 'invalid_type');
    }
    for (let j = 0; j < message.tool_calls.length; j++) {
      const call: unknown = message.tool_calls[j];
      const callAt = `${at}.tool_calls[${j}]`;
      if (!isRecord(call)) return invalidRequest(typeMessage(callAt, 'an object', call), callAt, 'invalid_type');
      if (typeof call.id !== 'string') return missing(`${callAt}.id`);
      if (!isRecord(call.function) || typeof call.function.name !== 'string') return missing(`${callAt}.function.name`);
      if (typeof call.function.arguments !== 'string') return missing(`${callAt}.function.arguments`);
    }
  }
  return null;
}

/** Tool messages must answer a preceding assistant `tool_calls`, and every tool call must be answered. */
function validateToolPairing(messages: JsonObject[]): ApiError | null {
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i] as JsonObject;
    const previous = messages[i - 1];
    if (message.role === 'tool') {
      const answersCall = previous?.role === 'tool' || (previous?.role === 'assistant' && Array.isArray(previous.tool_calls) && previous.tool_calls.length > 0);
      if (!answersCall) {
        return invalidRequest(
          "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          `messages.[${i}].role`,
        );
      }
    }
    if (message.role === 'assistant' && Array.isArray(message.tool_calls) && message.tool_calls.length > 0) {
      const answered = new Set<unknown>();
      for (let k = i + 1; k < messages.length && messages[k]?.role === 'tool'; k++) answered.add(messages[k]?.tool_call_id);
      const unanswered = (message.tool_calls as JsonObject[]).map((c) => c.id).filter((id) => !answered.has(id));
      if (unanswered.length > 0) {
        return invalidRequest(
          `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${unanswered.join(', ')}`,
          `messages.[${i}].role`,
        );
      }
    }
  }
  return null;
}
