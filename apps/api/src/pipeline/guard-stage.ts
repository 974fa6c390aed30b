// Stage: guard — PII redaction and the prompt-injection policy (spec 4.5). It sits after
// annotate and before anything is cached, priced or sent, so nothing it redacts reaches a
// vendor, a cache, the meter or a log; the answer gets the originals back on the way out
// (respond.ts, stream.ts, cache-stage.ts through `ctx.guard.vault`). A tenant with the
// guard off (the default) costs one map lookup.
import type { GuardSettings } from '@optimizer/schema';
import { ApiError } from '../errors.ts';
import { guardMessages } from '../guard/guard.ts';
import type { CallContext } from './context.ts';

export function guardStage(ctx: CallContext, settings: GuardSettings): void {
  if (!settings.redact_pii && settings.injection === 'allow') return;
  const r = guardMessages(ctx.body.messages as unknown[], settings);
  ctx.guard = { vault: r.vault, findings: r.findings };
  if (r.blocked) throw new ApiError('prompt_injection_blocked');
  // a new body object: the client's own text (wire/serialized.ts) no longer describes it
  if (r.messages !== ctx.body.messages) ctx.body = { ...ctx.body, messages: r.messages };
}
