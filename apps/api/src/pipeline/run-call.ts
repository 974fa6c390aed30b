// The runner both pipelines (completions.ts, embeddings.ts) run on. A pipeline is its list of
// stages, which end in an `Outcome` (or a live stream's `Relay`); the runner sends every outcome
// through one exit, `finish`: the meter (`meterOutcome`, the one writer of call records), then
// `respond`, which makes the `Reply` the transport renders. A stream's Reply is its pieces as
// they come; its outcome goes through the same exit when it ends (done, client gone, vendor
// error), and its last piece is what `respond` made of it. A failure is thrown, once metered,
// for the transport's error handler (the one envelope). Then the call ends (`end`): its
// upstream timer, its reservation, the learning it did not queue, its trace.
import { ApiError } from '../errors.ts';
import { toApiError } from '../failures/to-api-error.ts';
import { logInvalid } from '../providers/vendor-shape.ts';
import type { PipelineDeps } from './deps.ts';
import type { CallTrace, StageName } from '../telemetry/tracing.ts';
import { newCallContext, type CallContext, type Costs } from './context.ts';
import { keepsFailure } from './idempotency.ts';
import { dropLearning, enqueueLearning } from './learning-job.ts';
import { meterOutcome, type MeterInput } from './meter-call.ts';
import type { CacheHit, Outcome, Served, Streamed } from './outcome.ts';
import type { PipelineRequest, Reply } from './reply.ts';
import { respond } from './respond.ts';
import type { Named, RoutedPlan } from './routed-plan.ts';
import type { Relay } from './stream.ts';
import { upstreamSignal, type UpstreamSignal } from './upstream-signal.ts';

/** One call on its way through a pipeline. */
export interface Call {
  ctx: CallContext;
  request: PipelineRequest;
  upstream: UpstreamSignal;
  trace: CallTrace | null;
  /** A routed call's plan (plan-routed.ts): what it learns after its answer. */
  plan: RoutedPlan | null;
  /** Learning to queue once the answer has gone (learning-job.ts): the Reply's `after` runs it. */
  learn: (() => void) | null;
}

/**
 * One stage of a pipeline, the same shape for every one: it works on the call (its context, its
 * plan) with the services it reads, and either ends the call, returning its Outcome (or a live
 * stream's Relay), or returns nothing and the next stage runs.
 */
export interface Stage<C extends Call = Call> {
  /** Its mark in the call's trace. */
  name: StageName;
  run(call: C, s: PipelineDeps): Outcome | Relay | null | void | Promise<Outcome | Relay | null | void>;
}

/** Runs `stages` in order, each marked in the trace, until one ends the call; the last must. */
export async function runStages<C extends Call>(stages: readonly Stage<C>[], call: C, s: PipelineDeps): Promise<Outcome | Relay> {
  for (const stage of stages) {
    call.trace?.stage(stage.name);
    const ran = stage.run(call, s);
    const out = ran instanceof Promise ? await ran : ran; // a stage that ran in full costs the call no extra turn of the loop
    if (out) return out;
  }
  throw new Error(`the last stage (${stages.at(-1)?.name}) returned no outcome`);
}

export interface Pipeline {
  stages(call: Call, s: PipelineDeps): Promise<Outcome | Relay>;
  /** Whether a call that failed here is metered (it got as far as a model) or refused. */
  metered(ctx: CallContext): boolean;
  /** What the pipeline notes once a call has ended (the step's traffic, latencies). */
  ended?(call: Call, s: PipelineDeps): void;
}

const NO_COSTS: Costs = { baseline: 0, served: 0, actual: 0, exploration: 0, saving: 0 };

/** Runs one request through `pipeline`: its Reply, or the catalogue's error thrown (metered when it was a call). */
export async function runCall(pipeline: Pipeline, s: PipelineDeps, request: PipelineRequest, trace: CallTrace | null = null): Promise<Reply> {
  if (!request.principal) {
    trace?.end(401, 'missing_api_key');
    throw new ApiError('missing_api_key'); // authenticate: the transport checked the key; this is its principal
  }
  const ctx = newCallContext(request.principal, request.headers);
  trace?.call(ctx);
  const call: Call = { ctx, request, upstream: upstreamSignal(request.gone, s.config.UPSTREAM_TOTAL_TIMEOUT_MS), trace, plan: null, learn: null };
  let outcome: Outcome | Relay;
  try {
    outcome = await pipeline.stages(call, s);
  } catch (err) {
    const error = toApiError(err);
    outcome = pipeline.metered(ctx) ? { kind: 'failed', error } : { kind: 'refused', error };
  }
  const reply = outcome.kind === 'relay' ? { status: 200, headers: outcome.headers, body: streamBody(pipeline, call, s, outcome) } : await finish(pipeline, call, s, outcome);
  return { ...reply, after: () => learnAfter(call) };
}

/** A routed call's learning, queued once its answer has gone; refused by a full or closed queue, it gives its reservation back. */
function learnAfter(call: Call): void {
  const learn = call.learn;
  call.learn = null;
  learn?.();
}

