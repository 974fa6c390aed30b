// Alerts in one gateway: webhook endpoints (secret shown once, rotation), deliveries from
// the outbox signed per Standard Webhooks and accepted by the official `standardwebhooks`
// verifier, retried with the same id and body and a fresh signature, never following a
// redirect, disabled by a 410, refused by the public-only address policy at connect time;
// spend alerts by email to a local SMTP sink. The clock is driven through `next_attempt_at`.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import type { Resolver } from '../src/providers/outbound.ts';
import { authed, signup, startGateway, type TestGateway } from './support/gateway.ts';
import { startLoopback, type Loopback, type SeenRequest } from './support/loopback.ts';
import { startSmtpSink, type SmtpSink } from './support/smtp-sink.ts';
import { PLATFORM_KEY } from './support/vendor.ts';
import { startOpenAIMock, type MockVendor } from '@optimizer/mock-providers';

/** Names for the public-only gateway; nothing is asked of a real resolver. */
const stub: Resolver = async (host) => {
  if (host === 'hooks.example.test') return ['127.0.0.1'];
  throw Object.assign(new Error(`stub resolver: no ${host}`), { code: 'ENOTFOUND' });
};

let smtp: SmtpSink;
let receiver: Loopback;
let vendor: MockVendor;
let gw: TestGateway;
let tenant: { api_key: string; account_id: string; workflow_id: string };
/** What the receiver answers next, in order; 200 once the list is used up. */
let script: ((req: SeenRequest) => { status: number; headers?: Record<string, string> })[] = [];

const sql = (q: string, params: unknown[] = []) => gw.services.db.em().getConnection().execute(q, params) as Promise<Record<string, any>[]>;
const api = (path: string, init: { method?: string; body?: unknown; key?: string } = {}) =>
  fetch(`${gw.url}${path}`, { method: init.method ?? 'GET', headers: authed(init.key ?? tenant.api_key), ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}) });

async function createWebhook(url: string, key = tenant.api_key): Promise<{ id: string; secret: string }> {
  const r = await api('/v1/settings/alerts/webhooks', { method: 'POST', body: { url }, key });
  expect(r.status).toBe(201);
  return (await r.json()) as { id: string; secret: string };
}

/** Queues a test alert for the tenant under a fresh claim key. */
const raise = (accountId = tenant.account_id, type: 'drift' | 'failover' = 'drift') =>
  gw.services.alerts.raise(accountId, `test:${randomUUID()}`, { type, data: { agent: 'wf_test' }, subject: 'Production event: drift', text: 'drift seen' });

/** Makes every pending delivery due now: the retry clock, driven instead of waited for. */
const makeDue = () => sql(`update alert_outbox set next_attempt_at = now() where status = 'pending' and account_id = ?`, [tenant.account_id]);

beforeAll(async () => {
  smtp = await startSmtpSink();
  receiver = await startLoopback((req, res) => {
    const next = script.shift();
    const a = next ? next(req) : { status: 200 };
    res.writeHead(a.status, a.headers ?? {});
    res.end();
  });
  vendor = await startOpenAIMock({ apiKey: PLATFORM_KEY });
  gw = await startGateway({
    env: { OPENAI_BASE_URL: vendor.url, OPENAI_API_KEY: PLATFORM_KEY, SMTP_URL: smtp.url, WEBHOOK_ADDRESS_POLICY: 'any', ALERT_POLL_MS: '60000', ALERT_SPEND_CHECK_MS: '3600000' },
  });
});
afterAll(async () => {
  await gw?.close();
  await receiver?.close();
  await smtp?.close();
  await vendor?.close();
});
beforeEach(async () => {
  tenant = await signup(gw);
  receiver.seen.length = 0;
  script = [];
  smtp.messages.length = 0;
});

