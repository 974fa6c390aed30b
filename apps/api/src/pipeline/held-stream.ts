// A routed stream held behind the quality gate: when a routed call that streams asks for
// structured output or tools and its policy serves a model other than the baseline, the
// answer is read whole and checked first (serve-routed.ts), and only an answer that passed,
// or the baseline's after an escalation, is sent, as the chunks a vendor would have streamed
// (respond.ts, `respond` of a Served outcome).
// Nothing reaches the client before the gate's verdict, so an escalation costs no byte.
import type { CallContext } from './context.ts';
import type { RoutedPlan } from './routed-plan.ts';
import { asksForStructure } from './quality-gate.ts';
import { primaryModel } from '../optimizer/policies.ts';

/** Whether this routed stream is held: it asks for something the gate checks, and a model other than the baseline may answer it. */
export function holdsStream(ctx: CallContext, plan: RoutedPlan): boolean {
  return ctx.stream && asksForStructure(ctx.body) && (plan.decision.policy.kind !== 'model' || primaryModel(plan.decision.policy) !== plan.baseline);
}
