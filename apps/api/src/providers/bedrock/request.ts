// OpenAI chat-completions body → Converse body, pure. The model travels in the URL,
// streaming is the choice of endpoint; everything else is messages.ts, tools.ts and
// the parameter table (params.ts). Either a body, or the phrase naming the first
// thing Converse cannot do.
import type { ChatBody } from '../types.ts';
import { translateMessages, type Result } from './messages.ts';
import { applyParams, refusedParam } from './params.ts';
import { translateTools } from './tools.ts';
import type { ConverseRequest } from './wire.ts';

export function toConverse(body: ChatBody, model: string): Result<ConverseRequest> {
  const refused = refusedParam(body, model);
  if (refused) return { ok: false, refusal: refused };
  if (!Array.isArray(body.messages)) return { ok: false, refusal: 'messages that are not a list' };
  const translated = translateMessages(body.messages);
  if (!translated.ok) return translated;
  const { system, messages, hasToolBlocks } = translated.value;
  const tools = translateTools(body, hasToolBlocks);
  if (!tools.ok) return tools;

  const out: ConverseRequest = { messages };
  if (system.length > 0) out.system = system;
  if (tools.value) out.toolConfig = tools.value;
  applyParams(body, model, out);
  return { ok: true, value: out };
}
