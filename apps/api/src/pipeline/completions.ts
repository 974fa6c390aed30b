// POST /v1/chat/completions: the completion pipeline. Its stages, in order, are the lines of
// `stages` below (each marked for tracing when OpenTelemetry is on, telemetry/otel.ts):
//   authenticate → idempotency → annotate → guard → capture → route → budget → cache → prune →
//   dispatch (the quality gate inside it) → meter → respond (meter and respond are one step:
//   nothing leaves before its call is in the write-ahead file) → learn (a routed call's probes
//   and judge grades, queued after the answer: learning-job.ts).
// Route runs before cache, where design §2 has it after: a routed call's cache entries are
// keyed by its step, which routing identifies. Budget runs after route, where design §2 has
// it before: a call's maximum cost is priced on the models routing chose. Either server
// (Fastify or the socket path) runs this handler.
import type { PipelineHandler, PipelineRequest, ResponseSink } from './sink.ts';
import { ApiError } from '../errors.ts';
import { toApiError } from '../failures/to-api-error.ts';
import type { Services } from '../services.ts';
import { annotate } from './annotate.ts';
import { newCallContext, type CallContext } from './context.ts';
import { dispatchWithPolicy } from './dispatch-policy.ts';
import { keepsFailure, readKey } from './idempotency.ts';
import { explorationSpend, meterFailure } from './meter-call.ts';
import { upstreamSignal } from './upstream-signal.ts';
import { logInvalid } from '../providers/vendor-shape.ts';
import { respondJson, sendAnswer } from './respond.ts';
import { isRouted, route } from './route.ts';
import { notePinned, planRouted } from './plan-routed.ts';
import { serveRouted } from './serve-routed.ts';
import { holdsStream } from './held-stream.ts';
import { markProduction } from './production-keys.ts';
import type { RoutedPlan } from './routed-plan.ts';
import { dropLearning, enqueueLearning } from './learning-job.ts';
import { relayStream } from './stream.ts';
import { serveFromCache } from './cache-stage.ts';
import { pruneStage } from './prune-stage.ts';
import { guardStage } from './guard-stage.ts';
import { captureStage } from './capture-stage.ts';
import { budgetStage } from './budget-stage.ts';
import type { IdempotencyRecord } from '../hot/store.ts';
import type { CallTrace } from '../telemetry/tracing.ts';

function newContext(request: PipelineRequest): CallContext {
  if (!request.principal) throw new ApiError('missing_api_key');
  return newCallContext(request.principal, request.headers);
}

async function replay(reply: ResponseSink, rec: IdempotencyRecord): Promise<void> {
  const headers = JSON.parse(rec.headers) as Record<string, string>;
  await reply.code(rec.status).headers(headers).header('idempotent-replayed', 'true').send(rec.body);
}

/** The handler both servers run: Fastify's route (http/pipeline-routes.ts) and the socket path. */
export function completionHandler(s: Services): PipelineHandler {
  const tracing = s.tracing;
  // decided at boot: without tracing each `trace?.…` below is a null check, and no tracer is called
  if (tracing === null) return (request, reply) => stages(s, request, reply, null);
  return async (request, reply) => {
    const trace = tracing.begin();
    try {
      await stages(s, request, reply, trace);
      trace.end();
    } catch (err) {
      const e = toApiError(err); // for the span only: the server's error handler answers `err` as before
      trace.end(e.status, e.code);
      throw err;
    }
  };
}

