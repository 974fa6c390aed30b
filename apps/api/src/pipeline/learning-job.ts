// Hands an answered routed call's learning to the learning queue (learning-queue.ts): the job
// runs learn.ts on the call's context, then meters what it spent on the call (meter-call.ts,
// meterLearning) and settles the share of the call's reservation set apart for it. A job the
// queue refuses (back-pressure, shutdown) is dropped and gives that share back: learning is
// never worth an answer, nor a wait.
import type { PipelineDeps } from './deps.ts';
import type { CallContext } from './context.ts';
import { learnFrom, learnsAfter } from './learn.ts';
import { learningMark, meterLearning } from './meter-call.ts';
import type { Named, RoutedPlan } from './routed-plan.ts';

/** Gives back the reservation set apart for learning that will not run. */
export function dropLearning(ctx: CallContext, s: PipelineDeps): void {
  if (ctx.learningReservation) s.budget.release(ctx.learningReservation);
  ctx.learningReservation = null;
}

/**
 * Queues what the step learns from this answered call; false when it has nothing to learn or the
 * queue refuses it (the caller then drops the learning: `dropLearning`).
 */
export function enqueueLearning(ctx: CallContext, s: PipelineDeps, plan: RoutedPlan, served: Named): boolean {
  if (!learnsAfter(plan)) return false;
  return s.learning.offer({
    run: async (signal) => {
      const mark = learningMark(ctx);
      try {
        await learnFrom(ctx, s, signal, plan, served);
      } finally {
        const spent = meterLearning(ctx, s.meter, mark, (total, platform) => settleLearning(ctx, s, total, platform));
        if (spent > 0) {
          s.optimizer.noteExploration(plan.step, spent);
          s.discovery.charge(ctx.principal.workflowId, spent);
        }
      }
    },
    drop: () => dropLearning(ctx, s),
  });
}

/**
 * Settles the learning's reservation: what its platform-key attempts cost, less the fee the
 * call no longer owes (the fee is a share of the saving, and learning spend lowers the saving).
 */
function settleLearning(ctx: CallContext, s: PipelineDeps, spent: number, platform: number) {
  const res = ctx.learningReservation;
  ctx.learningReservation = null;
  if (!res) return [];
  const rate = s.config.BILLING_FEE_RATE;
  const saving = ctx.priced?.saving ?? 0;
  const feeDelta = Math.floor(rate * Math.max(0, saving - spent)) - Math.floor(rate * Math.max(0, saving));
  return s.budget.settle(res, { callId: ctx.id, at: new Date(), charge: Math.max(0, platform + feeDelta), spend: Math.max(0, spent + feeDelta), part: 'learning' });
}
