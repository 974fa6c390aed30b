// Statements (issue 16, acceptance 4): a period's savings by source, fee_rate, fees and amount
// due, recomputed from GET /v1/calls, match the stored statement to the micro-dollar, and the
// fee is fee_rate × each call's saving.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authed, signup } from './support/gateway.ts';
import { startRig, type Rig } from './support/vendor.ts';

let rig: Rig;
beforeAll(async () => {
  rig = await startRig();
  rig.vendor.script({ usage: { prompt_tokens: 120, completion_tokens: 40 } });
});
afterAll(() => rig.close());

const micros = (usd: number) => Math.round(usd * 1e6);

async function ask(key: string, content: string, headers: Record<string, string> = {}) {
  const r = await fetch(`${rig.gw.url}/v1/chat/completions`, { method: 'POST', headers: authed(key, headers), body: JSON.stringify({ model: 'gpt-4.1', max_tokens: 64, messages: [{ role: 'user', content }] }) });
  expect(r.status).toBe(200);
  await r.text();
}

interface CallView {
  saving: number;
  saving_source: string | null;
  charge: { usage: number; fee: number } | null;
  created_at: string;
}

describe('statements', { timeout: 60_000 }, () => {
  it('equal, to the micro-dollar, the statement recomputed from GET /v1/calls, with fees at fee_rate × savings', async () => {
    const t = await signup(rig.gw);
    const put = await fetch(`${rig.gw.url}/v1/settings/routing`, { method: 'PUT', headers: authed(t.api_key), body: JSON.stringify({ cache: { exact: true, ttl_seconds: 600 } }) });
    expect(put.status).toBe(200);
    for (const q of ['alpha', 'beta', 'gamma']) {
      await ask(t.api_key, q); // a miss, charged at cost
      await ask(t.api_key, q); // a hit: saves the baseline, charged the fee
    }
    await ask(t.api_key, 'own key', { 'x-provider-key': 'sk-platform-test-key' });

    const calls = ((await (await fetch(`${rig.gw.url}/v1/calls?limit=500`, { headers: authed(t.api_key) })).json()) as { data: CallView[] }).data;
    expect(calls).toHaveLength(7);
    const [statement] = ((await (await fetch(`${rig.gw.url}/v1/billing/statements`, { headers: authed(t.api_key) })).json()) as { data: any[] }).data;

    const bySource: Record<string, number> = { cache: 0, routing: 0, ttc: 0, trace: 0 };
    let fees = 0;
    let usage = 0;
    let feesAtRate = 0;
    for (const c of calls) {
      if (c.saving_source) bySource[c.saving_source]! += micros(c.saving);
      fees += micros(c.charge!.fee);
      usage += micros(c.charge!.usage);
      feesAtRate += Math.floor(statement.fee_rate * Math.max(0, micros(c.saving)));
    }
    const total = Object.values(bySource).reduce((a, b) => a + b, 0);
    expect(bySource.cache).toBeGreaterThan(0);
    expect(fees).toBeGreaterThan(0);
    expect(statement.micros).toEqual({ savings: { ...bySource, total }, fees, fees_invoiced: 0, usage, amount_due: usage + fees });
    expect(statement.invoice).toBeNull(); // no paid production: nothing goes on a processor invoice
    expect(statement.fee_rate).toBe(0.2);
    expect(fees).toBe(feesAtRate);
    expect(statement.calls).toBe(7);
    expect(statement.amount_due_usd).toBe((usage + fees) / 1e6);
    expect(statement.period).toBe(new Date().toISOString().slice(0, 7));
    // the wallet and allowance paid exactly what is due
    expect(micros(statement.paid_from.dev_allowance_usd) + micros(statement.paid_from.wallet_usd)).toBe(usage + fees);
  });

  it('lists one statement per month between from and to, and empty months as zero', async () => {
    const t = await signup(rig.gw);
    await ask(t.api_key, 'this month');
    const now = new Date();
    const earlier = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 2, 15)).toISOString().slice(0, 10);
    const r = await fetch(`${rig.gw.url}/v1/billing/statements?from=${earlier}&to=${now.toISOString().slice(0, 10)}`, { headers: authed(t.api_key) });
    const { data } = (await r.json()) as { data: any[] };
    expect(data.map((s) => s.period)).toEqual([0, 1, 2].map((k) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - k, 1)).toISOString().slice(0, 7)));
    expect(data[0].calls).toBe(1);
    expect(data[1]).toMatchObject({ calls: 0, amount_due_usd: 0, closed: true });
    expect((await fetch(`${rig.gw.url}/v1/billing/statements?from=nope`, { headers: authed(t.api_key) })).status).toBe(422);
    // another tenant's statement never shows these calls
    const other = await signup(rig.gw);
    const [theirs] = ((await (await fetch(`${rig.gw.url}/v1/billing/statements`, { headers: authed(other.api_key) })).json()) as { data: any[] }).data;
    expect(theirs.calls).toBe(0);
  });

  it('keeps a savings ledger per month whose savings by source and fees are the statements\', oldest first, with running totals', async () => {
    const t = await signup(rig.gw);
    const put = await fetch(`${rig.gw.url}/v1/settings/routing`, { method: 'PUT', headers: authed(t.api_key), body: JSON.stringify({ cache: { exact: true, ttl_seconds: 600 } }) });
    expect(put.status).toBe(200);
    await ask(t.api_key, 'ledger');
    await ask(t.api_key, 'ledger'); // a cache hit: a saving and its fee
    await rig.gw.services.meter.flush();
    // a copy of the hit two months back, so the ledger spans saving months and an empty one
    const now = new Date();
    const back = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 2, 10));
    const sql = rig.gw.services.db.em().getConnection();
    const [hit] = (await sql.execute(`select id from call_records where account_id = ? and cache_hit order by created_at desc limit 1`, [t.account_id])) as { id: string }[];
    await sql.execute(`create temporary table moved as select * from call_records where id = ?`, [hit!.id]);
    await sql.execute(`update moved set id = ?, created_at = ?`, [`${hit!.id}-old`, back.toISOString()]);
    await sql.execute(`insert into call_records select * from moved`);
    await sql.execute(`drop table moved`);

    const from = back.toISOString().slice(0, 10);
    const q = `from=${from}&to=${now.toISOString().slice(0, 10)}`;
    const ledger = (await (await fetch(`${rig.gw.url}/v1/billing/savings-ledger?${q}`, { headers: authed(t.api_key) })).json()) as { data: any[]; totals: any };
    const statements = ((await (await fetch(`${rig.gw.url}/v1/billing/statements?${q}`, { headers: authed(t.api_key) })).json()) as { data: any[] }).data.reverse();
    expect(ledger.data.map((p) => p.period)).toEqual(statements.map((s) => s.period));
    expect(ledger.data).toHaveLength(3);
    let saved = 0;
    let fees = 0;
    for (const [i, p] of ledger.data.entries()) {
      const st = statements[i]!;
      expect(p.savings).toEqual(st.savings);
      expect(p.fee_usd).toBe(st.fees_usd);
      expect(p.fee_rate).toBe(st.fee_rate);
      expect(p.calls).toBe(st.calls);
      expect(micros(p.net_saving_usd)).toBe(st.micros.savings.total - st.micros.fees);
      saved += st.micros.savings.total;
      fees += st.micros.fees;
      expect(micros(p.cumulative_saving_usd)).toBe(saved);
      expect(micros(p.cumulative_fee_usd)).toBe(fees);
      expect(micros(p.cumulative_net_saving_usd)).toBe(saved - fees);
    }
    expect(ledger.data[0].savings.cache).toBeGreaterThan(0); // the month two back
    expect(ledger.data[1]).toMatchObject({ calls: 0, fee_usd: 0, net_saving_usd: 0 });
    expect(ledger.data[2].savings.cache).toBe(ledger.data[0].savings.cache);
    expect(fees).toBeGreaterThan(0);
    expect(ledger.totals).toEqual({ saving_usd: saved / 1e6, fee_usd: fees / 1e6, net_saving_usd: (saved - fees) / 1e6 });
    // the default is this month alone; a bad date is 422; another tenant's ledger is empty
    expect(((await (await fetch(`${rig.gw.url}/v1/billing/savings-ledger`, { headers: authed(t.api_key) })).json()) as { data: any[] }).data.map((p) => p.period)).toEqual([now.toISOString().slice(0, 7)]);
    expect((await fetch(`${rig.gw.url}/v1/billing/savings-ledger?to=soon`, { headers: authed(t.api_key) })).status).toBe(422);
    const other = await signup(rig.gw);
    expect(((await (await fetch(`${rig.gw.url}/v1/billing/savings-ledger?${q}`, { headers: authed(other.api_key) })).json()) as { totals: any }).totals).toEqual({ saving_usd: 0, fee_usd: 0, net_saving_usd: 0 });
  });
});