describe('webhook endpoints', () => {
  it('shows the signing secret once, on creation, and never lists it', async () => {
    const created = await createWebhook(`${receiver.url}/hooks`);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{40,}$/);
    const listed = await (await api('/v1/settings/alerts')).text();
    expect(listed).toContain(created.id);
    expect(listed).not.toContain(created.secret);
    expect(listed).not.toContain(created.secret.slice(6));
    expect(gw.logs.join('')).not.toContain(created.secret.slice(6));
    const other = await signup(gw);
    expect((await api(`/v1/settings/alerts/webhooks/${created.id}`, { method: 'DELETE', key: other.api_key })).status).toBe(404); // another tenant's
  });

  it('redelivers a failed webhook with the same id and body and a fresh signature until the receiver takes it, and the official verifier accepts it', async () => {
    const { secret } = await createWebhook(`${receiver.url}/hooks`);
    script = [() => ({ status: 500 }), () => ({ status: 503 }), () => ({ status: 500 })];
    expect(await raise()).toBe(true);
    let lastDue = 0;
    for (let attempt = 1; attempt <= 4; attempt++) {
      await gw.services.alerts.deliverNow();
      expect(receiver.seen).toHaveLength(attempt);
      const [row] = await sql(`select status, attempts, extract(epoch from next_attempt_at - now())::float8 as due_in from alert_outbox where account_id = ?`, [tenant.account_id]);
      if (attempt < 4) {
        // backed off: due later each time (30 s, 60 s, 120 s, each ±25 %)
        expect(row).toMatchObject({ status: 'pending', attempts: attempt });
        expect(row!.due_in).toBeGreaterThan(lastDue);
        lastDue = row!.due_in;
        await new Promise((r) => setTimeout(r, 1_050)); // a new second, so a fresh timestamp to sign
        await makeDue();
      } else expect(row).toMatchObject({ status: 'delivered', attempts: 4 });
    }
    const ids = new Set(receiver.seen.map((s) => s.headers['webhook-id']));
    const bodies = new Set(receiver.seen.map((s) => s.body));
    const signatures = new Set(receiver.seen.map((s) => s.headers['webhook-signature']));
    expect(ids.size).toBe(1);
    expect(bodies.size).toBe(1);
    expect(signatures.size).toBe(4);
    const wh = new Webhook(secret);
    for (const s of receiver.seen) {
      const headers = { 'webhook-id': String(s.headers['webhook-id']), 'webhook-timestamp': String(s.headers['webhook-timestamp']), 'webhook-signature': String(s.headers['webhook-signature']) };
      expect(wh.verify(s.body, headers)).toMatchObject({ type: 'drift', data: { agent: 'wf_test' } });
    }
  });

  it('does not follow a redirect, even to a loopback address it is allowed to reach', async () => {
    const target = await startLoopback();
    try {
      await createWebhook(`${receiver.url}/hooks`);
      script = [() => ({ status: 302, headers: { location: `${target.url}/elsewhere` } })];
      await raise();
      await gw.services.alerts.deliverNow();
      expect(receiver.seen).toHaveLength(1);
      expect(target.seen).toHaveLength(0);
      const [row] = await sql(`select status, last_status, last_error from alert_outbox where account_id = ?`, [tenant.account_id]);
      expect(row).toMatchObject({ status: 'pending', last_status: 302, last_error: 'redirect_not_followed' });
    } finally {
      await target.close();
    }
  });

  it('disables an endpoint that answers 410 Gone and queues nothing more for it', async () => {
    const { id } = await createWebhook(`${receiver.url}/hooks`);
    script = [() => ({ status: 410 })];
    await raise();
    await gw.services.alerts.deliverNow();
    const listed = (await (await api('/v1/settings/alerts')).json()) as { webhooks: { id: string; enabled: boolean }[] };
    expect(listed.webhooks).toEqual([expect.objectContaining({ id, enabled: false })]);
    await raise();
    await makeDue();
    await gw.services.alerts.deliverNow();
    expect(receiver.seen).toHaveLength(1);
    expect(await sql(`select status from alert_outbox where account_id = ?`, [tenant.account_id])).toEqual([{ status: 'dead' }]);
  });

  it('signs with the new and the old secret for a while after rotation, and shows the new one once', async () => {
    const { id, secret: old } = await createWebhook(`${receiver.url}/hooks`);
    const r = await api(`/v1/settings/alerts/webhooks/${id}/rotate`, { method: 'POST' });
    expect(r.status).toBe(200);
    const { secret } = (await r.json()) as { secret: string };
    expect(secret).not.toBe(old);
    await raise();
    await gw.services.alerts.deliverNow();
    const s = receiver.seen[0]!;
    const headers = { 'webhook-id': String(s.headers['webhook-id']), 'webhook-timestamp': String(s.headers['webhook-timestamp']), 'webhook-signature': String(s.headers['webhook-signature']) };
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(new Webhook(secret).verify(s.body, headers)).toBeTruthy();
    expect(new Webhook(old).verify(s.body, headers)).toBeTruthy();
  });
});

