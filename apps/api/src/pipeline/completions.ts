// POST /v1/chat/completions: the completion pipeline, as its list of stages (`STAGES` below, one
// line each, each marked for tracing when OpenTelemetry is on, telemetry/otel.ts):
//   authenticate → idempotency → annotate → guard → capture → route → budget → cache → prune →
//   dispatch (the quality gate inside it) → outcome; then the runner's one exit (run-call.ts):
//   meter → respond (nothing leaves before its call is in the write-ahead file) → learn (a routed
//   call's probes and judge grades, queued after the answer: learning-job.ts).
// Each stage that can end the call returns its Outcome (a replay, a cache hit, a served answer)
// or, for a live stream, a Relay; none meters or writes to a transport. Route runs before cache,
// where design §2 has it after: a routed call's cache entries are keyed by its step, which
// routing identifies. Budget runs after route, where design §2 has it before: a call's maximum
// cost is priced on the models routing chose. Every transport (Fastify, the socket path, a
// managed agent's in-process call) runs this handler and renders its Reply.
import type { PipelineDeps } from './deps.ts';
import { annotate } from './annotate.ts';
import { dispatchWithPolicy } from './dispatch-policy.ts';
import { idempotencyStage } from './idempotency-stage.ts';
import { readServed } from './respond.ts';
import { isRouted, route } from './route.ts';
import { notePinned, planRouted } from './plan-routed.ts';
import { serveRoutedCall } from './serve-routed.ts';
import { holdsStream } from './held-stream.ts';
import { markProduction } from './production-keys.ts';
import { relayStream, type Relay } from './stream.ts';
import { serveFromCache } from './cache-stage.ts';
import { pruneStage } from './prune-stage.ts';
import { guardStage } from './guard-stage.ts';
import { captureStage } from './capture-stage.ts';
import { budgetStage } from './budget-stage.ts';
import type { Outcome } from './outcome.ts';
import type { PipelineHandler } from './reply.ts';
import { runCall, runStages, type Call, type Pipeline, type Stage } from './run-call.ts';

/** Idempotency (idempotency-stage.ts): a key seen before ends the call in its earlier answer, marked in the trace. */
async function idempotency({ ctx, request, trace }: Call, s: PipelineDeps): Promise<Outcome | null> {
  const replayed = await idempotencyStage(ctx, s.idempotency, request.headers['idempotency-key'], request.body);
  return replayed && (trace?.replayed(replayed.record.status), replayed);
}

/** Route: a workflow in production runs on the tenant's own keys only; `auto` is planned by the optimizer, a named model routed as pinned. */
function routeCall(call: Call, s: PipelineDeps): void {
  const { ctx } = call;
  markProduction(ctx, s);
  call.plan = isRouted(ctx.requestedModel) ? planRouted(ctx, s) : (route(ctx, s), notePinned(ctx, s), null);
}

/** Prune what the plan says to; a discovery whose credit is used up probes no more. */
function prune({ ctx, plan }: Call, s: PipelineDeps): void {
  if (plan?.decision.prune) pruneStage(ctx, ctx.route?.baselineProfile, plan.decision.pruneMinShare);
  if (plan && s.discovery.creditSpent(ctx.principal.workflowId)) plan.decision.probe = [];
}

/**
 * Dispatch: a routed call through its policy (gates, verify, the quality gate), where a routed stream
 * is answered whole, then replayed as the vendor's events, when its policy needs the whole answer
 * first or the quality gate must pass it before any byte leaves; else one vendor (failover inside),
 * a stream relayed as it comes.
 */
async function dispatch({ ctx, request, trace, plan, upstream }: Call, s: PipelineDeps): Promise<Outcome | Relay> {
  if (plan && (!ctx.stream || plan.decision.policy.kind !== 'model' || holdsStream(ctx, plan))) {
    const served = await serveRoutedCall(ctx, s, upstream.signal, plan);
    trace?.stage('respond');
    return served;
  }
  const dispatched = await dispatchWithPolicy(ctx, s, upstream.signal);
  trace?.stage('respond'); // a stream's relay is in this stage
  if (!ctx.stream) return readServed(ctx, dispatched);
  return relayStream(ctx, dispatched, request.elapsed, request.gone, s.logger, plan !== null);
}

/** The completion's stages, in the order a call passes them: each `(call, deps)`, each ending the call or passing it on. */
const STAGES: readonly Stage[] = [
  { name: 'idempotency', run: idempotency },
  { name: 'annotate', run: ({ ctx, request }) => annotate(ctx, request.body, request.rawBody) },
  { name: 'guard', run: ({ ctx }, s) => guardStage(ctx, s.guardSettings.get(ctx.principal.accountId)) },
  // after the guard: nothing it replaced is kept in clear
  { name: 'capture', run: ({ ctx }, s) => captureStage(ctx, s.recordings.settings.get(ctx.principal.accountId)) },
  { name: 'route', run: routeCall },
  // after route: the bound is priced on the models the call may reach
  { name: 'budget', run: ({ ctx, plan }, s) => budgetStage(ctx, s, plan) },
  { name: 'cache', run: ({ ctx, request }, s) => serveFromCache(ctx, s, request.headers['cache-control']) },
  { name: 'prune', run: prune },
  { name: 'dispatch', run: dispatch },
];

const completionPipeline: Pipeline = {
  stages: (call, s) => runStages(STAGES, call, s),
  metered: (ctx) => ctx.requestedModel !== '', // a call that never named a model (an invalid body) is refused, unmetered
  ended({ ctx, plan }, s) {
    // the step's traffic, for its payback rule and exploration budget (cache hits and failures count too)
    if (plan && ctx.priced) s.optimizer.noteCall(plan.step, ctx.priced.baseline, ctx.priced.actual, ctx.priced.exploration);
    for (const a of ctx.attempts) if (a.role === 'serve' && a.outcome === 'ok') s.latency.observe(a.model, a.latencyMs); // for latency tiebreaks
  },
};

/** The handler every transport runs: Fastify's route (http/pipeline-routes.ts), the socket path, a managed agent's call. */
export function completionHandler(s: PipelineDeps): PipelineHandler {
  const tracing = s.tracing;
  // decided at boot: without tracing each `trace?.…` is a null check, and no tracer is called
  if (tracing === null) return (request) => runCall(completionPipeline, s, request);
  return (request) => runCall(completionPipeline, s, request, tracing.begin());
}
