// Stage: route, for `auto` / `discover`: which step this call is, the bar it must
// hold (the tenant floor, raised by step.quality.min_score and a quality objective),
// the baseline, the candidates that can serve it, and the optimizer's decision.
import { createHash } from 'node:crypto';
import type { ModelProfile } from '@optimizer/schema';
import { ApiError } from '../errors.ts';
import { hasAdapter } from '../providers/adapters.ts';
import type { PipelineDeps } from './deps.ts';
import type { CallContext } from './context.ts';
import { fits, needsOf } from './failover.ts';
import type { RoutedPlan } from './routed-plan.ts';
import { stepIdentity } from '../optimizer/fingerprint.ts';
import { askedKind } from '../optimizer/step-kind.ts';
import { policyKey, primaryModel } from '../optimizer/policies.ts';
import { DEFAULT_ALLOWANCE_CALLS, DEFAULT_BUDGET_SHARE } from '../optimizer/exploration.ts';
import { lockedStep } from '../workflows/lockfile.ts';
import { requestSize, sizeMisfit } from './limits.ts';
import { routingOptions, STANDARD_TIER, type RoutingOptions } from './routing-options.ts';
import { keySource } from './dispatch.ts';
import { bindProviderKey } from './route.ts';
import { withOwnKeys } from './production-keys.ts';
import { unladderedTierWarning } from '../settings/tier-warnings.ts';
import { meanStrength } from '../catalog/catalog.ts';

/** The tenant's daily exploration budget unless the routing settings say otherwise (USD). */
export const DEFAULT_DAILY_BUDGET_USD = 200;

function blendedPrice(p: ModelProfile): number {
  return p.input_per_mtok + p.output_per_mtok;
}

/**
 * A model's catalog strength for a kind of work: that capability's, else its mean. Work of no
 * known kind is general: the model's `chat` strength (the general assistant's), where listed,
 * not a mean that a specialised capability (code, vision) pulls away from it.
 */
function strengthFor(p: ModelProfile, kind: string | undefined): number {
  const own = p.strengths[(kind ?? 'chat') as keyof ModelProfile['strengths']];
  return typeof own === 'number' ? own : meanStrength(p);
}

/**
 * Each cheaper model's catalog strength for the step's kind, less the median of the cheaper
 * models': where exploring starts (a prior, never evidence). Equal strengths say nothing.
 */
export function strengthLifts(cheaper: ModelProfile[], kind: string | undefined): Record<string, number> {
  const values = cheaper.map((m) => strengthFor(m, kind)).sort((a, b) => a - b);
  if (values.length === 0) return {};
  const mid = values.length % 2 ? values[(values.length - 1) / 2]! : (values[values.length / 2 - 1]! + values[values.length / 2]!) / 2;
  return Object.fromEntries(cheaper.map((m) => [m.model, strengthFor(m, kind) - mid]));
}

/**
 * Each cheaper model's catalog strength as a share of the baseline's: where posterior sampling
 * starts the model's retention before the step has evidence (trials.ts), capped a little over 1.
 */
export function strengthShares(cheaper: ModelProfile[], baseline: ModelProfile, kind: string | undefined): Record<string, number> {
  const base = strengthFor(baseline, kind);
  if (!(base > 0)) return {};
  return Object.fromEntries(cheaper.map((m) => [m.model, Math.min(1.1, Math.max(0, strengthFor(m, kind) / base))]));
}

/** Routes only among vendors the call holds a key for: one the client sent for that vendor, the tenant's stored one, or the platform's. */
function reachable(s: PipelineDeps, ctx: CallContext, p: ModelProfile, allowed: string[] | undefined): boolean {
  if (p.disabled || p.search_only || p.moderation_only) return false;
  if (!p.output_modalities.includes('text')) return false;
  if (allowed && !allowed.includes(p.provider)) return false;
  const info = s.providers.get(p.provider);
  if (!info || !hasAdapter(info.wire)) return false;
  return keySource(ctx, p.provider, info, s.providerKeys) !== 'none';
}

const EFFORT_ORDER = ['none', 'minimal', 'low', 'medium', 'high', 'max'];
/** A rough share of the full effort's spend, to order effort variants among cheaper models. */
const EFFORT_SHARE: Record<string, number> = { none: 0.2, minimal: 0.3, low: 0.5, medium: 0.8 };

/**
 * Test-time compute as candidates: the baseline at each reasoning effort below the
 * one the request asked for (or the vendor's default, medium), named `model@effort`.
 */
