// Reading a vendor's whole JSON answer: its text checked against the vendor's shape, and its
// usage estimated when the vendor reports none (a stream's too).
import type { CallContext } from './context.ts';
import type { Dispatched, ReadAnswer } from './dispatch.ts';
import { transportError } from './dispatch.ts';
import type { Usage } from '../wire/usage.ts';
import { countPromptTokens, countTokens } from './tokens.ts';
import { sentSecrets } from '../providers/redact.ts';
import { upstreamInvalid } from '../providers/vendor-shape.ts';

export function estimateUsage(ctx: CallContext, completionText: string): Usage {
  const messages = Array.isArray(ctx.body.messages) ? (ctx.body.messages as unknown[]) : [];
  return { promptTokens: countPromptTokens(messages), completionTokens: countTokens(completionText), cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, estimated: true };
}

export function completionText(json: string): string {
  try {
    const j = JSON.parse(json) as { choices?: { message?: { content?: string | null } }[] };
    return (j.choices ?? []).map((c) => c.message?.content ?? '').join('');
  } catch {
    return '';
  }
}

/**
 * Reads a dispatched JSON answer whole and checks it is the vendor's shape: a transfer that
 * fails is the catalogue's transport error, an answer not in the shape a 502 `upstream_invalid`
 * (never a 200 with what the vendor sent). The dispatch policy calls this before it counts the
 * vendor as having answered, so both count on the vendor's circuit and may fail over.
 */
export async function readAnswer(d: Dispatched): Promise<ReadAnswer> {
  let text: string;
  try {
    text = await d.response.body.text();
  } catch (err) {
    d.attempt.outcome = 'error';
    d.attempt.latencyMs = performance.now() - d.startedAt;
    throw transportError(err, d.target.provider.name);
  }
  const upstreamMs = performance.now() - d.startedAt;
  try {
    return { parsed: d.adapter.parseResponse(text, d.target), upstreamMs };
  } catch (err) {
    d.attempt.outcome = 'error';
    d.attempt.latencyMs = upstreamMs;
    throw upstreamInvalid(d.target.provider.name, err, text, sentSecrets(d.target));
  }
}

