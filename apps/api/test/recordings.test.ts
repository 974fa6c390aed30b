// Capture settings and recordings (spec 2.7, 4.2, 4.5; issue 15): what is kept of each call
// (none, metadata, or the request as the vendor saw it with the stored response), PII masked
// when asked, every recording returned in full page by page, the stored responses behind a
// step's calls, retention enforced by the sweep, and tenant isolation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordingView } from '@optimizer/schema';
import { authed, signup } from './support/gateway.ts';
import { routeOnMockOpenAI, startRig, type Rig } from './support/vendor.ts';

let rig: Rig;
let stranger: Awaited<ReturnType<typeof signup>>;
const ANSWER = 'Ticket routed to billing; reply sent to jane.doe@example.com.';

beforeAll(async () => {
  rig = await startRig();
  stranger = await signup(rig.gw, 'Other Co');
  expect((await routeOnMockOpenAI(rig)).status).toBe(200);
  rig.vendor.script({ content: ANSWER });
});
afterAll(async () => {
  await rig.close();
});

async function api(method: string, path: string, body?: unknown, key = rig.tenant.api_key) {
  const r = await fetch(`${rig.gw.url}${path}`, { method, headers: authed(key), ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: r.status, body: (await r.json()) as any };
}

async function capture(settings: Record<string, unknown>, key = rig.tenant.api_key) {
  const r = await api('PUT', '/v1/settings/capture', settings, key);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
}

async function recordings(query = '', key = rig.tenant.api_key, wf = rig.tenant.workflow_id): Promise<{ data: RecordingView[]; next_cursor: string | null }> {
  const r = await api('GET', `/v1/workflows/${wf}/recordings${query}`, undefined, key);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
}

/** One call through the official SDK; its call id. */
async function complete(content: string, extra: Record<string, unknown> = {}): Promise<string> {
  const { response } = await rig.client.chat.completions
    .create({ model: 'gpt-4.1', messages: [{ role: 'system', content: 'You sort support tickets.' }, { role: 'user', content }], ...extra } as never)
    .withResponse();
  return response.headers.get('x-optimizer-call-id')!;
}

describe('capture settings', () => {
  it('read the defaults (metadata, 30 days, PII masked) until written, and refuse a bad write with 422 naming the field', async () => {
    expect((await api('GET', '/v1/settings/capture')).body).toEqual({ content: 'metadata', retention_days: 30, redact_pii: true });
    for (const [body, param] of [
      [{ content: 'everything' }, 'content'],
      [{ retention_days: 0 }, 'retention_days'],
      [{ retention_days: 1.5 }, 'retention_days'],
      [{ redact_pii: 'yes' }, 'redact_pii'],
      [{ keep: true }, 'keep'],
    ] as const) {
      const r = await api('PUT', '/v1/settings/capture', body);
      expect(r.status, JSON.stringify(body)).toBe(422);
      expect(r.body.error).toMatchObject({ code: 'validation_failed', param });
    }
    expect(await capture({ content: 'full' })).toEqual({ content: 'full', retention_days: 30, redact_pii: true });
    expect((await api('GET', '/v1/settings/capture')).body).toEqual({ content: 'full', retention_days: 30, redact_pii: true });
    // another tenant's settings are its own
    expect((await api('GET', '/v1/settings/capture', undefined, stranger.api_key)).body.content).toBe('metadata');
  });
});

describe('recordings', () => {
  it('keep the request and the stored response in full, personal data masked', async () => {
    await capture({ content: 'full', redact_pii: true });
    const id = await complete('Refund card 4111 1111 1111 1111 for jane.doe@example.com, call +1 415 555 0100');
    const rec = (await recordings()).data.find((r) => r.id === id)!;
    expect(rec).toMatchObject({ call_id: id, content: 'full', redacted: true, requested_model: 'gpt-4.1', served_model: 'gpt-4.1', status: 200, error_code: null, meta: { messages: 2, roles: ['system', 'user'] } });
    expect(rec.request!.messages).toEqual([
      { role: 'system', content: 'You sort support tickets.' },
      { role: 'user', content: 'Refund card [card] for [email], call [phone]' },
    ]);
    expect(rec.request!.model).toBe('gpt-4.1');
    const choice = (rec.response!.choices as { message: { content: string } }[])[0]!;
    expect(choice.message.content).toBe('Ticket routed to billing; reply sent to [email].');
    expect(rec.response!.optimizer).toBeUndefined();
    expect(rec.usage.prompt_tokens).toBeGreaterThan(0);
    expect(JSON.stringify(rec)).not.toContain('jane.doe@example.com');
  });

  it('keep the text as sent when redaction is off, only metadata under metadata, and nothing under none', async () => {
    await capture({ content: 'full', redact_pii: false });
    const clear = await complete('Write to jane.doe@example.com');
    await capture({ content: 'metadata' });
    const meta = await complete('Write to jane.doe@example.com');
    await capture({ content: 'none' });
    const none = await complete('Write to jane.doe@example.com');
    const all = (await recordings('?limit=500')).data;
    const byId = new Map(all.map((r) => [r.id, r]));
    expect(byId.get(clear)).toMatchObject({ content: 'full', redacted: false });
    expect((byId.get(clear)!.request!.messages as { content: string }[])[1]!.content).toBe('Write to jane.doe@example.com');
    expect(byId.get(meta)).toMatchObject({ content: 'metadata', request: null, response: null, meta: { messages: 2, roles: ['system', 'user'] }, served_model: 'gpt-4.1' });
    expect(byId.has(none)).toBe(false);
    // the call itself is metered whatever is captured
    expect((await api('GET', '/v1/calls?limit=5')).body.data.map((c: { id: string }) => c.id)).toContain(none);
  });

  it('keep a streamed answer whole, as one chat.completion', async () => {
    await capture({ content: 'full', redact_pii: true });
    const stream = await rig.client.chat.completions.create({ model: 'gpt-4.1', messages: [{ role: 'user', content: 'stream it' }], stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe(ANSWER);
    const rec = (await recordings('?limit=1')).data[0]!;
    expect(rec.request!.stream).toBe(true);
    expect((rec.response!.choices as { message: { content: string } }[])[0]!.message.content).toBe('Ticket routed to billing; reply sent to [email].');
  });

  it('are returned newest first, page by page, until next_cursor is null', async () => {
    await capture({ content: 'full' });
    for (let i = 0; i < 5; i++) await complete(`page ${i}`);
    const total = (await recordings('?limit=500')).data;
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await recordings(`?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.data.map((r) => r.id));
      cursor = page.next_cursor;
      pages++;
    } while (cursor);
    expect(seen).toEqual(total.map((r) => r.id));
    expect(pages).toBe(Math.ceil(total.length / 2));
    const times = total.map((r) => Date.parse(r.created_at));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect((await api('GET', `/v1/workflows/${rig.tenant.workflow_id}/recordings?cursor=nonsense`)).status).toBe(422);
    expect((await api('GET', `/v1/workflows/${rig.tenant.workflow_id}/recordings?limit=0`)).status).toBe(422);
  });

  it("are another tenant's 404: neither its recordings nor the stored responses behind its steps", async () => {
    const mine = await api('GET', `/v1/workflows/${rig.tenant.workflow_id}/recordings`, undefined, stranger.api_key);
    expect(mine.status).toBe(404);
    expect(mine.body.error.code).toBe('not_found');
    expect((await recordings('', stranger.api_key, stranger.workflow_id)).data).toEqual([]);
  });
});

describe("a step's calls", () => {
  it('carry the stored response behind each call', async () => {
    await capture({ content: 'full' });
    const r = await fetch(`${rig.gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: authed(rig.tenant.api_key),
      body: JSON.stringify({ model: 'auto', messages: [{ role: 'user', content: 'triage this' }], optimizer: { step: { id: 'triage' } } }),
    });
    expect(r.status).toBe(200);
    const id = r.headers.get('x-optimizer-call-id');
    const steps = (await api('GET', `/v1/workflows/${rig.tenant.workflow_id}/steps`)).body.data as { label: string; fingerprint: string }[];
    const step = steps.find((s) => s.label === 'triage')!;
    const calls = (await api('GET', `/v1/workflows/${rig.tenant.workflow_id}/steps/${step.fingerprint}/calls`)).body.data as { id: string; recording: RecordingView | null }[];
    const call = calls.find((c) => c.id === id)!;
    expect(call.recording).toMatchObject({ id, content: 'full', step: { fingerprint: step.fingerprint, label: 'triage' } });
    expect((call.recording!.response!.choices as { message: { content: string } }[])[0]!.message.content).toBe('Ticket routed to billing; reply sent to [email].');
    expect((await api('GET', `/v1/workflows/${rig.tenant.workflow_id}/steps/${step.fingerprint}/calls`, undefined, stranger.api_key)).status).toBe(404);
  });
});

describe('retention', () => {
  it("the sweep deletes recordings older than each tenant's retention, and keeps the rest", async () => {
    await capture({ content: 'full', retention_days: 2 });
    await capture({ content: 'metadata', retention_days: 30 }, stranger.api_key);
    const mine = await complete('keep me a while');
    const theirs = await strangerCall();
    const recordingsNow = async () => (await recordings('?limit=500')).data.length;
    const before = await recordingsNow();
    expect(before).toBeGreaterThan(0);
    const day = 24 * 3600_000;
    // a day on, nothing is old enough
    expect(await rig.gw.services.recordings.sweep(new Date(Date.now() + day))).toBe(0);
    expect((await recordings('?limit=500')).data.map((r) => r.id)).toContain(mine);
    // three days on, every recording of this tenant is past its two days; the other tenant keeps 30
    expect(await rig.gw.services.recordings.sweep(new Date(Date.now() + 3 * day))).toBe(before);
    expect(await recordingsNow()).toBe(0);
    expect((await recordings('', stranger.api_key, stranger.workflow_id)).data.map((r) => r.id)).toEqual([theirs]);
    // past the default retention the other tenant's go too
    expect(await rig.gw.services.recordings.sweep(new Date(Date.now() + 31 * day))).toBe(1);
  });
});

/** One call of the other tenant's; its call id. */
async function strangerCall(): Promise<string> {
  const r = await fetch(`${rig.gw.url}/v1/chat/completions`, { method: 'POST', headers: authed(stranger.api_key), body: JSON.stringify({ model: 'gpt-4.1', messages: [{ role: 'user', content: 'theirs' }] }) });
  expect(r.status).toBe(200);
  return r.headers.get('x-optimizer-call-id')!;
}

describe('the capture point', () => {
  it('keeps the request as the guard left it, not as the client sent it', async () => {
    const { newCallContext } = await import('../src/pipeline/context.ts');
    const { annotate } = await import('../src/pipeline/annotate.ts');
    const { captureStage, recordingRow } = await import('../src/pipeline/capture-stage.ts');
    const ctx = newCallContext({ accountId: 'acct', workflowId: 'wf', keyId: 'key' } as never, undefined);
    annotate(ctx, { model: 'gpt-4.1', messages: [{ role: 'user', content: 'I am Jane Roe' }] });
    // what a guard does: a new body with the name replaced by a placeholder (stages never edit the client's in place)
    ctx.body = { ...ctx.body, messages: [{ role: 'user', content: 'I am <PERSON_1>' }] };
    captureStage(ctx, { content: 'full', retention_days: 30, redact_pii: false });
    ctx.body = { ...ctx.body, messages: [] }; // a later stage (pruning) builds yet another body: the capture keeps the guarded one
    const row = recordingRow(ctx, { status: 200, error_code: null, served_model: 'gpt-4.1', prompt_tokens: 5, completion_tokens: 1 }, '{"choices":[{"message":{"role":"assistant","content":"Hi"}}]}');
    expect(row!.request!.messages).toEqual([{ role: 'user', content: 'I am <PERSON_1>' }]);
    expect(row!.response).toEqual({ choices: [{ message: { role: 'assistant', content: 'Hi' } }] });
  });
});