export function effortVariants(baseline: ModelProfile, requested: unknown): { name: string; price: number }[] {
  if (baseline.reasoning_efforts.length === 0) return [];
  const ceiling = EFFORT_ORDER.indexOf(typeof requested === 'string' ? requested : 'medium');
  return baseline.reasoning_efforts
    .filter((e) => EFFORT_ORDER.indexOf(e) >= 0 && EFFORT_ORDER.indexOf(e) < ceiling && EFFORT_SHARE[e] !== undefined)
    .map((e) => ({ name: `${baseline.model}@${e}`, price: blendedPrice(baseline) * EFFORT_SHARE[e]! }));
}

/** A judge must cost at most this share of the configured one for its panel to be worth keeping. */
const CHEAP_JUDGE_SHARE = 0.2;

/**
 * The cheaper judge to measure against the configured one: the strongest model (by the
 * catalog's prior) at most a fifth of its price, the cheaper of equals.
 */
export function cheaperJudge(usable: ModelProfile[], judge: ModelProfile): ModelProfile | undefined {
  const cap = blendedPrice(judge) * CHEAP_JUDGE_SHARE;
  return strongest(
    usable.filter((m) => m.model !== judge.model && blendedPrice(m) <= cap),
    'cheaper',
  );
}

/** The strongest of `models` by the catalog's prior; of equals, the pricier or the cheaper. */
function strongest(models: ModelProfile[], ties: 'pricier' | 'cheaper'): ModelProfile | undefined {
  const wins = (m: ModelProfile, best: ModelProfile) => (ties === 'pricier' ? blendedPrice(m) > blendedPrice(best) : blendedPrice(m) < blendedPrice(best));
  return models.reduce<ModelProfile | undefined>((best, m) => (!best || meanStrength(m) > meanStrength(best) || (meanStrength(m) === meanStrength(best) && wins(m, best)) ? m : best), undefined);
}

/** At most this many size refusals are named in a call's reasons. */
const SIZE_REASONS = 3;

/**
 * The models that can serve this call: reachable, with the capabilities it uses, large enough
 * for its prompt and output (a model too small is skipped, and the reason says why), and on the
 * tier's ladder when the tenant set one. The baseline: the tenant's baseline model when it is
 * usable, else the ladder's top usable rung, else the strongest usable model.
 */
