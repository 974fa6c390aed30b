// POST /v1/embeddings: OpenAI's embeddings wire in and out, for every vendor that embeds, as its
// list of stages (`EMBEDDING_STAGES` below) on the completion pipeline's runner (run-call.ts):
//   authenticate → validate → route (the catalog; an embedding model only) → budget (the call's
//   maximum cost reserved against the allowance, wallet and spend cap, and its rate limits, as
//   chat's budget stage does) → dispatch (the vendor's adapter; retries before any answer, the
//   circuit breaker) → outcome; then the runner's one exit: meter (settles the reservation to
//   the charge) → respond.
// The key goes where chat keys go: the client's key for that vendor (x-provider-key, bound to
// the named model's vendor, or x-provider-key-<vendor>), else the tenant's stored key, else the
// platform's; the body never chooses. An unlisted model is priced or refused as on chat
// (route.ts, priceUnlisted): the admin's alias or unknown-model price, else only on the tenant's
// key. No cross-vendor failover (embeddings-vendor.ts).
import { ApiError } from '../errors.ts';
import { parseWith } from '../input/validate.ts';
import type { CallTarget, EmbeddingAdapter, EmbeddingInput } from '../providers/types.ts';
import type { PipelineDeps } from './deps.ts';
import type { PipelineHandler } from './reply.ts';
import type { Served } from './outcome.ts';
import { runCall, runStages, type Call, type Pipeline, type Stage } from './run-call.ts';
import { keySource } from './dispatch.ts';
import { noUsage, type Usage } from '../wire/usage.ts';
import { reserveCall } from './budget-stage.ts';
import { markProduction } from './production-keys.ts';
import { embeddingsBodySchema, embeddingsResponse, embeddingTokenBound, estimateEmbeddingTokens, inputList, refuseUnnamable, type EmbeddingsBody } from './embeddings-wire.ts';
import { dispatchEmbedding, routeEmbedding } from './embeddings-vendor.ts';

export { embeddingsBodySchema } from './embeddings-wire.ts';

/** What an embeddings call has established by each stage: the body, the input as the adapter takes it, the vendor, who pays. */
interface EmbeddingJob {
  body: EmbeddingsBody;
  input: EmbeddingInput;
  adapter?: EmbeddingAdapter;
  target?: CallTarget;
  paidBy?: 'platform' | 'tenant';
}

/** An embeddings call on its way through the stages. */
interface EmbeddingCall extends Call {
  job?: EmbeddingJob;
}

/** Validate: the body, the names it holds, and the input as a list; a workflow in production runs on the tenant's own keys, embeddings too. */
function validate(call: EmbeddingCall, s: PipelineDeps): void {
  const { ctx, request } = call;
  const body = parseWith(embeddingsBodySchema, request.body, 'invalid_request');
  refuseUnnamable(body);
  ctx.requestedModel = body.model;
  ctx.body = body;
  markProduction(ctx, s);
  call.job = { body, input: { input: inputList(body.input), ...(body.dimensions !== undefined ? { dimensions: body.dimensions } : {}), ...(body.user !== undefined ? { user: body.user } : {}) } };
}

/** Route: the named model on the vendor that makes its vectors, refused where that vendor cannot do what the request asks. */
function route(call: EmbeddingCall, s: PipelineDeps): void {
  const job = call.job!;
  const { adapter, target } = routeEmbedding(call.ctx, s);
  const refused = adapter.unsupported(job.input, target);
  if (refused) throw new ApiError('invalid_request', `${target.provider.name} cannot do this: ${refused}.`);
  job.adapter = adapter;
  job.target = target;
}

/**
 * Budget: on the platform's key the vendor cost is charged (allowance first, then wallet); on the
 * tenant's own, only the fee, which a pinned call (every embedding call) never owes.
 */
async function budget(call: EmbeddingCall, s: PipelineDeps): Promise<void> {
  const { ctx } = call;
  const job = call.job!;
  const target = job.target!;
  const source = keySource(ctx, target.provider.name, target.provider, s.providerKeys);
  const paidBy = source === 'client' || source === 'tenant' ? 'tenant' : 'platform';
  job.paidBy = paidBy;
  const profile = ctx.route!.profile;
  const price = (tokens: number) => (profile ? Math.ceil(tokens * profile.input_per_mtok) : 0);
  await reserveCall(ctx, s, {
    bound: embeddingTokenBound(job.input.input),
    count: () => estimateEmbeddingTokens(job.input.input),
    cost: (tokens) => ({ all: price(tokens), baseline: 0, platform: paidBy === 'platform', learning: 0 }), // pinned: no saving, so no fee
  });
}

/** Dispatch: the vendor's vectors, as OpenAI's list; respond adds the `optimizer` block before its closing brace, as to a completion. */
async function dispatch(call: EmbeddingCall, s: PipelineDeps): Promise<Served> {
  const { ctx, upstream } = call;
  const job = call.job!;
  const t0 = performance.now();
  const { parsed, attempt } = await dispatchEmbedding(ctx, s, job.adapter!, job.target!, job.input, upstream.signal, job.paidBy!);
  const upstreamMs = performance.now() - t0;
  const usage: Usage = { ...noUsage, promptTokens: parsed.promptTokens ?? estimateEmbeddingTokens(job.input.input), estimated: parsed.promptTokens === null };
  attempt.usage = usage;
  ctx.served = attempt;
  const text = JSON.stringify(embeddingsResponse(parsed, job.target!.model, usage, job.body.encoding_format ?? 'float'));
  return { kind: 'served', text, upstreamMs, vendorStatus: attempt.status, usage };
}

/** The embeddings stages, in the order a call passes them (each `(call, deps)`; the last ends the call). */
export const EMBEDDING_STAGES: readonly Stage<EmbeddingCall>[] = [
  { name: 'validate', run: validate },
  { name: 'route', run: route },
  { name: 'budget', run: budget },
  { name: 'dispatch', run: dispatch },
];

const embeddingsPipeline: Pipeline = {
  stages: (call, s) => runStages(EMBEDDING_STAGES, call, s),
  metered: (ctx) => ctx.route !== null, // refused before its model was routed: unmetered
};

/** POST /v1/embeddings, registered on Fastify by http/pipeline-routes.ts. */
export function embeddingsHandler(s: PipelineDeps): PipelineHandler {
  return (request) => runCall(embeddingsPipeline, s, request);
}
