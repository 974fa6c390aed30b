// POST /v1/chat/completions: the completion pipeline, as its list of stages (`stages` below, one
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
import type { Services } from '../services.ts';
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
import type { Outcome, Served } from './outcome.ts';
import type { PipelineHandler } from './reply.ts';
import { runCall, type Call, type Pipeline } from './run-call.ts';

async function stages(call: Call, s: Services): Promise<Outcome | Relay> {
  const { ctx, request, trace } = call;
  trace?.stage('idempotency');
  const replayed = await idempotencyStage(ctx, s.idempotency, request.headers['idempotency-key'], request.body);
  if (replayed) return (trace?.replayed(replayed.record.status), replayed);
  trace?.stage('annotate');
  annotate(ctx, request.body, request.rawBody);
  trace?.stage('guard');
  guardStage(ctx, s.guardSettings.get(ctx.principal.accountId));
  trace?.stage('capture');
  captureStage(ctx, s.recordings.settings.get(ctx.principal.accountId)); // after the guard: nothing it replaced is kept in clear
  trace?.stage('route');
  markProduction(ctx, s); // a workflow in production runs on the tenant's own keys only
  const plan = (call.plan = isRouted(ctx.requestedModel) ? planRouted(ctx, s) : (route(ctx, s), notePinned(ctx, s), null));
  trace?.stage('budget');
  await budgetStage(ctx, s, plan); // after route: the bound is priced on the models the call may reach
  trace?.stage('cache');
  const hit = await serveFromCache(ctx, s, request.headers['cache-control']);
  if (hit) return hit;
  trace?.stage('prune');
  if (plan?.decision.prune) pruneStage(ctx, ctx.route?.baselineProfile, plan.decision.pruneMinShare);
  if (plan && s.discovery.creditSpent(ctx.principal.workflowId)) plan.decision.probe = []; // discovery credit used up
  trace?.stage('dispatch');
  const { signal } = call.upstream;
  // a routed call through its policy (gates, verify, the quality gate); a routed stream too when its policy needs the whole answer first
  if (plan && (!ctx.stream || plan.decision.policy.kind !== 'model' || holdsStream(ctx, plan))) return routedAnswer(await serveRoutedCall(ctx, s, signal, plan), trace);
  const dispatched = await dispatchWithPolicy(ctx, s, signal); // else one vendor (failover inside)
  trace?.stage('respond'); // a stream's relay is in this stage
  if (!ctx.stream) return readServed(ctx, dispatched);
  return relayStream(ctx, dispatched, request.elapsed, request.gone, s.logger, plan !== null);
}

const routedAnswer = (served: Served, trace: Call['trace']): Served => (trace?.stage('respond'), served);

const completionPipeline: Pipeline = {
  stages,
  metered: (ctx) => ctx.requestedModel !== '', // a call that never named a model (an invalid body) is refused, unmetered
  ended({ ctx, plan }, s) {
    // the step's traffic, for its payback rule and exploration budget (cache hits and failures count too)
    if (plan && ctx.priced) s.optimizer.noteCall(plan.step, ctx.priced.baseline, ctx.priced.actual, ctx.priced.exploration);
    for (const a of ctx.attempts) if (a.role === 'serve' && a.outcome === 'ok') s.latency.observe(a.model, a.latencyMs); // for latency tiebreaks
  },
};

/** The handler every transport runs: Fastify's route (http/pipeline-routes.ts), the socket path, a managed agent's call. */
export function completionHandler(s: Services): PipelineHandler {
  const tracing = s.tracing;
  // decided at boot: without tracing each `trace?.…` is a null check, and no tracer is called
  if (tracing === null) return (request) => runCall(completionPipeline, s, request);
  return (request) => runCall(completionPipeline, s, request, tracing.begin());
}