async function stages(s: Services, request: PipelineRequest, reply: ResponseSink, trace: CallTrace | null): Promise<void> {
  const ctx = newContext(request); // authenticate: the server checked the key; this is its principal
  trace?.call(ctx);
  // idempotency: a key seen before replays its answer
  trace?.stage('idempotency');
  ctx.idempotencyKey = readKey(request.headers['idempotency-key']);
  if (ctx.idempotencyKey) {
    const begun = await s.idempotency.begin(ctx.principal.accountId, ctx.idempotencyKey, request.body);
    if (begun.kind === 'replay') return (trace?.replayed(begun.record.status), replay(reply, begun.record));
    ctx.claim = begun.claim;
  }

  const upstream = upstreamSignal(reply, s.config.UPSTREAM_TOTAL_TIMEOUT_MS);
  const { abort, signal } = upstream;
  let plan: RoutedPlan | null = null;
  let learned = false;
  try {
    trace?.stage('annotate');
    annotate(ctx, request.body, request.rawBody);
    trace?.stage('guard');
    guardStage(ctx, s.guardSettings.get(ctx.principal.accountId));
    trace?.stage('capture');
    captureStage(ctx, s.recordings.settings.get(ctx.principal.accountId)); // after the guard: nothing it replaced is kept in clear
    trace?.stage('route');
    markProduction(ctx, s); // a workflow in production runs on the tenant's own keys only
    plan = isRouted(ctx.requestedModel) ? planRouted(ctx, s) : (route(ctx, s), notePinned(ctx, s), null);
    trace?.stage('budget');
    await budgetStage(ctx, s, plan); // after route: the bound is priced on the models the call may reach
    trace?.stage('cache');
    if (await serveFromCache(ctx, s, request.headers['cache-control'], reply)) return; // a hit is metered and answered there
    trace?.stage('prune');
    if (plan?.decision.prune) pruneStage(ctx, ctx.route?.baselineProfile, plan.decision.pruneMinShare);
    if (plan && s.discovery.creditSpent(ctx.principal.workflowId)) plan.decision.probe = []; // discovery credit used up
    // dispatch, then meter and respond: a routed JSON call through its policy (probes, gates, the quality gate), else one vendor
    trace?.stage('dispatch');
    // a routed stream is answered whole, then replayed as the vendor's events, when its policy needs the whole answer
    // first (a gate, a verify) or the quality gate must pass it before any byte leaves (structured output, tools)
    if (plan && (!ctx.stream || plan.decision.policy.kind !== 'model' || holdsStream(ctx, plan))) {
      const t0 = performance.now();
      const served = await serveRouted(ctx, s, signal, plan);
      s.discovery.charge(ctx.principal.workflowId, explorationSpend(ctx));
      trace?.stage('respond');
      const held = ctx.stream ? (holdsStream(ctx, plan) ? 'quality-gate' : 'policy') : undefined;
      await sendAnswer(ctx, served.text, performance.now() - t0, served.status, reply, s.meter, s.idempotency, held);
      learned = enqueueLearning(ctx, s, plan, served); // learn: after the answer, off the request path
      return;
    }
    const dispatched = await dispatchWithPolicy(ctx, s, signal);
    trace?.stage('respond'); // meter and respond: a stream's relay is in this stage
    if (!ctx.stream) return await respondJson(ctx, dispatched, reply, s.meter, s.idempotency);
    const streamed = await relayStream(ctx, dispatched, reply, abort, s.meter, s.idempotency, s.logger, plan !== null);
    if (plan && streamed) learned = enqueueLearning(ctx, s, plan, streamed); // a stream learns once it has ended
  } catch (err) {
    const e = toApiError(err);
    logInvalid(s.logger, e, ctx.id); // a vendor answer not in its shape: its raw body (redacted) goes to the log, never to the client
    if (ctx.requestedModel) meterFailure(ctx, s.meter, e, reply.elapsedTime);
    if (ctx.claim) {
      if (keepsFailure(e.status)) await s.idempotency.complete(ctx.claim, e.status, { 'content-type': 'application/json', ...e.headers }, JSON.stringify(e.toBody()));
      else await s.idempotency.release(ctx.claim);
    }
    throw e;
  } finally {
    upstream.done();
    if (ctx.reservation) s.budget.release(ctx.reservation); // never metered: nothing charged (a no-op once settled)
    if (!learned) dropLearning(ctx, s); // learning that will not run gives its share of the reservation back
    // the step's traffic, for its payback rule and exploration budget (cache hits and failures count too)
    if (plan && ctx.priced) s.optimizer.noteCall(plan.step, ctx.priced.baseline, ctx.priced.actual, ctx.priced.exploration);
    for (const a of ctx.attempts) if (a.role === 'serve' && a.outcome === 'ok') s.latency.observe(a.model, a.latencyMs); // for latency tiebreaks
  }
}
