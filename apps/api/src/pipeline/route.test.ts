// Stage: route, for a pinned model (route.ts) and the pinned call's step (notePinned,
// plan-routed.ts). A pinned name is honored verbatim, its bare x-provider-key bound to its vendor;
// its failover is the same model elsewhere unless the tenant allows any; a name the catalog does
// not list is priced or, on the platform's key with no price, refused once the budget is checked.
import { describe, expect, it } from 'vitest';
import type { PipelineDeps } from './deps.ts';
import { notePinned } from './plan-routed.ts';
import { defaultBaseline, route, type RouteDeps } from './route.ts';
import { callContext, catalogOf, profile, providersOf, storedKeys } from '../../test/support/pipeline.ts';

const models = [
  profile('gpt-4.1', 'openai', { weights: 'gpt-4.1', failover: ['claude-sonnet'], strengths: { chat: 0.9 } }),
  profile('gpt-4.1@azure', 'azure', { weights: 'gpt-4.1' }),
  profile('claude-sonnet', 'anthropic', { strengths: { chat: 0.85 } }),
  profile('embed-small', 'openai', { output_modalities: ['embedding'] }),
  profile('cheap', 'groq', { strengths: { chat: 0.5 }, input_per_mtok: 0.1, output_per_mtok: 0.2 }),
  profile('mistral-large', 'mistral', { strengths: { chat: 0.95 } }), // listed, on a vendor this gateway has no address for
];

function deps(over: { failover?: 'same_model' | 'any'; stored?: string[]; platformless?: string[] } = {}): RouteDeps {
  const vendors = Object.fromEntries(['openai', 'azure', 'anthropic', 'groq'].map((v) => [v, { platformKey: !over.platformless?.includes(v) }]));
  return {
    catalog: catalogOf(models),
    providers: providersOf(vendors),
    providerKeys: storedKeys(over.stored),
    routingSettings: { get: () => (over.failover ? { failover: over.failover } : {}) },
  } as unknown as RouteDeps;
}

describe('route, pinned', () => {
  it('honors a catalog model verbatim, with the same model on another vendor as its only failover', () => {
    const ctx = callContext({ model: 'gpt-4.1' });
    route(ctx, deps());
    expect(ctx.route).toMatchObject({ model: 'gpt-4.1', provider: 'openai', requestedProvider: 'openai', pinned: true, baselineModel: 'gpt-4.1' });
    expect(ctx.route!.failover.map((c) => c.model)).toEqual(['gpt-4.1@azure']);
    expect(ctx.route!.reasons).toEqual(['pinned to gpt-4.1: honored verbatim', 'failover: only to the same model on another vendor: gpt-4.1@azure (azure)']);
  });

  it('fails over to another model only when the routing settings allow any', () => {
    const ctx = callContext({ model: 'gpt-4.1' });
    route(ctx, deps({ failover: 'any' }));
    expect(ctx.route!.failover.map((c) => c.model)).toEqual(['gpt-4.1@azure', 'claude-sonnet']);
  });

  it('binds a bare x-provider-key to the pinned model’s vendor only', () => {
    const ctx = callContext({ model: 'claude-sonnet' }, { 'x-provider-key': 'sk-client' });
    route(ctx, deps());
    expect([...ctx.clientKeys]).toEqual([['anthropic', 'sk-client']]);
  });

  it('refuses an embedding model (400 invalid_request) and a vendor not configured here (provider_unavailable)', () => {
    expect(() => route(callContext({ model: 'embed-small' }), deps())).toThrow(expect.objectContaining({ code: 'invalid_request', param: 'model' }));
    expect(() => route(callContext({ model: 'mistral-large' }), deps())).toThrow(expect.objectContaining({ code: 'provider_unavailable' }));
  });

  it('refuses a production call whose vendor it holds no key of its own for (409 production_key_required)', () => {
    const ctx = callContext({ model: 'claude-sonnet' });
    ctx.production = true;
    expect(() => route(ctx, deps())).toThrow(expect.objectContaining({ code: 'production_key_required', status: 409 }));
    const keyed = callContext({ model: 'claude-sonnet' });
    keyed.production = true;
    route(keyed, deps({ stored: ['anthropic'] }));
    expect(keyed.route?.model).toBe('claude-sonnet');
  });

  it('notes the refusal of an unlisted model on the platform key with no price, for the budget stage to throw', () => {
    const ctx = callContext({ model: 'groq/llama-new' });
    route(ctx, deps());
    expect(ctx.route).toMatchObject({ model: 'llama-new', provider: 'groq', profile: undefined });
    expect(ctx.unpricedRefusal).toMatchObject({ code: 'unknown_model', status: 400, extra: { suggestions: ['gpt-4.1'] } });
  });

  it("serves an unlisted model unpriced on the tenant's own key", () => {
    const ctx = callContext({ model: 'groq/llama-new' }, { 'x-provider-key-groq': 'sk-client-groq' });
    route(ctx, deps());
    expect(ctx.unpricedRefusal).toBeNull();
    expect(ctx.route!.reasons[0]).toBe("pinned to llama-new: not in the catalog, forwarded to groq unpriced on the tenant's own key");
  });
});

describe('route, auto (before the optimizer plans it)', () => {
  it('serves the strongest model on a vendor the tenant can reach', () => {
    const ctx = callContext({ model: 'auto' });
    route(ctx, deps());
    expect(ctx.route).toMatchObject({ model: 'gpt-4.1', pinned: false, baselineModel: 'gpt-4.1' });
    expect(defaultBaseline('acct_1', deps({ platformless: ['openai', 'azure'] }))?.model).toBe('claude-sonnet');
  });
});

describe('notePinned', () => {
  function pinnedDeps() {
    const remembered: unknown[] = [];
    const s = { routingSettings: { floor: () => 0.9 }, outcomes: { remember: (...args: unknown[]) => void remembered.push(args) } } as unknown as PipelineDeps;
    return { s, remembered };
  }

  it("records a pinned call in a run as its step's evidence for the pinned model", () => {
    const ctx = callContext({ model: 'gpt-4.1' });
    ctx.annotation = { step: { id: 'plan' }, run: { id: 'run-1' } } as typeof ctx.annotation;
    route(ctx, deps());
    const { s, remembered } = pinnedDeps();
    notePinned(ctx, s);
    expect(ctx.optimizer).toMatchObject({ step: 'plan', policy: 'model:gpt-4.1', baseline: 'gpt-4.1', floor: 0.9, settled: false });
    expect(remembered).toEqual([['acct_1', 'run-1', 'plan', expect.objectContaining({ callId: ctx.id, policy: 'model:gpt-4.1' })]]);
  });

  it('notes nothing of a call outside a run', () => {
    const ctx = callContext({ model: 'gpt-4.1' });
    route(ctx, deps());
    const { s, remembered } = pinnedDeps();
    notePinned(ctx, s);
    expect(ctx.optimizer).toBeNull();
    expect(remembered).toEqual([]);
  });
});
