// What the tenant's routing settings and the call's annotation ask of one routed call:
// serving mode, learning mode, the tier and its ladder, whether multi-model policies are
// searched, and how ties between policies that hold are broken. Read once per call from
// memory; plan-routed.ts applies them.
import type { RoutingSettingsWrite } from '@optimizer/schema';
import type { Choice, LearningMode } from '../optimizer/optimizer.ts';
import type { LatencyBoard } from '../optimizer/latency.ts';
import { policyModels, type Policy } from '../optimizer/policies.ts';
import type { CallContext } from './context.ts';

/** A tier named in the model: `auto:<tier>`. Plain `auto` and `discover` are the standard tier. */
const TIERED = /^auto:([a-z][a-z0-9_-]{0,39})$/;
export const STANDARD_TIER = 'standard';

/** Whether `model` asks the gateway to choose (`auto`, `discover`, `auto:<tier>`). */
export function isRoutedName(model: string): boolean {
  return model === 'auto' || model === 'discover' || TIERED.test(model);
}

/** The tier a routed model name asks for. */
export function tierOf(model: string): string {
  return TIERED.exec(model)?.[1] ?? STANDARD_TIER;
}

export interface RoutingOptions {
  mode: 'auto' | 'pinned' | 'off';
  learning: LearningMode;
  tier: string;
  /** The tier's ladder (models, cheapest rung first), when the tenant set one. */
  ladder: string[] | undefined;
  /** Multi-model policies (gate, verify, confirm, vote) may be searched and served. */
  advanced: boolean;
  choice: Choice;
  /** The call asks for latency (`intent.objective: latency`). */
  latency: boolean;
}

export function routingOptions(settings: RoutingSettingsWrite, ctx: CallContext, latency: LatencyBoard): RoutingOptions {
  const mode = settings.mode ?? 'auto';
  const fast = ctx.annotation?.intent?.objective === 'latency';
  const tier = tierOf(ctx.requestedModel);
  return {
    mode,
    // the step's annotation may choose its own; routing off learns nothing
    learning: mode === 'off' ? 'off' : (ctx.annotation?.step?.learning_mode ?? settings.learning_mode ?? 'serve'),
    tier,
    ladder: settings.ladders?.[tier],
    advanced: settings.advanced_search ?? true,
    latency: fast,
    choice: {
      tiebreak: fast ? 'latency' : (settings.tiebreak ?? 'cost'),
      band: settings.band ?? 0,
      latencyOf: (p: Policy) => policyLatency(p, latency),
    },
  };
}

/** A policy's expected latency: its slowest first-round model (a verify adds a judge's turn, taken as its own again). */
function policyLatency(p: Policy, board: LatencyBoard): number {
  const models = p.kind === 'confirm' ? [p.model, p.by[0]!] : policyModels(p);
  const each = models.map((m) => board.of(m) ?? Infinity);
  const slowest = Math.max(...each);
  return p.kind === 'verify' ? 2 * slowest : slowest;
}