describe('production events', () => {
  it('sends one webhook per failover event the meter stored, however often the check runs', async () => {
    await createWebhook(`${receiver.url}/hooks`);
    // the row the meter writes when a call failed over (pipeline/meter-call.ts)
    await sql(`insert into workflow_events (id, account_id, workflow_id, kind, created_at, call_id, payload) values (?, ?, ?, 'failover', now(), 'call_x', '{}')`, [
      `evt_${randomUUID()}`,
      tenant.account_id,
      tenant.workflow_id,
    ]);
    await gw.services.alerts.checkEvents();
    await gw.services.alerts.checkEvents();
    await gw.services.alerts.deliverNow();
    expect(receiver.seen).toHaveLength(1);
    expect(JSON.parse(receiver.seen[0]!.body)).toMatchObject({ type: 'failover', data: { agent: tenant.workflow_id, call_id: 'call_x' } });
  });
});

describe('spend alerts by email', () => {
  it('emails the tenant once when its month-to-date spend crosses a threshold of its cap', async () => {
    const call = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: authed(tenant.api_key), body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }] }) });
    const cost = ((await call.json()) as { optimizer: { actual_cost: number } }).optimizer.actual_cost;
    expect(cost).toBeGreaterThan(0);
    await gw.services.meter.flush();
    // spent is 90 % of the cap: the 50 % and 80 % thresholds are crossed, 100 % is not
    const put = await api('/v1/settings/alerts', { method: 'PUT', body: { spend_cap_usd: cost / 0.9, email_to: ['ops@example.com'] } });
    expect(put.status).toBe(200);
    await gw.services.alerts.checkSpend();
    await gw.services.alerts.checkSpend(); // a second look (or a second replica) alerts nothing new
    await gw.services.alerts.deliverNow();
    expect(smtp.messages.map((m) => /^Subject: (.*)$/m.exec(m.raw)?.[1]).sort()).toEqual([
      expect.stringContaining('50% of your'),
      expect.stringContaining('80% of your'),
    ]);
    expect(smtp.messages[0]!.to).toEqual(['ops@example.com']);
  });

  it('refuses an email channel on a gateway with no SMTP server, and an unknown field', async () => {
    expect((await api('/v1/settings/alerts', { method: 'PUT', body: { spend_caps: 3 } })).status).toBe(422);
    expect((await api('/v1/settings/alerts', { method: 'PUT', body: { email_to: ['not-an-email'] } })).status).toBe(422);
  });
});

describe('the public-only address policy for webhooks', () => {
  let strict: TestGateway;
  beforeAll(async () => {
    strict = await startGateway({ env: { ALERT_POLL_MS: '60000', ALERT_SPEND_CHECK_MS: '3600000' }, hooks: { resolve: stub } });
  });
  afterAll(async () => {
    await strict?.close();
  });

  it('refuses a loopback URL on write, and a name that resolves to loopback at connect time', async () => {
    const t = await signup(strict);
    const post = (url: string) => fetch(`${strict.url}/v1/settings/alerts/webhooks`, { method: 'POST', headers: authed(t.api_key), body: JSON.stringify({ url }) });
    expect((await post(`${receiver.url}/hooks`)).status).toBe(422);
    expect((await post('http://localhost:9/hooks')).status).toBe(422);
    expect((await post('ftp://hooks.example.test/x')).status).toBe(422);
    const r = await post(`http://hooks.example.test:${receiver.port}/hooks`);
    expect(r.status).toBe(201);
    await strict.services.alerts.raise(t.account_id, 'test:policy', { type: 'drift', data: {}, subject: 's', text: 't' });
    await strict.services.alerts.deliverNow();
    expect(receiver.seen).toHaveLength(0);
    const [row] = (await strict.services.db.em().getConnection().execute(`select status, last_error from alert_outbox where account_id = ?`, [t.account_id])) as Record<string, unknown>[];
    expect(row).toMatchObject({ status: 'pending', last_error: 'ERR_BLOCKED_ADDRESS' });
  });
});
