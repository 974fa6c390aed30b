// A workflow in production runs on the tenant's own keys: `markProduction` notes it on the call,
// and `withOwnKeys` turns a routed plan that found no model into 409 production_key_required
// naming the vendors that lack a key of the tenant's own.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../errors.ts';
import type { PipelineDeps } from './deps.ts';
import { markProduction, withOwnKeys } from './production-keys.ts';
import { callContext, providersOf, storedKeys } from '../../test/support/pipeline.ts';

function deps(inProduction: boolean, stored: string[] = []) {
  return {
    workflowLife: { inProduction: (_a: string, wf: string) => inProduction && wf === 'wf_1' },
    providers: providersOf({ openai: {}, anthropic: {}, groq: {}, ollama: {}, local: { platformKey: false } }),
    providerKeys: storedKeys(stored),
  } as unknown as PipelineDeps;
}

const noModel = () => {
  throw new ApiError('provider_unavailable', 'No enabled, reachable model in the catalog can serve this request.');
};

describe('markProduction', () => {
  it("marks the call of a workflow in production, and no other workflow's", () => {
    const ctx = callContext();
    markProduction(ctx, deps(true));
    expect(ctx.production).toBe(true);
    const other = callContext();
    markProduction(other, deps(false));
    expect(other.production).toBe(false);
  });
});

describe('withOwnKeys', () => {
  it("returns the plan when one is found", () => {
    const ctx = callContext();
    ctx.production = true;
    expect(withOwnKeys(ctx, deps(true), undefined, () => 'plan')).toBe('plan');
  });

  it('refuses 409 production_key_required naming the vendors without a key of the tenant (allowed, keyed by the platform, not sent or stored)', () => {
    const ctx = callContext({}, { 'x-provider-key-groq': 'sk-client-groq' });
    ctx.production = true;
    let refusal: unknown;
    try {
      withOwnKeys(ctx, deps(true, ['anthropic']), ['openai', 'anthropic', 'groq', 'ollama'], noModel);
    } catch (e) {
      refusal = e;
    }
    expect(refusal).toMatchObject({ code: 'production_key_required', status: 409, extra: { providers: ['openai'] } });
  });

  it('passes the refusal on unchanged outside production, or when every vendor has a key', () => {
    const ctx = callContext();
    expect(() => withOwnKeys(ctx, deps(false), undefined, noModel)).toThrow(expect.objectContaining({ code: 'provider_unavailable' }));
    const keyed = callContext();
    keyed.production = true;
    expect(() => withOwnKeys(keyed, deps(true, ['openai', 'anthropic', 'groq']), undefined, noModel)).toThrow(expect.objectContaining({ code: 'provider_unavailable' }));
  });

  it('passes other errors on unchanged in production', () => {
    const ctx = callContext();
    ctx.production = true;
    const e = new ApiError('invalid_request', 'bad');
    expect(() => withOwnKeys(ctx, deps(true), undefined, () => { throw e; })).toThrow(e);
  });
});
