// The Vercel AI SDK helper against a real gateway and mock vendor, driven with the real `ai`
// and `@ai-sdk/openai` packages: the annotation given as providerOptions.optimizer reaches
// the gateway (its step shows up in the registry), and the response's cost block reaches
// the caller as providerMetadata.optimizer, for generateText and streamText.
import { generateText, streamText } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OptimizerClient, OptimizerError } from '../src/index.ts';
import { createOptimizer, optimizerInfo } from '../src/ai/index.ts';
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

describe('the AI SDK helper', () => {
  it('sends providerOptions.optimizer as the annotation and hands back the cost block of generateText', async () => {
    const optimizer = createOptimizer({ baseURL: rig.gw.url, apiKey: rig.tenant.api_key });
    const result = await generateText({
      model: optimizer('auto'),
      prompt: 'Classify: "my invoice is wrong"',
      maxRetries: 0,
      providerOptions: { optimizer: { run: { id: 'ai-run-1', seq: 0, is_start: true }, step: { id: 'ai-triage', kind: 'classification' } } },
    });
    expect(result.text).toBe('Billing');
    const info = optimizerInfo(result);
    expect(info).not.toBeNull();
    expect(info!.baseline_cost).toBeGreaterThan(0);
    expect(info!.actual_cost).toBeGreaterThan(0);
    expect(info!.saving).toBeCloseTo(info!.baseline_cost - info!.actual_cost, 9);
    expect(info!.call_id).toMatch(/\S/);
    // the gateway read the annotation: the step is registered under the declared id
    expect(await stepLabels()).toContain('ai-triage');
    // the vendor never saw it: the gateway strips it, and the carrier header never left the client
    const last = rig.vendor.requests.at(-1)!;
    expect(last.body).not.toHaveProperty('optimizer');
    expect(Object.keys(last.headers)).not.toContain('x-optimizer-sdk-annotation');
    // the call id names a metered call whose reasons the client can read
    const call = await client.calls.find(info!.call_id!);
    expect(call?.reasons.length).toBeGreaterThan(0);
  });

  it('hands back the cost block of streamText on the finish metadata, keeping raw chunks out unless asked', async () => {
    const optimizer = createOptimizer({ baseURL: rig.gw.url, apiKey: rig.tenant.api_key, annotation: { source: { release: 'r1' } } });
    const result = streamText({ model: optimizer('auto'), prompt: 'Classify: "refund please"', maxRetries: 0, providerOptions: { optimizer: { step: { id: 'ai-stream' } } } });
    const kinds = new Set<string>();
    for await (const part of result.fullStream) kinds.add(part.type);
    expect(kinds.has('raw')).toBe(false);
    expect(await result.text).toBe('Billing');
    const info = optimizerInfo(await result.providerMetadata);
    expect(info?.baseline_cost).toBeGreaterThan(0);
    expect(await stepLabels()).toContain('ai-stream');
  });

  it('refuses a malformed annotation before sending', async () => {
    const optimizer = createOptimizer({ baseURL: rig.gw.url, apiKey: rig.tenant.api_key });
    const before = rig.vendor.requests.length;
    const err = await generateText({ model: optimizer('auto'), prompt: 'x', maxRetries: 0, providerOptions: { optimizer: { run: { seq: -1 } } } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OptimizerError);
    expect(err).toMatchObject({ code: 'client_validation', param: 'optimizer.run.seq' });
    expect(rig.vendor.requests.length).toBe(before);
  });
});
