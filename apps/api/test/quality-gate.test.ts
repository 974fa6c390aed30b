// The quality gate checks what the request asked for: a routed call whose cheap model answers
// JSON that breaks the request's schema, or calls a tool with arguments that break the tool's
// parameter schema, is escalated to the baseline (and counts against the cheap model's policy),
// whether the call streams or not; a stream that asks for structure is held until the gate
// passes it, so an escalation sends no byte of the failed answer.
//
// The baseline (gpt-4.1) is on one mock vendor, whose default answers follow the request's
// schema and which grades as the judge; the cheap rung (Llama 3.3 70B on Together) on another,
// which the test scripts once the step has settled on it.
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIMock, type MockVendor } from '@optimizer/mock-providers';
import { authed } from './support/gateway.ts';
import { stepView, warmStep } from './support/optimizer.ts';
import { PLATFORM_KEY, ROUTING_CLEARED, startRig, type Rig } from './support/vendor.ts';

const CHEAP = 'meta-llama/Llama-3.3-70B-Instruct-Turbo';
const TOGETHER_KEY = 'sk-together-test';

let rig: Rig;
let together: MockVendor;

const grader = (messages: ReadonlyArray<{ role: string; content?: unknown }>) =>
  messages[0]?.role === 'system' && String(messages[0].content).startsWith('You are a strict grader') ? '{"score": 1, "reason": "correct"}' : undefined;

const ticketSchema = {
  type: 'object',
  properties: { category: { type: 'string', enum: ['billing', 'bug', 'other'] }, priority: { type: 'integer', minimum: 1, maximum: 3 } },
  required: ['category', 'priority'],
  additionalProperties: false,
};
const structured = { type: 'json_schema', json_schema: { name: 'ticket', strict: true, schema: ticketSchema } };
const tools = [
  {
    type: 'function',
    function: { name: 'refund', parameters: { type: 'object', properties: { order_id: { type: 'string', minLength: 4 }, amount: { type: 'number', minimum: 0 } }, required: ['order_id', 'amount'] } },
  },
];

function body(step: string, i: number, extra: Record<string, unknown>) {
  return { model: 'auto', messages: [{ role: 'user', content: `ticket ${i}: my invoice is wrong` }], optimizer: { run: { id: `${step}-${i}` }, step: { id: step } }, ...extra };
}

async function ask(step: string, i: number, extra: Record<string, unknown>) {
  const r = await fetch(`${rig.gw.url}/v1/chat/completions`, { method: 'POST', headers: authed(rig.tenant.api_key), body: JSON.stringify(body(step, i, extra)) });
  await rig.gw.learned();
  return r;
}

async function reasonsOf(callId: string): Promise<string[]> {
  await rig.gw.services.meter.flush();
  const r = await fetch(`${rig.gw.url}/v1/calls/${callId}`, { headers: authed(rig.tenant.api_key) });
  return ((await r.json()) as { reasons: string[] }).reasons;
}

/** Quality-gate failures recorded against the cheap model's policy on a step (by the fingerprint x-optimizer-step named). */
async function failuresRecorded(fingerprint: string): Promise<number> {
  await rig.gw.services.meter.flush();
  const rows = (await rig.gw.services.db
    .em()
    .getConnection()
    .execute(`select count(*)::int as n from evidence where fingerprint = ? and kind = 'served' and sample->>'policy' = ? and (sample->>'score')::float = 0`, [fingerprint, `model:${CHEAP}`])) as { n: number }[];
  return rows[0]!.n;
}

/** Learns `step` until it settles on the cheap rung (both vendors answer well while it learns). */
async function settleOnCheap(step: string, extra: Record<string, unknown>, reset = true) {
  if (reset) together.reset();
  // the client reports each call went well: trials of the cheap model become its evidence
  const asked = async (i: number) => {
    const r = await ask(step, i, extra);
    const o = await fetch(`${rig.gw.url}/v1/outcomes`, { method: 'POST', headers: authed(rig.tenant.api_key), body: JSON.stringify({ run_id: `${step}-${i}`, step_id: step, signals: { score: 1 } }) });
    expect(o.status).toBe(202);
    return r;
  };
  // until the cheap rung serves, proven (a step may settle on the baseline for a while before its evidence is enough)
  warmStep(rig, step);
  let view = await stepView(rig, step);
  for (let i = 0; i < 600 && !(view?.settled && view.chosen === `model:${CHEAP}`); i++) {
    await asked(i);
    if (i % 10 === 9) view = await stepView(rig, step);
  }
  expect(view.chosen).toBe(`model:${CHEAP}`);
}

beforeAll(async () => {
  together = await startOpenAIMock({ apiKey: TOGETHER_KEY, grader });
  rig = await startRig({ env: { CIRCUIT_FAILURES: '1000', TOGETHER_BASE_URL: together.url, TOGETHER_API_KEY: TOGETHER_KEY }, vendorOptions: { apiKey: PLATFORM_KEY, grader } });
  const put = await fetch(`${rig.gw.url}/v1/settings/routing`, {
    method: 'PUT',
    headers: authed(rig.tenant.api_key),
    body: JSON.stringify({ ...ROUTING_CLEARED, allowed_providers: ['openai', 'together'], baseline_model: 'gpt-4.1', advanced_search: false, exploration: { step_share: 1 }, ladders: { standard: [CHEAP, 'gpt-4.1'] } }),
  });
  expect(put.status).toBe(200);
}, 60_000);
afterAll(async () => {
  await rig.close();
  await together.close();
});

