// POST /v1/embeddings: OpenAI's embeddings wire in and out, for every vendor that embeds. Its
// stages (`stages` below) run on the completion pipeline's runner (run-call.ts):
//   authenticate → validate → route (the catalog; an embedding model only) → budget (the call's
//   maximum cost reserved against the allowance, wallet and spend cap, and its rate limits, as
//   chat's budget stage does) → dispatch (the vendor's adapter; retries before any answer, the
//   circuit breaker) → outcome; then the runner's one exit: meter (settles the reservation to
//   the charge) → respond.
// The key goes where chat keys go: the client's key for that vendor (x-provider-key, bound to
// the named model's vendor, or x-provider-key-<vendor>), else the tenant's stored key, else the
// platform's; the body never chooses. An unlisted model is priced or refused as on chat
// (route.ts, priceUnlisted): the admin's alias or unknown-model price, else only on the tenant's key. There is no cross-vendor failover: another vendor's
// model puts vectors in another space, which a client's index cannot mix.
import { z } from 'zod';
import { ApiError } from '../errors.ts';
import { parseWith } from '../input/validate.ts';
import { embeddingAdapterFor } from '../providers/embedding-adapters.ts';
import { assertModelId, assertModelName } from '../providers/model-id.ts';
import { redactError, sentSecrets } from '../providers/redact.ts';
import type { CallTarget, EmbeddingAdapter, EmbeddingAnswer, EmbeddingInput, ParsedEmbeddings } from '../providers/types.ts';
import type { PipelineDeps } from './deps.ts';
import type { Attempt, CallContext } from './context.ts';
import type { PipelineHandler } from './reply.ts';
import type { Served } from './outcome.ts';
import { runCall, type Call, type Pipeline } from './run-call.ts';
import { circuitOpen, withRetries } from './dispatch-policy.ts';
import { breakerKey } from '../providers/circuit-breaker.ts';
import { upstreamInvalid } from '../providers/vendor-shape.ts';
import { keyFor, keySource, transportError } from './dispatch.ts';
import { noUsage, type Usage } from '../wire/usage.ts';
import { bindProviderKey, isRouted, priceUnlisted, resolvePinned } from './route.ts';
import { countTokens } from './tokens.ts';
import { reserveCall } from './budget-stage.ts';
import { refuseUnstorableName, unstorable } from '../input/storable.ts';
import { markProduction } from './production-keys.ts';

/** OpenAI's limit on inputs per request. */
const MAX_INPUTS = 2048;
/** Vendor calls in flight at once for one request (Titan embeds one text a call). */
const PARALLEL_CALLS = 8;

const tokenIds = z.array(z.int().nonnegative()).min(1);
export const embeddingsBodySchema = z
  .object({
    model: z.string().min(1),
    input: z.union([z.string().min(1), z.array(z.string().min(1)).min(1).max(MAX_INPUTS), tokenIds, z.array(tokenIds).min(1).max(MAX_INPUTS)]),
    encoding_format: z.enum(['float', 'base64']).optional(),
    dimensions: z.int().positive().optional(),
    user: z.string().optional(),
  })
  .strict();
type EmbeddingsBody = z.infer<typeof embeddingsBodySchema>;

/** The request as a list: a string or one token array is one input. */
export function inputList(input: EmbeddingsBody['input']): string[] | number[][] {
  if (typeof input === 'string') return [input];
  if (input.length > 0 && typeof input[0] === 'number') return [input as number[]];
  return input as string[] | number[][];
}

/** OpenAI's base64 embedding: float32 values, little-endian. */
export function base64Embedding(values: number[]): string {
  const buf = Buffer.allocUnsafe(values.length * 4);
  for (let i = 0; i < values.length; i++) buf.writeFloatLE(values[i]!, i * 4);
  return buf.toString('base64');
}

/** An upper bound of the input's tokens without the tokenizer: a byte-level BPE token covers at least one byte. */
export function embeddingTokenBound(input: string[] | number[][]): number {
  return input.reduce((n, i) => n + (typeof i === 'string' ? Buffer.byteLength(i) : i.length), 0);
}

/** Counted by us when the vendor reports no tokens (flagged estimated). */
export function estimateEmbeddingTokens(input: string[] | number[][]): number {
  return input.reduce((n, i) => n + (typeof i === 'string' ? countTokens(i) : i.length), 0);
}

