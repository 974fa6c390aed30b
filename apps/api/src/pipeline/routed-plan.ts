// What routing decided for an `auto` call (plan-routed.ts), as serving and learning read it,
// and how either runs one named candidate on the call's request.
import type { PipelineDeps } from './deps.ts';
import type { Candidate, CallContext } from './context.ts';
import { completeOn, type Completed } from './complete.ts';
import type { Decision, StepKey } from '../optimizer/optimizer.ts';
import type { JudgePanel } from '../optimizer/judge-panel.ts';
import type { RunCall } from '../optimizer/outcomes.ts';
import type { ChatBody } from '../providers/types.ts';

export interface RoutedPlan {
  decision: Decision;
  step: StepKey;
  baseline: string;
  judge: string;
  /** The tenant's panel of the configured judge and a cheaper candidate (none without a cheaper model). */
  panel?: JudgePanel;
  /** The call as remembered for its run's outcome (annotated calls only). */
  runCall?: RunCall;
  floor: number;
}

/** A completion of one named candidate (`model` or `model@effort`). */
export type Named = Completed & { name: string };

export function candidate(s: PipelineDeps, model: string): Candidate {
  const p = s.catalog.get(model);
  return { model, provider: p?.provider ?? 'openai', profile: p };
}

/**
 * Runs one named candidate: a model, or `model@effort` — the same model at a lower
 * reasoning effort (test-time compute as a candidate like a cheaper model).
 */
export async function runOn(ctx: CallContext, s: PipelineDeps, signal: AbortSignal, name: string, role: 'serve' | 'probe'): Promise<Named> {
  const at = name.lastIndexOf('@');
  const model = at > 0 ? name.slice(0, at) : name;
  const body = at > 0 ? ({ ...ctx.body, model, reasoning_effort: name.slice(at + 1) } as unknown as ChatBody) : undefined;
  const c = await completeOn(ctx, s, signal, candidate(s, model), role, body);
  return Object.assign(c, { name });
}
