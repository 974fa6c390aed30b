// The Vercel AI SDK helper against a real gateway and mock vendor, driven with the real `ai`
// and `@ai-sdk/openai` packages of every major the SDK's peer ranges accept (ai 5 with
// @ai-sdk/openai 2, ai 6 with 3, ai 7 with 4): the annotation given as
// providerOptions.optimizer reaches the gateway (its step shows up in the registry), and the
// response's cost block, call id and served model reach the caller as
// providerMetadata.optimizer, for generateText and streamText.
import * as ai7 from 'ai';
import * as ai6 from 'ai-v6';
import * as ai5 from 'ai-v5';
import { createOpenAI as createOpenAI3 } from '@ai-sdk/openai-v3';
import { createOpenAI as createOpenAI2 } from '@ai-sdk/openai-v2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OptimizerClient, OptimizerError, type OptimizerAnnotation } from '../src/index.ts';
import { createOptimizer, optimizerInfo } from '../src/ai/index.ts';
import { optimizerModel } from '../src/ai/model.ts';
import { annotatingFetch } from '../src/shared/meta.ts';
import { routeOnMockOpenAI, startRig, type Rig } from '../../../apps/api/test/support/vendor.ts';

let rig: Rig;
let client: OptimizerClient;
beforeAll(async () => {
  rig = await startRig();
  expect((await routeOnMockOpenAI(rig)).status).toBe(200);
  rig.vendor.script({ content: 'Billing', usage: { prompt_tokens: 200, completion_tokens: 5 } });
  client = new OptimizerClient({ baseURL: rig.gw.url, apiKey: rig.tenant.api_key });
});
afterAll(async () => {
  await rig?.close();
});

const stepLabels = async () => (await client.workflows.steps.list(rig.tenant.workflow_id)).map((s) => s.label);

// Each major's own functions; the model each is given is that major's provider's chat model.
type Loose = (opts: Record<string, unknown>) => never;
interface Major {
  generateText: Loose;
  streamText: Loose;
  /** A model of the major's @ai-sdk/openai, through the gateway, with a default annotation. */
  model: (annotation?: OptimizerAnnotation) => unknown;
}
const gateway = () => ({ baseURL: `${rig.gw.url}/v1`, apiKey: rig.tenant.api_key, fetch: annotatingFetch() });
const majors: Array<[string, Major]> = [
  ['ai 7 with @ai-sdk/openai 4, through createOptimizer', { generateText: ai7.generateText as never, streamText: ai7.streamText as never, model: (annotation) => createOptimizer({ baseURL: rig.gw.url, apiKey: rig.tenant.api_key, annotation })('auto') }],
  ['ai 6 with @ai-sdk/openai 3', { generateText: ai6.generateText as never, streamText: ai6.streamText as never, model: (annotation) => optimizerModel(createOpenAI3(gateway()).chat('auto'), annotation) }],
  ['ai 5 with @ai-sdk/openai 2', { generateText: ai5.generateText as never, streamText: ai5.streamText as never, model: (annotation) => optimizerModel(createOpenAI2(gateway()).chat('auto'), annotation) }],
];

describe.each(majors)('the AI SDK helper on %s', (name, major) => {
  const tag = name.slice(3, 4);
  it('sends providerOptions.optimizer as the annotation and hands back the cost block and call id of generateText', async () => {
    const result = (await major.generateText({
      model: major.model(),
      prompt: 'Classify: "my invoice is wrong"',
      maxRetries: 0,
      providerOptions: { optimizer: { run: { id: `ai-run-${tag}`, seq: 0, is_start: true }, step: { id: `ai-triage-${tag}`, kind: 'classification' } } },
    })) as { text: string; providerMetadata?: Record<string, unknown> };
    expect(result.text).toBe('Billing');
    const info = optimizerInfo(result);
    expect(info).not.toBeNull();
    expect(info!.baseline_cost).toBeGreaterThan(0);
    expect(info!.actual_cost).toBeGreaterThan(0);
    expect(info!.saving).toBeCloseTo(info!.baseline_cost - info!.actual_cost, 9);
    expect(info!.call_id).toMatch(/\S/);
    expect(info!.model).toMatch(/\S/);
    // the gateway read the annotation: the step is registered under the declared id
    expect(await stepLabels()).toContain(`ai-triage-${tag}`);
    // the vendor never saw it: the gateway strips it, and the carrier header never left the client
    const last = rig.vendor.requests.at(-1)!;
    expect(last.body).not.toHaveProperty('optimizer');
    expect(Object.keys(last.headers)).not.toContain('x-optimizer-sdk-annotation');
    // the call id names a metered call whose reasons the client can read
    const call = await client.calls.find(info!.call_id!);
    expect(call?.reasons.length).toBeGreaterThan(0);
  });

  it('hands back the cost block and call id of streamText on the finish part and providerMetadata, keeping raw chunks out unless asked', async () => {
    const result = major.streamText({ model: major.model({ source: { release: 'r1' } }), prompt: 'Classify: "refund please"', maxRetries: 0, providerOptions: { optimizer: { step: { id: `ai-stream-${tag}` } } } }) as {
      fullStream: AsyncIterable<{ type: string; providerMetadata?: Record<string, unknown> }>;
      text: Promise<string>;
      providerMetadata: Promise<Record<string, unknown> | undefined>;
    };
    const kinds = new Set<string>();
    let finish: Record<string, unknown> | undefined;
    for await (const part of result.fullStream) {
      kinds.add(part.type);
      if (part.type === 'finish-step') finish = part.providerMetadata;
    }
    expect(kinds.has('raw')).toBe(false);
    expect(await result.text).toBe('Billing');
    const info = optimizerInfo(await result.providerMetadata);
    expect(info?.baseline_cost).toBeGreaterThan(0);
    expect(info?.call_id).toMatch(/\S/);
    expect(optimizerInfo(finish)).toEqual(info);
    expect(await stepLabels()).toContain(`ai-stream-${tag}`);
    const call = await client.calls.find(info!.call_id!);
    expect(call?.reasons.length).toBeGreaterThan(0);
  });

  it('refuses a malformed annotation before sending', async () => {
    const before = rig.vendor.requests.length;
    const err = await (major.generateText({ model: major.model(), prompt: 'x', maxRetries: 0, providerOptions: { optimizer: { run: { seq: -1 } } } }) as Promise<unknown>).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OptimizerError);
    expect(err).toMatchObject({ code: 'client_validation', param: 'optimizer.run.seq' });
    expect(rig.vendor.requests.length).toBe(before);
  });
});