export function embeddingsResponse(parsed: ParsedEmbeddings, model: string, usage: Usage, format: 'float' | 'base64'): Record<string, unknown> {
  return {
    object: 'list',
    data: parsed.vectors.map((v, index) => ({ object: 'embedding', index, embedding: format === 'base64' ? base64Embedding(v) : v })),
    model,
    usage: { prompt_tokens: usage.promptTokens, total_tokens: usage.promptTokens },
  };
}

/**
 * The fields that name something cannot hold NUL or a lone surrogate (PostgreSQL cannot store
 * them, and the call's record keeps the model). The input is text to embed: it may hold anything.
 */
function refuseUnnamable(body: EmbeddingsBody): void {
  assertModelName(body.model);
  if (body.user !== undefined && unstorable(body.user)) refuseUnstorableName('user');
}

/** Route: the model from the catalog (or provider/model), which must make embeddings on a vendor that has them. */
function route(ctx: CallContext, s: PipelineDeps): { adapter: EmbeddingAdapter; target: CallTarget } {
  // Vectors from different models cannot be compared, so nothing chooses the model but the client.
  if (isRouted(ctx.requestedModel)) throw new ApiError('not_embedding_model', `Embeddings take a named embedding model, not "${ctx.requestedModel}".`, { param: 'model' });
  const resolved = resolvePinned(ctx.requestedModel, s.catalog, s.providers);
  const { model, provider, profile: listed } = resolved;
  const info = s.providers.get(provider);
  if (!info) throw new ApiError('provider_unavailable', `Model ${ctx.requestedModel} is served by ${provider}, which is not configured on this gateway.`, { param: 'model' });
  if (listed && !listed.output_modalities.includes('embedding')) {
    throw new ApiError('not_embedding_model', `${model} is a ${listed.output_modalities.join('/')} model, not an embedding model; name one such as text-embedding-3-small.`, { param: 'model' });
  }
  if (listed?.disabled) throw new ApiError('provider_unavailable', `${model} is disabled on this gateway.`, { param: 'model' });
  const adapter = embeddingAdapterFor(info);
  if (!adapter) throw new ApiError('embeddings_unsupported', `${provider} offers no embeddings; name an embedding model of another vendor.`, { param: 'model' });
  bindProviderKey(ctx, provider);
  const unlisted = listed ? null : priceUnlisted(ctx, s, model, provider, 'embedding');
  const profile = listed ?? unlisted?.profile;
  ctx.route = {
    model,
    provider,
    requestedProvider: provider,
    profile,
    failover: [],
    pinned: true,
    baselineModel: model,
    baselineProfile: profile,
    reasons: [unlisted ? `embeddings on ${model} (${provider}): ${unlisted.reason}` : resolved.aliasOf ? `embeddings on ${model} (${provider}), priced as ${resolved.aliasOf} (an alias)` : `embeddings on ${model} (${provider})`],
  };
  const target: CallTarget = { provider: info, model: assertModelId(model), apiKey: keyFor(ctx.clientKeys.get(provider), ctx, info, s.providerKeys) };
  return { adapter, target };
}

/** Sends every vendor call of one attempt (a few at a time) and reads their bodies; the first failure wins. */
async function sendAll(s: PipelineDeps, adapter: EmbeddingAdapter, target: CallTarget, req: EmbeddingInput, signal: AbortSignal, attempt: Attempt): Promise<EmbeddingAnswer[]> {
  const built = adapter.buildRequests(req, target);
  const requests = adapter.sign ? await Promise.all(built.map((r) => adapter.sign!(r, target))) : built;
  const answers: EmbeddingAnswer[] = new Array<EmbeddingAnswer>(requests.length);
  // One failed call ends its siblings: the attempt has failed as a whole.
  const siblings = new AbortController();
  const callSignal = AbortSignal.any([signal, siblings.signal]);
  for (let i = 0; i < requests.length; i += PARALLEL_CALLS) {
    await Promise.all(
      requests.slice(i, i + PARALLEL_CALLS).map(async (r, j) => {
        let res;
        try {
          res = await s.outbound.request({ url: r.url, method: 'POST', headers: r.headers, body: r.body, signal: callSignal, policy: target.provider.addressPolicy });
        } catch (err) {
          throw redactError(transportError(err, target.provider.name), sentSecrets(target, r));
        }
        attempt.status = res.statusCode;
        let text: string;
        try {
          text = await res.body.text();
        } catch (err) {
          throw redactError(transportError(err, target.provider.name), sentSecrets(target, r));
        }
        if (res.statusCode >= 400) throw redactError(adapter.mapError(res.statusCode, res.headers, text, target), sentSecrets(target, r));
        answers[i + j] = { text, headers: res.headers };
      }),
    ).catch((e: unknown) => {
      siblings.abort();
      throw e;
    });
  }
  return answers;
}

