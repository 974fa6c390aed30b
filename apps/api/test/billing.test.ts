// Wallet, dev allowance and the double-entry ledger (issue 16): what calls are charged, from
// which book, and the 402s that refuse a call before any vendor is paid.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authed, signup } from './support/gateway.ts';
import { callRecords, startRig, type Rig } from './support/vendor.ts';
import { countPromptTokens, promptTokenBound } from '../src/pipeline/tokens.ts';

const ask = (rig: Rig, key: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  fetch(`${rig.gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: authed(key, headers),
    body: JSON.stringify({ model: 'gpt-4.1', max_tokens: 100, messages: [{ role: 'user', content: 'price me' }], ...extra }),
  });

const billing = async (rig: Rig, key: string) => (await (await fetch(`${rig.gw.url}/v1/billing`, { headers: authed(key) })).json()) as any;

async function ledger(rig: Rig, accountId: string) {
  await rig.gw.services.meter.flush();
  return (await rig.gw.services.db.em().getConnection().execute('select * from ledger_entries where account_id = ? order by id', [accountId])) as Record<string, any>[];
}

function expectBalanced(rows: Record<string, any>[]) {
  const byTxn = new Map<string, number>();
  for (const r of rows) byTxn.set(r.txn_id, (byTxn.get(r.txn_id) ?? 0) + Number(r.amount_micros));
  for (const [txn, sum] of byTxn) expect(sum, `transaction ${txn} sums to zero`).toBe(0);
  for (const txn of byTxn.keys()) expect(rows.filter((r) => r.txn_id === txn)).toHaveLength(2);
}

const credit = (rig: Rig, accountId: string, amount_usd: number) =>
  fetch(`${rig.gw.url}/v1/admin/accounts/${accountId}/credit`, { method: 'POST', headers: authed(rig.gw.adminKey), body: JSON.stringify({ amount_usd, reason: 'test credit' }) });

describe('wallet and dev allowance', { timeout: 60_000 }, () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig();
    rig.vendor.script({ usage: { prompt_tokens: 10, completion_tokens: 50 } });
  });
  afterAll(() => rig.close());

  it('grants a new tenant its dev allowance as a ledger transaction and shows it in the billing view', async () => {
    const t = await signup(rig.gw);
    const view = await billing(rig, t.api_key);
    expect(view.balances).toMatchObject({ wallet_usd: 0, dev_allowance_usd: 25 });
    expect(view.prices.fee_rate).toBe(0.2);
    expect(view.auto_topup).toBeNull();
    expect(view.subscriptions).toEqual([]);
    expect(view.ledger).toEqual([expect.objectContaining({ book: 'dev_allowance', amount_usd: 25, kind: 'allowance' })]);
    expectBalanced(await ledger(rig, t.account_id));
  });

  it('charges a call on the platform key to the dev allowance, as a balanced pair equal to the call cost', async () => {
    const t = await signup(rig.gw);
    const r = await ask(rig, t.api_key);
    expect(r.status).toBe(200);
    const callId = r.headers.get('x-optimizer-call-id')!;
    const [call] = await callRecords(rig.gw, t.account_id);
    // gpt-4.1: 10 × $2 + 50 × $8 per million
    expect(Number(call!.actual_micros)).toBe(420);
    expect(call!.detail.billing).toMatchObject({ usage_micros: 420, fee_micros: 0 });
    const rows = await ledger(rig, t.account_id);
    expectBalanced(rows);
    const charge = rows.filter((e) => e.call_id === callId);
    expect(charge.map((e) => [e.book, Number(e.amount_micros)]).sort()).toEqual([['dev_allowance', -420], ['revenue', 420]]);
    const view = await billing(rig, t.api_key);
    expect(view.balances.dev_allowance_micros).toBe(25_000_000 - 420);
    expect(view.ledger[0]).toMatchObject({ call_id: callId, book: 'dev_allowance', amount_micros: -420 });
  });

  it("charges nothing but the fee when the call runs on the tenant's own key", async () => {
    const t = await signup(rig.gw);
    const r = await ask(rig, t.api_key, {}, { 'x-provider-key': 'sk-platform-test-key' });
    expect(r.status).toBe(200);
    const [call] = await callRecords(rig.gw, t.account_id);
    expect(Number(call!.actual_micros)).toBe(420);
    expect(call!.detail.billing).toMatchObject({ usage_micros: 0, fee_micros: 0 }); // a pinned call saves nothing: no fee
    const rows = await ledger(rig, t.account_id);
    expect(rows.filter((e) => e.call_id !== null)).toEqual([]);
    expect((await billing(rig, t.api_key)).balances.dev_allowance_usd).toBe(25);
  });

  it('gives the reservation back when the vendor fails, so a failed call is not charged', async () => {
    const t = await signup(rig.gw);
    const r = await ask(rig, t.api_key, { model: 'error-5xx' });
    expect(r.status).toBeGreaterThanOrEqual(400);
    const rows = await ledger(rig, t.account_id);
    expect(rows.filter((e) => e.call_id !== null)).toEqual([]);
    expect((await billing(rig, t.api_key)).balances.dev_allowance_usd).toBe(25);
    expect((await ask(rig, t.api_key)).status).toBe(200); // and the allowance is whole for the next call
  });
});

describe('402s before any vendor is paid', { timeout: 60_000 }, () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({ env: { BILLING_DEV_ALLOWANCE_USD: '0' } });
    rig.vendor.script({ usage: { prompt_tokens: 10, completion_tokens: 50 } });
  });
  afterAll(() => rig.close());

  it('refuses with dev_allowance_exhausted while the wallet was never funded, then wallet_empty once it ran dry', async () => {
    const t = await signup(rig.gw);
    rig.vendor.reset();
    rig.vendor.script({ usage: { prompt_tokens: 10, completion_tokens: 50 } });
    const refused = await ask(rig, t.api_key);
    expect(refused.status).toBe(402);
    const body = (await refused.json()) as any;
    expect(body.error).toMatchObject({ type: 'dev_allowance_exhausted', code: 'dev_allowance_exhausted' });
    expect(rig.vendor.requests).toHaveLength(0);

    // enough for one call's reservation (100 output tokens at most), not two
    expect((await credit(rig, t.account_id, 0.0012)).status).toBe(204);
    expect((await ask(rig, t.api_key)).status).toBe(200);
    const dry = await ask(rig, t.api_key);
    expect(dry.status).toBe(402);
    expect(((await dry.json()) as any).error.type).toBe('wallet_empty');
    const view = await billing(rig, t.api_key);
    expect(view.balances.wallet_micros).toBe(1200 - 420);
    expectBalanced(await ledger(rig, t.account_id));
  });

  it('refuses with spend_cap_reached when the month\'s spend would pass the cap, with cap and used', async () => {
    const t = await signup(rig.gw);
    await credit(rig, t.account_id, 10);
    const put = await fetch(`${rig.gw.url}/v1/settings/alerts`, { method: 'PUT', headers: authed(t.api_key), body: JSON.stringify({ spend_cap_usd: 0.001 }) });
    expect(put.status).toBe(200);
    expect(await put.json()).toMatchObject({ spend_cap_usd: 0.001 });
    expect(await (await fetch(`${rig.gw.url}/v1/settings/alerts`, { headers: authed(t.api_key) })).json()).toMatchObject({ spend_cap_usd: 0.001 });
    expect((await ask(rig, t.api_key)).status).toBe(200); // 420 spent; the next call may cost up to 820
    const capped = await ask(rig, t.api_key);
    expect(capped.status).toBe(402);
    expect(((await capped.json()) as any).error).toMatchObject({ type: 'spend_cap_reached', cap: 0.001, used: 0.00042 });
    const bad = await fetch(`${rig.gw.url}/v1/settings/alerts`, { method: 'PUT', headers: authed(t.api_key), body: JSON.stringify({ spend_cap_usd: -1 }) });
    expect(bad.status).toBe(422);
  });

  it("reserves on the prompt's size, and counts its tokens before refusing a call the counted bound would fit", async () => {
    // a prompt of many bytes and few tokens: its size bounds it at several times its tokens
    const messages = [{ role: 'user', content: 'hello '.repeat(400) }];
    const p = rig.gw.services.catalog.get('gpt-4.1')!;
    const reserve = (input: number) => Math.ceil(input * p.input_per_mtok + 100 * p.output_per_mtok);
    const [counted, sized] = [reserve(countPromptTokens(messages)), reserve(promptTokenBound(messages))];
    expect(sized).toBeGreaterThan(2 * counted);
    const t = await signup(rig.gw);
    // the wallet covers the counted bound, not the size's: the call is served, not refused
    expect((await credit(rig, t.account_id, (counted + (sized - counted) / 2) / 1e6)).status).toBe(204);
    expect((await ask(rig, t.api_key, { messages })).status).toBe(200);
    // and one the counted bound does not fit either is refused
    const t2 = await signup(rig.gw);
    expect((await credit(rig, t2.account_id, (counted - 10) / 1e6)).status).toBe(204);
    const refused = await ask(rig, t2.api_key, { messages });
    expect(refused.status).toBe(402);
    expect(((await refused.json()) as any).error.type).toBe('wallet_empty');
  });
});
