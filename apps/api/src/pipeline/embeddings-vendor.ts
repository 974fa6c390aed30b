// The vendor side of an embeddings call: the one model the client named, on the vendor that makes
// its vectors (route), and its calls to that vendor with the retries and circuit breaker chat uses
// (dispatch). There is no cross-vendor failover: another vendor's model puts vectors in another
// space, which a client's index cannot mix.
import { ApiError } from '../errors.ts';
import { embeddingAdapterFor } from '../providers/embedding-adapters.ts';
import { assertModelId } from '../providers/model-id.ts';
import { redactError, sentSecrets } from '../providers/redact.ts';
import type { CallTarget, EmbeddingAdapter, EmbeddingAnswer, EmbeddingInput, ParsedEmbeddings } from '../providers/types.ts';
import type { PipelineDeps } from './deps.ts';
import type { Attempt, CallContext } from './context.ts';
import { circuitOpen, withRetries } from './dispatch-policy.ts';
import { breakerKey } from '../providers/circuit-breaker.ts';
import { upstreamInvalid } from '../providers/vendor-shape.ts';
import { keyFor, transportError } from './dispatch.ts';
import { noUsage } from '../wire/usage.ts';
import { bindProviderKey, isRouted, priceUnlisted, resolvePinned } from './route.ts';

/** Vendor calls in flight at once for one request (Titan embeds one text a call). */
const PARALLEL_CALLS = 8;

/** Route: the model from the catalog (or provider/model), which must make embeddings on a vendor that has them. */
export function routeEmbedding(ctx: CallContext, s: PipelineDeps): { adapter: EmbeddingAdapter; target: CallTarget } {
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
export async function dispatchEmbedding(ctx: CallContext, s: PipelineDeps, adapter: EmbeddingAdapter, target: CallTarget, req: EmbeddingInput, signal: AbortSignal, paidBy: 'platform' | 'tenant'): Promise<{ parsed: ParsedEmbeddings; attempt: Attempt }> {
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