/** Dispatch with the policy chat uses (pipeline/dispatch-policy.ts), on the one vendor that makes this model's vectors. */
async function dispatch(ctx: CallContext, s: PipelineDeps, adapter: EmbeddingAdapter, target: CallTarget, req: EmbeddingInput, signal: AbortSignal, paidBy: 'platform' | 'tenant'): Promise<{ parsed: ParsedEmbeddings; attempt: Attempt }> {
  const provider = target.provider.name;
  const circuit = breakerKey(provider, target.apiKey); // this vendor with this key: another key's faults never shut it
  if (!s.breaker.allow(circuit)) throw circuitOpen(provider, s.breaker, circuit);
  const r = await withRetries(provider, s, signal, async () => {
    const startedAt = performance.now();
    const attempt: Attempt = { provider, model: target.model, profile: ctx.route!.profile, startedAt: new Date(), latencyMs: 0, status: null, outcome: 'error', usage: noUsage, role: 'serve', paidBy };
    ctx.attempts.push(attempt);
    try {
      const answers = await sendAll(s, adapter, target, req, signal, attempt);
      let parsed: ParsedEmbeddings;
      try {
        parsed = adapter.parseResponses(answers, req, target);
      } catch (err) {
        throw upstreamInvalid(provider, err, answers.map((a) => a.text).join('\n'), sentSecrets(target)); // a 502, never vectors the vendor did not send
      }
      attempt.outcome = 'ok';
      return { parsed, attempt };
    } finally {
      attempt.latencyMs = performance.now() - startedAt;
    }
  }, circuit);
  if (r.ok) return r.value;
  throw r.error;
}

async function stages({ ctx, request, upstream }: Call, s: PipelineDeps): Promise<Served> {
  const body = parseWith(embeddingsBodySchema, request.body, 'invalid_request');
  refuseUnnamable(body);
  ctx.requestedModel = body.model;
  ctx.body = body;
  markProduction(ctx, s); // a workflow in production runs on the tenant's own keys, embeddings too
  const req: EmbeddingInput = { input: inputList(body.input), ...(body.dimensions !== undefined ? { dimensions: body.dimensions } : {}), ...(body.user !== undefined ? { user: body.user } : {}) };
  const { adapter, target } = route(ctx, s);
  const refused = adapter.unsupported(req, target);
  if (refused) throw new ApiError('invalid_request', `${target.provider.name} cannot do this: ${refused}.`);

  // budget: on the platform's key the vendor cost is charged (allowance first, then wallet); on
  // the tenant's own, only the fee, which a pinned call (every embedding call) never owes
  const source = keySource(ctx, target.provider.name, target.provider, s.providerKeys);
  const paidBy = source === 'client' || source === 'tenant' ? 'tenant' : 'platform';
  const profile = ctx.route!.profile;
  const price = (tokens: number) => (profile ? Math.ceil(tokens * profile.input_per_mtok) : 0);
  await reserveCall(ctx, s, {
    bound: embeddingTokenBound(req.input),
    count: () => estimateEmbeddingTokens(req.input),
    cost: (tokens) => ({ all: price(tokens), baseline: 0, platform: paidBy === 'platform', learning: 0 }), // pinned: no saving, so no fee
  });

  const t0 = performance.now();
  const { parsed, attempt } = await dispatch(ctx, s, adapter, target, req, upstream.signal, paidBy);
  const upstreamMs = performance.now() - t0;
  const usage: Usage = { ...noUsage, promptTokens: parsed.promptTokens ?? estimateEmbeddingTokens(req.input), estimated: parsed.promptTokens === null };
  attempt.usage = usage;
  ctx.served = attempt;
  // respond adds the `optimizer` block before the list's closing brace, as to a completion
  const text = JSON.stringify(embeddingsResponse(parsed, target.model, usage, body.encoding_format ?? 'float'));
  return { kind: 'served', text, upstreamMs, vendorStatus: attempt.status, usage };
}

const embeddingsPipeline: Pipeline = {
  stages,
  metered: (ctx) => ctx.route !== null, // refused before its model was routed: unmetered
};

/** POST /v1/embeddings, registered on Fastify by http/pipeline-routes.ts. */
export function embeddingsHandler(s: PipelineDeps): PipelineHandler {
  return (request) => runCall(embeddingsPipeline, s, request);
}
