// The most a call can cost before it is dispatched (design §11): each model it may reach priced
// at the request's input tokens and its output limit (max_tokens, else the model's own maximum).
// A pinned call is served by one model of its failover chain; a routed call may serve a gate of
// two cheap models and escalate to the baseline, probe candidates and have the judge grade the
// answers (exploration included). An upper bound: the reservation is settled to the actual.
import type { ModelProfile } from '@optimizer/schema';
import type { PipelineDeps } from './deps.ts';
import type { CallContext } from './context.ts';
import type { RoutedPlan } from './routed-plan.ts';
import { keySource } from './dispatch.ts';

/** Tokens a judge's grade may take (its rubric and score), on top of the question and answers it reads. */
const JUDGE_OVERHEAD_TOKENS = 1_024;

export interface CostBound {
  /** The most the call can cost in vendor spend, any keys. */
  all: number;
  /** The most its baseline (pinned model, or the routed baseline) can cost: what a saving is measured against. */
  baseline: number;
  /** Whether any model it may reach is paid with the platform's keys (else only the fee is charged). */
  platform: boolean;
  /** The part of `all` a routed call may spend learning after its answer (probes, judge grades); 0 for a pinned call. */
  learning: number;
}

function outputLimit(body: Record<string, unknown>, p: ModelProfile): number {
  const asked = [body.max_completion_tokens, body.max_tokens].find((v): v is number => typeof v === 'number' && v > 0);
  const n = typeof body.n === 'number' && body.n > 1 ? body.n : 1;
  return Math.min(asked ?? p.max_output_tokens, p.max_output_tokens) * n;
}

const price = (p: ModelProfile | undefined, input: number, output: number): number => (p ? Math.ceil(input * p.input_per_mtok + output * p.output_per_mtok) : 0);

/** `promptTokens`: the prompt's tokens, counted or bounded (`promptTokenBound`): either way the result bounds the call. */
export function maxCost(ctx: CallContext, s: PipelineDeps, plan: RoutedPlan | null, promptTokens: number): CostBound {
  const input = promptTokens + (ctx.body.tools ? Math.ceil(JSON.stringify(ctx.body.tools).length / 3) : 0);
  const one = (p: ModelProfile | undefined) => (p ? price(p, input, outputLimit(ctx.body, p)) : 0);
  // the platform's vendors: its keys, or a keyless vendor it configured (the tenant holds no key for either)
  const paidByPlatform = (provider: string) => {
    const source = keySource(ctx, provider, s.providers.get(provider), s.providerKeys);
    return source === 'platform' || source === 'none';
  };
  const route = ctx.route;
  if (!plan) {
    const chain = route ? [route, ...route.failover] : [];
    return {
      all: Math.max(0, ...chain.map((c) => one(c.profile))),
      baseline: one(route?.baselineProfile ?? route?.profile),
      platform: chain.some((c) => paidByPlatform(c.provider)),
      learning: 0,
    };
  }
  const baseline = s.catalog.get(plan.baseline);
  const judge = s.catalog.get(plan.judge);
  const probes = plan.decision.probe.map((name) => s.catalog.get(name.split('@')[0]!));
  const out = baseline ? outputLimit(ctx.body, baseline) : 0;
  // a judge reads the question and two answers, and writes a grade
  const grade = price(judge, input + 2 * out + JUDGE_OVERHEAD_TOKENS, JUDGE_OVERHEAD_TOKENS);
  const serving = 3 * one(baseline); // a gate's two cheap answers and the escalation, each at most the baseline's price
  const exploring = probes.reduce((sum, p) => sum + one(p), 0) + (probes.length + 2) * 2 * grade;
  const models = [baseline, judge, ...probes].filter((p): p is ModelProfile => p !== undefined);
  return { all: serving + exploring, baseline: one(baseline), platform: models.some((p) => paidByPlatform(p.provider)), learning: exploring };
}
