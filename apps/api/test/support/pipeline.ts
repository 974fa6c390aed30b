// Small fakes for the pipeline's stage tests beside the code (apps/api/src/pipeline/*.test.ts):
// a call's context, catalog models, and a vendor behind the real OpenAI adapter whose answers a
// test scripts per model. Only the vendor's socket is fake: dispatch, the adapter's request and
// parsing, and the attempts a call records are the gateway's own.
import type { ModelProfile } from '@optimizer/schema';
import { OutboundBody, type OutboundRequest, type OutboundResponse } from '../../src/providers/outbound.ts';
import type { ProviderInfo } from '../../src/providers/types.ts';
import { newCallContext, type CallContext } from '../../src/pipeline/context.ts';

export const principal = { accountId: 'acct_1', workflowId: 'wf_1', keyId: 'key_1' };

/** A context as annotate leaves it: a chat body with `messages`, the model it names. */
export function callContext(body: Record<string, unknown> = {}, headers: Record<string, unknown> = {}): CallContext {
  const ctx = newCallContext(principal, headers);
  ctx.body = { model: 'gpt-4.1', messages: [{ role: 'user', content: 'What is the capital of Norway?' }], ...body };
  ctx.requestedModel = String(ctx.body.model);
  return ctx;
}

/** A text model; prices in USD per million tokens. */
export function profile(model: string, provider: string, over: Partial<ModelProfile> = {}): ModelProfile {
  return {
    model, provider, input_per_mtok: 1, output_per_mtok: 4, cached_input_per_mtok: 0.5, cache_write_multiplier: 1,
    input_modalities: ['text'], output_modalities: ['text'], tools: 'full', structured_outputs: true, reasoning_efforts: [],
    context_length: 128_000, max_output_tokens: 16_000, search_only: false, moderation_only: false, strengths: { chat: 0.8 }, disabled: false, failover: [],
    ...over,
  };
}

/** A catalog of `models`, as the stages read it. */
export function catalogOf(models: ModelProfile[]) {
  const byName = new Map(models.map((m) => [m.model, m]));
  return { get: (m: string) => byName.get(m), all: () => models, aliasOf: () => undefined, closest: () => ['gpt-4.1'], unknownModelPrice: () => null };
}

/** Vendors on the OpenAI wire; `platformKey` false: the platform holds no key for it. */
export function providersOf(vendors: Record<string, { platformKey?: boolean }>) {
  const infos = new Map<string, ProviderInfo>(
    Object.entries(vendors).map(([name, v]) => [name, { name, wire: 'openai', baseUrl: `http://127.0.0.1:9/${name}/v1`, ...(v.platformKey === false ? {} : { platformKey: `sk-platform-${name}` }) }]),
  );
  return { get: (n: string) => infos.get(n), has: (n: string) => infos.has(n), names: () => [...infos.keys()] };
}

/** The tenant's stored provider keys: one per vendor named. */
export function storedKeys(vendors: string[] = []) {
  return { has: (_account: string, p: string) => vendors.includes(p), reveal: (_account: string, p: string) => (vendors.includes(p) ? `sk-tenant-${p}` : undefined) };
}

/** What a scripted vendor answers: a completion's content (200), or an HTTP error, or a thrown transport error. */
export type VendorAnswer = string | { status: number; body?: string; headers?: Record<string, string> } | Error;

/** A chat.completion in OpenAI's shape. */
export function completion(content: string, finishReason = 'stop', usage = { prompt_tokens: 10, completion_tokens: 5 }): string {
  return JSON.stringify({ id: 'c1', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: finishReason }], usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } });
}

/** One request as the scripted vendor got it; `n` counts the requests for that model on that vendor from 0. */
export interface VendorRequest {
  vendor: string;
  model: string;
  body: Record<string, unknown>;
  n: number;
}

/**
 * The vendor's side of the outbound module: `answer` scripts each reply. `sent` lists each
 * request as it went (vendor, model, the key it carried).
 */
export function scriptedVendor(answer: (req: VendorRequest) => VendorAnswer) {
  const sent: { vendor: string; model: string; key: string | undefined; body: Record<string, unknown> }[] = [];
  const counts = new Map<string, number>();
  const outbound = {
    request: async (req: OutboundRequest): Promise<OutboundResponse> => {
      const body = JSON.parse(req.body ?? '{}') as Record<string, unknown>;
      const model = String(body.model);
      const vendor = req.url.pathname.split('/')[1]!;
      const n = counts.get(`${vendor}/${model}`) ?? 0;
      counts.set(`${vendor}/${model}`, n + 1);
      sent.push({ vendor, model, key: req.headers.authorization?.replace(/^Bearer /, ''), body });
      const a = answer({ vendor, model, body, n });
      if (a instanceof Error) throw a;
      const { status, text, headers } = typeof a === 'string' ? { status: 200, text: completion(a), headers: {} } : { status: a.status, text: a.body ?? JSON.stringify({ error: { message: 'failed', type: 'server_error' } }), headers: a.headers ?? {} };
      const out = new OutboundBody(() => undefined);
      out.push(Buffer.from(text));
      out.end();
      return { statusCode: status, headers: { 'content-type': 'application/json', ...headers }, body: out };
    },
  };
  return { outbound, sent };
}

/**
 * The services a routed call's serving and learning use (serve-routed, learn, grade-trial,
 * learning-job), on a scripted vendor: `answers` by model, a function of the request for a judge
 * that grades what it reads. Records what the optimizer, the meter and the budget were told.
 */
export function routedServices(models: ModelProfile[], answers: Record<string, VendorAnswer | ((req: VendorRequest) => VendorAnswer)>) {
  const vendor = scriptedVendor((req) => {
    const a = answers[req.model] ?? { status: 500 };
    return typeof a === 'function' ? a(req) : a;
  });
  const told: { op: string; args: unknown[] }[] = [];
  const tell = (op: string) => (...args: unknown[]) => void told.push({ op, args });
  const providers = [...new Set(models.map((m) => m.provider))];
  const s = {
    config: { BILLING_FEE_RATE: 0.25 },
    catalog: catalogOf(models),
    providers: providersOf(Object.fromEntries(providers.map((p) => [p, {}]))),
    providerKeys: storedKeys(),
    outbound: vendor.outbound,
    optimizer: {
      recordServed: (step: unknown, sample: Record<string, unknown>) => (tell('recordServed')(step, sample), { row: { id: `ev-${told.length}`, kind: 'served', sample }, events: [{ kind: 'drift', at: new Date(), payload: {} }] }),
      recordProbe: (step: unknown, probe: Record<string, unknown>) => (tell('recordProbe')(step, probe), { id: `ev-${told.length}`, kind: 'probe', sample: probe }),
      recordJudgePair: (...args: unknown[]) => (tell('recordJudgePair')(...args), { id: `ev-${told.length}`, kind: 'judge', sample: {} }),
      noteExploration: tell('noteExploration'),
    },
    discovery: { charge: tell('discovery.charge') },
    meter: { recordLearning: tell('meter.recordLearning') },
    budget: { release: tell('budget.release'), settle: (...args: unknown[]) => (tell('budget.settle')(...args), []) },
  };
  return { s, told, sent: vendor.sent, ops: () => told.map((t) => t.op) };
}
