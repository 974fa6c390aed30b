// The LangChain helper against a real gateway and mock vendor, driven with the real
// `@langchain/openai` and `@langchain/core` packages (their current major, 1): the annotation (on the model and per
// call) reaches the gateway, and the cost block reaches the caller on response_metadata,
// for invoke, for a stream, and for a chain built with LangChain's own pipe.
import { HumanMessage } from '@langchain/core/messages';
import { StringOutputParser } from '@langchain/core/output_parsers';
import { ChatPromptTemplate } from '@langchain/core/prompts';
import type { AIMessageChunk } from '@langchain/core/messages';
import { ChatOpenAI } from '@langchain/openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OptimizerClient, OptimizerError } from '../src/index.ts';
import { OptimizerChatOpenAI, optimizerInfo } from '../src/langchain/index.ts';
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
const chat = (extra: Partial<ConstructorParameters<typeof OptimizerChatOpenAI>[0]> = {}) =>
  new OptimizerChatOpenAI({ baseURL: rig.gw.url, apiKey: rig.tenant.api_key, model: 'auto', maxRetries: 0, ...extra });

describe('the LangChain helper', () => {
  it('sends the model annotation merged with the call option and puts the cost block on response_metadata', async () => {
    const model = chat({ annotation: { source: { release: 'lc-1' } } });
    const answer = await model.invoke([new HumanMessage('Classify: "my invoice is wrong"')], { optimizer: { step: { id: 'lc-triage' } } });
    expect(answer.content).toBe('Billing');
    const info = optimizerInfo(answer);
    expect(info?.baseline_cost).toBeGreaterThan(0);
    expect(info?.saving).toBeCloseTo(info!.baseline_cost - info!.actual_cost, 9);
    expect(answer.additional_kwargs).not.toHaveProperty('__raw_response');
    expect(await stepLabels()).toContain('lc-triage');
    const call = await client.calls.find(info!.call_id!);
    expect(call?.reasons.length).toBeGreaterThan(0);
  });

  it.each([
    ['with usage asked for', { streamUsage: true }],
    ['with the model left as it comes', {}],
  ])('puts the cost block, call id and served model on the last chunk of a stream (%s)', async (_how, fields) => {
    const model = chat(fields);
    let whole: AIMessageChunk | undefined;
    for await (const chunk of await model.stream('Classify: "refund please"', { optimizer: { step: { id: 'lc-stream' } } })) whole = whole ? whole.concat(chunk) : chunk;
    expect(whole?.content).toBe('Billing');
    const info = optimizerInfo(whole);
    expect(info?.baseline_cost).toBeGreaterThan(0);
    expect(info?.model).toMatch(/\S/);
    expect(await stepLabels()).toContain('lc-stream');
    const call = await client.calls.find(info!.call_id!);
    expect(call?.reasons.length).toBeGreaterThan(0);
  });

  it('carries the annotation through a prompt | model chain and reports the cost through a callback', async () => {
    const seen: unknown[] = [];
    const prompt = ChatPromptTemplate.fromMessages([['system', 'Classify the ticket.'], ['human', '{ticket}']]);
    const model = chat({ annotation: { step: { id: 'lc-chain' } } });
    const text = await prompt
      .pipe(model)
      .pipe(new StringOutputParser())
      .invoke({ ticket: 'wrong invoice' }, { callbacks: [{ handleLLMEnd: (out) => void seen.push(optimizerInfo(out.generations[0]?.[0] && 'message' in out.generations[0][0] ? (out.generations[0][0].message as never) : undefined)) }] });
    expect(text).toBe('Billing');
    expect(seen).toHaveLength(1);
    expect((seen[0] as { baseline_cost: number }).baseline_cost).toBeGreaterThan(0);
    expect(await stepLabels()).toContain('lc-chain');
  });

  it('without the helper, a plain ChatOpenAI sends the annotation as a model kwarg and finds the block in the raw response (as docs/recipes.md shows)', async () => {
    const plain = new ChatOpenAI({
      model: 'auto',
      apiKey: rig.tenant.api_key,
      configuration: { baseURL: `${rig.gw.url}/v1` },
      modelKwargs: { optimizer: { step: { id: 'lc-plain' } } },
      __includeRawResponse: true,
      maxRetries: 0,
    });
    const answer = await plain.invoke('Classify: "my invoice is wrong"');
    expect(answer.content).toBe('Billing');
    const raw = answer.additional_kwargs.__raw_response as { optimizer?: { saving: number; baseline_cost: number } };
    expect(raw.optimizer?.baseline_cost).toBeGreaterThan(0);
    expect(await stepLabels()).toContain('lc-plain');
  });

  it('refuses a malformed annotation before sending', async () => {
    const before = rig.vendor.requests.length;
    await expect(chat().invoke('x', { optimizer: { intent: { objective: 'cheap' } } as never })).rejects.toBeInstanceOf(OptimizerError);
    expect(rig.vendor.requests.length).toBe(before);
  });
});
