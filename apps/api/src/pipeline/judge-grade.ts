// The judge's grades of answers to a routed call's request: the configured judge, or the
// tenant's cheaper judge once its panel has adopted it (optimizer/judge-panel.ts), with the
// paired grades that measure the cheaper one recorded as evidence. Used by serving (a verify
// policy's check) and by learning after the answer (probes, drift checks).
import type { PipelineDeps } from './deps.ts';
import type { CallContext } from './context.ts';
import { completeOn } from './complete.ts';
import { judgeBody, parseGrade } from '../optimizer/judge.ts';
import { JudgePanel } from '../optimizer/judge-panel.ts';
import { attemptCost } from './meter-call.ts';
import { candidate, type RoutedPlan } from './routed-plan.ts';
import type { ChatBody } from '../providers/types.ts';

/** One judge model's grade of `answer` to `messages`, and what it cost; a null score when it gave none. */
export async function askJudge(ctx: CallContext, s: PipelineDeps, signal: AbortSignal, model: string, messages: unknown[], answer: string, role: 'judge' | 'serve', resample = false): Promise<{ score: number | null; micros: number }> {
  try {
    const structured = s.catalog.get(model)?.structured_outputs ?? true;
    const c = await completeOn(ctx, s, signal, candidate(s, model), role, judgeBody(model, messages, answer, { structured, resample }) as ChatBody);
    return { score: parseGrade(c.answer), micros: attemptCost(c.attempt) };
  } catch {
    return { score: null, micros: 0 };
  }
}

/**
 * The judge's grade of an answer to this call's request (or to `messages`); null when it
 * gives none. The cheaper judge grades once its panel has adopted it (a small share is
 * audited by the configured judge); until then the configured judge grades and the
 * cheaper one grades beside it, and now and then twice, to measure both.
 */
export async function grade(ctx: CallContext, s: PipelineDeps, signal: AbortSignal, plan: RoutedPlan, answer: string, role: 'judge' | 'serve' = 'judge', spent?: { micros: number }, messages = (ctx.body.messages as unknown[]) ?? []): Promise<number | null> {
  const ask = (model: string, as: 'judge' | 'serve', resample = false) => askJudge(ctx, s, signal, model, messages, answer, as, resample);
  const panel = plan.panel;
  const pair = (kind: 'cross' | 'self', a: number | null, b: number | null) => ctx.evidence.push(s.optimizer.recordJudgePair(plan.step, panel!, JudgePanel.pair(kind, a, b)));
  let used: { score: number | null; micros: number };
  if (!panel) used = await ask(plan.judge, role);
  else if (role === 'serve') used = await ask(panel.adopted ? panel.cheap : plan.judge, role); // serving grades, measures nothing
  else if (panel.adopted) {
    // drawn before the first wait: a call's draws follow the order its grades start, not the order the judge answers them
    const draw = s.optimizer.draw();
    used = await ask(panel.cheap, role);
    if (panel.wantsCross(draw)) pair('cross', (await ask(plan.judge, 'judge')).score, used.score);
    if (panel.wantsSelf()) pair('self', used.score, (await ask(panel.cheap, 'judge', true)).score);
  } else {
    // until the panel decides, the cheaper judge grades beside the configured one (cheap), and twice while it needs self pairs
    const measuring = panel.wantsCross(0) || panel.wantsSelf();
    const [main, cheap] = await Promise.all([ask(plan.judge, role), measuring ? ask(panel.cheap, 'judge') : null]);
    used = main;
    if (cheap) pair('cross', main.score, cheap.score);
    if (cheap && panel.wantsSelf()) pair('self', cheap.score, (await ask(panel.cheap, 'judge', true)).score);
  }
  if (spent) spent.micros = Math.max(spent.micros, used.micros);
  return used.score;
}