/** Arranges for a routed call that was answered to learn from its answer (`named`) once it has gone. */
function learnLater(call: Call, s: PipelineDeps, named: Named | null | undefined): void {
  const { ctx, plan } = call;
  if (!plan || !named) return;
  call.learn = () => {
    if (!enqueueLearning(ctx, s, plan, named)) dropLearning(ctx, s);
  };
}

/** A live stream's body: the relay's pieces, then the last piece its outcome makes through `finish`. */
async function* streamBody(pipeline: Pipeline, call: Call, s: PipelineDeps, relay: Relay): AsyncGenerator<string, string, undefined> {
  let streamed: Streamed;
  try {
    streamed = yield* relay.pieces;
  } catch (err) {
    await finish(pipeline, call, s, { kind: 'failed', error: toApiError(err) }); // throws it, metered
    throw err;
  }
  const tail = await finish(pipeline, call, s, streamed);
  return tail.body as string;
}

/**
 * The one exit: meters the outcome (the only `meterOutcome` call), then makes its Reply, or
 * throws its error once its Idempotency-Key is kept or released. The call ends here.
 */
async function finish(pipeline: Pipeline, call: Call, s: PipelineDeps, outcome: Outcome): Promise<Reply> {
  const { ctx } = call;
  let error: ApiError | null = null;
  try {
    const metered = meterOutcome(ctx, s.meter, outcome, call.request.elapsed());
    switch (outcome.kind) {
      case 'failed':
      case 'refused':
        throw outcome.error;
      case 'replayed':
        return respond(ctx, outcome, NO_COSTS, 0);
      case 'streamed':
        return await streamEnd(call, s, outcome, metered!);
      default:
        return await answer(call, s, outcome, metered!);
    }
  } catch (err) {
    error = toApiError(err);
    logInvalid(s.logger, error, ctx.id); // a vendor answer not in its shape: its raw body (redacted) goes to the log, never to the client
    if (ctx.claim) {
      if (keepsFailure(error.status)) await s.idempotency.complete(ctx.claim, error.status, { 'content-type': 'application/json', ...error.headers }, JSON.stringify(error.toBody()));
      else await s.idempotency.release(ctx.claim);
    }
    throw error;
  } finally {
    end(pipeline, call, s, error);
  }
}

/**
 * A whole answer (a vendor's or a cache's): it leaves only once its call is in the write-ahead
 * file (a refused line answers 500, unmetered and its key released), after the caches have it.
 */
async function answer(call: Call, s: PipelineDeps, o: Served | CacheHit, { costs, input }: { costs: Costs; input: MeterInput }): Promise<Reply> {
  const { ctx } = call;
  const written = s.meter.written();
  if (written) await written;
  if (o.kind === 'served' && ctx.afterAnswer) await ctx.afterAnswer(o.text, costs).catch(() => undefined); // a cache write never fails the call
  const reply = respond(ctx, o, costs, input.overheadMs);
  if (ctx.claim) await s.idempotency.complete(ctx.claim, 200, reply.headers, reply.body as string);
  if (o.kind === 'served') learnLater(call, s, o.named); // learn: after the answer, off the request path
  return reply;
}

/**
 * A relayed stream's end. It ends only once its call is in the write-ahead file; one the file
 * cannot take (a full disk) is not recorded, so it is not a finished answer: the client gets an
 * error event where the final chunk and [DONE] would be (its head is sent: no 500 can).
 */
async function streamEnd(call: Call, s: PipelineDeps, o: Streamed, { costs, input }: { costs: Costs; input: MeterInput }): Promise<Reply> {
  const { ctx } = call;
  const written = s.meter.written();
  const unrecorded = written ? await written.then(() => null, (err: unknown) => new ApiError('internal', undefined, { cause: err })) : null;
  const answered = o.status === 200 && !unrecorded;
  if (answered) ctx.served = o.attempt;
  // a whole streamed answer is stored like a non-stream one, before the stream ends: a client that asks again once it has the answer finds it
  if (answered && ctx.afterAnswer && o.assembled) await ctx.afterAnswer(o.assembled, costs).catch(() => undefined);
  const tail = respond(ctx, o, costs, input.overheadMs, unrecorded);
  if (ctx.claim) {
    if (answered) await s.idempotency.complete(ctx.claim, 200, o.headers, [...(o.recorded ?? []), tail.body as string].join(''));
    else await s.idempotency.release(ctx.claim);
  }
  if (answered) learnLater(call, s, o.named); // a stream learns once it has ended
  return tail;
}

/** The call is over (answered, failed, or its stream ended). */
function end(pipeline: Pipeline, call: Call, s: PipelineDeps, error: ApiError | null): void {
  const { ctx } = call;
  call.upstream.done();
  if (ctx.reservation) s.budget.release(ctx.reservation); // never metered: nothing charged (a no-op once settled)
  if (!call.learn) dropLearning(ctx, s); // learning that will not run gives its share of the reservation back
  pipeline.ended?.(call, s);
  if (error) call.trace?.end(error.status, error.code);
  else call.trace?.end();
}