describe('a routed call asking for a JSON schema', () => {
  it('is escalated to the baseline when the cheap model answers JSON that breaks the schema, streamed and not', { timeout: 240_000 }, async () => {
    await settleOnCheap('triage', { response_format: structured });
    // a well-formed answer still goes out from the cheap model
    const good = await ask('triage', 5000, { response_format: structured });
    expect(good.headers.get('x-optimizer-model')).toBe(CHEAP);

    // now the cheap model answers JSON of the wrong shape: valid JSON, a string where an integer is asked
    together.script({ content: '{"category": "billing", "priority": "high"}' });
    const r = await ask('triage', 5001, { response_format: structured });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-optimizer-model')).toBe('gpt-4.1');
    const answer = JSON.parse(((await r.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content);
    expect(answer).toMatchObject({ category: expect.stringMatching(/^(billing|bug|other)$/), priority: expect.any(Number) });
    const reasons = await reasonsOf(r.headers.get('x-optimizer-call-id')!);
    expect(reasons.join('\n')).toMatch(new RegExp(`quality gate: ${CHEAP.replace(/[./]/g, '\\$&')}'s answer breaks the request's JSON schema \\(/priority must be integer\\); escalated to gpt-4.1`));
    // the failure counts against the cheap model's policy
    expect(await failuresRecorded(r.headers.get('x-optimizer-step')!)).toBe(1);

    // streamed: held until the gate's verdict, so the client sees only the baseline's answer
    together.reset();
    together.script({ content: '{"category": "refund", "priority": 2}' });
    const client = new OpenAI({ baseURL: `${rig.gw.url}/v1`, apiKey: rig.tenant.api_key, maxRetries: 0 });
    const { data: stream, response } = await client.chat.completions.create({ ...body('triage', 5002, {}), response_format: structured, stream: true } as never).withResponse();
    let text = '';
    let final: { optimizer?: unknown } | undefined;
    for await (const chunk of stream as unknown as AsyncIterable<{ choices: { delta?: { content?: string } }[]; optimizer?: unknown }>) {
      text += chunk.choices[0]?.delta?.content ?? '';
      if (chunk.optimizer) final = chunk;
    }
    expect(response.headers.get('x-optimizer-model')).toBe('gpt-4.1');
    expect(response.headers.get('x-optimizer-held')).toBe('quality-gate');
    expect(JSON.parse(text)).toMatchObject({ category: expect.stringMatching(/^(billing|bug|other)$/) });
    expect(text).not.toContain('refund');
    expect(final?.optimizer).toMatchObject({ cache_hit: false });
    expect(together.requests.filter((q) => q.body.model === CHEAP)).toHaveLength(1); // the cheap model was asked once, whole
    const streamed = await reasonsOf(response.headers.get('x-optimizer-call-id')!);
    expect(await failuresRecorded(response.headers.get('x-optimizer-step')!)).toBe(2);
    expect(streamed.join('\n')).toMatch(/quality gate: .*breaks the request's JSON schema \(\/category must be equal to one of the allowed values\); escalated to gpt-4.1/);
  });
});

describe('a routed call offering tools', () => {
  it('is escalated when the cheap model calls a tool with arguments that break its parameter schema, streamed and not', { timeout: 240_000 }, async () => {
    // both vendors call the tool alike (the same call id too), so the cheap model's answers agree with the baseline's
    const good = { tool_calls: [{ id: 'call_1', name: 'refund', arguments: '{"order_id": "ord_1", "amount": 10}' }] };
    rig.vendor.script(good);
    together.script(good);
    await settleOnCheap('refunds', { tools }, false);
    together.script({ tool_calls: [{ name: 'refund', arguments: '{"order_id": 12345, "amount": 10}' }] });
    const r = await ask('refunds', 6000, { tools });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-optimizer-model')).toBe('gpt-4.1');
    const call = ((await r.json()) as { choices: { message: { tool_calls: { function: { name: string; arguments: string } }[] } }[] }).choices[0]!.message.tool_calls[0]!;
    expect(call.function.name).toBe('refund');
    expect(JSON.parse(call.function.arguments)).toEqual({ order_id: 'ord_1', amount: 10 });
    const reasons = await reasonsOf(r.headers.get('x-optimizer-call-id')!);
    expect(reasons.join('\n')).toMatch(/quality gate: .*calls refund with arguments that break its schema \(\/order_id must be string\); escalated to gpt-4.1/);

    // streamed, with a required argument missing
    together.script({ tool_calls: [{ name: 'refund', arguments: '{"order_id": "ord_1"}' }] });
    const s = await fetch(`${rig.gw.url}/v1/chat/completions`, { method: 'POST', headers: authed(rig.tenant.api_key), body: JSON.stringify(body('refunds', 6001, { tools, stream: true })) });
    expect(s.status).toBe(200);
    expect(s.headers.get('x-optimizer-model')).toBe('gpt-4.1');
    const sse = await s.text();
    expect(sse).toContain('"name":"refund"');
    expect(sse).toContain('amount');
    expect(sse.trim().endsWith('data: [DONE]')).toBe(true);
    const streamed = await reasonsOf(s.headers.get('x-optimizer-call-id')!);
    expect(streamed.join('\n')).toMatch(/quality gate: .*calls refund with arguments that break its schema \(\(root\) must have required property 'amount'\); escalated to gpt-4.1/);
  });

  it('streams a routed call that asks for nothing the gate checks as it arrives, not held', async () => {
    const r = await fetch(`${rig.gw.url}/v1/chat/completions`, { method: 'POST', headers: authed(rig.tenant.api_key), body: JSON.stringify(body('chatter', 1, { stream: true })) });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-optimizer-held')).toBeNull();
    expect(await r.text()).toContain('data: [DONE]');
  });
});