function candidatesFor(ctx: CallContext, s: PipelineDeps, settings: ReturnType<PipelineDeps['routingSettings']['get']>, opts: RoutingOptions) {
  const needs = needsOf(ctx.body);
  const size = requestSize(ctx.body);
  const tooSmall: string[] = [];
  const onLadder = opts.ladder ? new Set(opts.ladder) : null;
  const usable = s.catalog.all().filter((p) => {
    if (!reachable(s, ctx, p, settings.allowed_providers) || !fits(p, needs)) return false;
    if (onLadder && !onLadder.has(p.model)) return false;
    const misfit = sizeMisfit(p, size);
    if (misfit) tooSmall.push(misfit);
    return misfit === null;
  });
  const reasons: string[] = [];
  if (tooSmall.length) reasons.push(`skipped as too small for this request: ${tooSmall.slice(0, SIZE_REASONS).join('; ')}${tooSmall.length > SIZE_REASONS ? ` (and ${tooSmall.length - SIZE_REASONS} more)` : ''}`);
  const named = settings.baseline_model ? s.catalog.get(settings.baseline_model) : undefined;
  let baseline: ModelProfile | undefined;
  if (named && usable.includes(named)) baseline = named;
  else if (opts.ladder) baseline = [...opts.ladder].reverse().map((m) => usable.find((p) => p.model === m)).find((p) => p !== undefined);
  else baseline = strongest(usable, 'pricier');
  if (!baseline) {
    const where = opts.ladder ? `No model on the ${opts.tier} ladder` : 'No enabled, reachable model in the catalog';
    throw new ApiError('provider_unavailable', `${where} can serve this request${tooSmall.length ? ` (${tooSmall.slice(0, SIZE_REASONS).join('; ')})` : ''}.`, { param: 'model' });
  }
  if (named && baseline !== named) reasons.push(`baseline ${named.model} cannot serve this request${tooSmall.some((r) => r.startsWith(`${named.model} `) || r.startsWith(`${named.model}'s`)) ? ' (too small)' : opts.ladder ? ` (not on the ${opts.tier} ladder)` : ''}; ${baseline.model} is the baseline`);
  if (opts.ladder) reasons.push(`tier ${opts.tier}: routing within its ladder (${opts.ladder.join(', ')})`);
  return { usable, baseline, reasons };
}

/** The step's identity within a tier: the standard tier keeps the step's own. */
export function tieredIdentity(id: { fingerprint: string; label: string }, tier: string): { fingerprint: string; label: string; display: string } {
  if (tier === STANDARD_TIER) return { ...id, display: id.label };
  return { fingerprint: createHash('sha256').update(`${id.fingerprint}\0tier\0${tier}`).digest('base64url').slice(0, 22), label: id.label, display: `${id.label} [${tier}]` };
}

/**
 * The vendor a routed call's bare x-provider-key is for: the tenant's baseline model's, else the
 * baseline the call would get were the key good for any vendor (the model it would go to
 * unrouted). Routing then reaches that vendor with the client's key and others only with keys
 * the call holds for them.
 */
function bareKeyVendor(ctx: CallContext, s: PipelineDeps, settings: ReturnType<PipelineDeps['routingSettings']['get']>, opts: RoutingOptions): string {
  const named = settings.baseline_model ? s.catalog.get(settings.baseline_model) : undefined;
  if (named) return named.provider;
  const anyVendor = new Map(s.catalog.all().map((p) => [p.provider, ctx.providerKeyHeader!]));
  return candidatesFor({ ...ctx, clientKeys: anyVendor }, s, settings, opts).baseline.provider;
}

export function planRouted(ctx: CallContext, s: PipelineDeps): RoutedPlan {
  const accountId = ctx.principal.accountId;
  const settings = s.routingSettings.get(accountId);
  const opts = routingOptions(settings, ctx, s.latency);
  const tierWarning = unladderedTierWarning(ctx.requestedModel, opts.tier, opts.ladder);
  if (tierWarning) (ctx.warnings ??= []).push(tierWarning);
  if (ctx.providerKeyHeader !== undefined) bindProviderKey(ctx, bareKeyVendor(ctx, s, settings, opts));
  const { usable, baseline, reasons: fitReasons } = withOwnKeys(ctx, s, settings.allowed_providers, () => candidatesFor(ctx, s, settings, opts));
  const judgeModel = settings.judge_model && s.catalog.get(settings.judge_model) ? settings.judge_model : baseline.model;
  const cheaperModels = usable.filter((m) => m.model !== baseline.model && blendedPrice(m) < blendedPrice(baseline));
  const ranked = cheaperModels
    .map((m) => ({ name: m.model, price: blendedPrice(m) }))
    .concat(effortVariants(baseline, ctx.body.reasoning_effort))
    .sort((a, b) => a.price - b.price);
  const cheaper = ranked.map((c) => c.name);
  const basePrice = blendedPrice(baseline) || 1;
  const priceShares = Object.fromEntries(ranked.map((c) => [c.name, c.price / basePrice]));
  const judgeProfile = s.catalog.get(judgeModel);
  const judgeShare = judgeProfile ? blendedPrice(judgeProfile) / basePrice : 1;
  const cheapJudge = judgeProfile ? cheaperJudge(usable, judgeProfile) : undefined;
  const judges = cheapJudge ? { panel: s.optimizer.judgePanel(accountId, judgeModel, cheapJudge.model), cheapShare: blendedPrice(cheapJudge) / basePrice } : undefined;
  let floor = s.routingSettings.floor(accountId);
  const minScore = ctx.annotation?.step?.quality?.min_score;
  if (minScore !== undefined) floor = Math.max(floor, minScore); // it can only tighten the bar
  if (ctx.annotation?.intent?.objective === 'quality') floor = Math.max(floor, 0.99);
  // a tier other than the standard one learns on its own (its ladder is another problem): its own step state
  const id = tieredIdentity(stepIdentity(ctx.principal.workflowId, ctx.annotation, ctx.body), opts.tier);
  const kind = ctx.annotation?.step?.kind;
  const step = { accountId, workflowId: ctx.principal.workflowId, fingerprint: id.fingerprint, label: id.display, release: ctx.annotation?.source?.release ?? '', ...(kind ? { kind } : {}) };
  // a workflow in production routes by its lockfile (design §9): the pinned policy, probes only for drift checks;
  // a routing mode other than auto is the tenant's switch and serves the baseline instead
  const lock = opts.mode === 'auto' ? s.workflowLife.lockInForce(accountId, ctx.principal.workflowId) : undefined;
  const locked = lock ? lockedStep(lock, id.fingerprint, baseline.model, (m) => usable.some((p) => p.model === m)) : undefined;
  s.steps.seen(step, lock ? 'production' : 'tuning'); // the step registry (memory; written in batches)
  const exploration = settings.exploration;
  const budget = {
    share: exploration?.step_share ?? DEFAULT_BUDGET_SHARE,
    allowanceCalls: DEFAULT_ALLOWANCE_CALLS,
    ...(exploration?.step_budget_usd !== undefined ? { stepMicros: exploration.step_budget_usd * 1e6 } : {}),
    dailyMicros: (exploration?.daily_budget_usd ?? DEFAULT_DAILY_BUDGET_USD) * 1e6,
  };
  // the kind of work whose catalog strengths start the candidates' priors: declared, else read from the step's calls
  const workKind = s.optimizer.kindOf(step, () => askedKind(ctx.body));
  const strengths = strengthLifts(cheaperModels, workKind);
  const strengthRatios = strengthShares(cheaperModels, baseline, workKind);
  const decision = s.optimizer.decide({
    step,
    baseline: baseline.model,
    cheaper,
    floor,
    // multi-model policies add vendor turns: not without advanced search, not when the call asks for latency; on a
    // stream they answer whole and are replayed as its events (respond.ts), as a cache hit is
    allowGates: opts.advanced && !opts.latency,
    singleModel: !opts.advanced || opts.latency,
    draw: s.optimizer.draw(),
    budget,
    priceShares,
    strengths,
    strengthShares: strengthRatios,
    judgeShare,
    judges,
    choice: opts.choice,
    serveBaseline: opts.mode !== 'auto',
    learning: opts.learning,
    ...(opts.learning !== 'off' && s.discovery.isDiscovering(ctx.principal.workflowId, ctx.requestedModel, ctx.annotation) ? { discover: true } : {}),
    ...(locked ? { locked } : {}),
  });
  if (opts.mode !== 'auto') {
    decision.prune = false; // the baseline serves the request as sent
    const beside = opts.learning === 'off' ? '; learning_mode off: nothing is learned' : '; learning goes on beside it by side probes';
    decision.reasons.unshift(`routing mode ${opts.mode}: the baseline serves every call${opts.mode === 'pinned' ? beside : ' and nothing is learned'}`);
  }
  if (!opts.advanced) decision.reasons.push('advanced search off: single-model policies only');
  ctx.events.push(...s.optimizer.takeEvents(step));
  ctx.optimizer = { fingerprint: id.fingerprint, step: id.label, policy: policyKey(decision.policy), settled: decision.settled, baseline: baseline.model, floor, ...(decision.trial ? { trial: { risk_budget_used: Math.round(decision.trial.budgetUsed * 1000) / 1000 } } : {}) };
  const runId = ctx.annotation?.run?.id;
  const runCall = runId ? { callId: ctx.id, step, policy: policyKey(decision.policy), baseline: baseline.model, floor } : undefined;
  if (runCall) s.outcomes.remember(accountId, runId!, id.label, runCall);
  const firstName = primaryModel(decision.policy);
  const first = firstName.includes('@') ? firstName.slice(0, firstName.lastIndexOf('@')) : firstName;
  const profile = s.catalog.get(first);
  ctx.route = {
    model: first,
    provider: profile?.provider ?? baseline.provider,
    requestedProvider: profile?.provider ?? baseline.provider,
    profile,
    failover: [],
    pinned: false,
    baselineModel: baseline.model,
    baselineProfile: baseline,
    reasons: [...(tierWarning ? [`warning: ${tierWarning}`] : []), ...fitReasons, ...decision.reasons, `quality bar ${floor} for step ${id.display}${workKind && !kind ? ` (${workKind}, read from its requests)` : ''}`],
  };
  return { decision, step, baseline: baseline.model, judge: judgeModel, ...(judges ? { panel: judges.panel } : {}), ...(runCall ? { runCall } : {}), floor };
}

/**
 * A pinned call is never rerouted, but its step is still known: outcomes reported
 * for it are accepted and recorded as evidence for the pinned model on that step.
 */
export function notePinned(ctx: CallContext, s: PipelineDeps): void {
  const runId = ctx.annotation?.run?.id;
  if (!runId || !ctx.route) return;
  const accountId = ctx.principal.accountId;
  const id = stepIdentity(ctx.principal.workflowId, ctx.annotation, ctx.body);
  const step = { accountId, workflowId: ctx.principal.workflowId, fingerprint: id.fingerprint, label: id.label, release: ctx.annotation?.source?.release ?? '' };
  const policy = `model:${ctx.route.model}`;
  const floor = s.routingSettings.floor(accountId);
  ctx.optimizer = { fingerprint: id.fingerprint, step: id.label, policy, settled: false, baseline: ctx.route.model, floor };
  s.outcomes.remember(accountId, runId, id.label, { callId: ctx.id, step, policy, baseline: ctx.route.model, floor });
}
