// Alerts across real gateway processes on one PostgreSQL and Redis: calls through two
// replicas that push a tenant's spend past 80 % of its cap send one email and one webhook,
// not one per call or per replica; and a delivery queued in the outbox survives a SIGKILL
// and is sent after the restart, once.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIMock, type MockVendor } from '@optimizer/mock-providers';
import { authed, signup, testDatabase, type TestDatabase } from './support/gateway.ts';
import { replicaEnv, spawnGateway, type GatewayProcess } from './support/process.ts';
import { startLoopback, type Loopback } from './support/loopback.ts';
import { startSmtpSink, type SmtpSink } from './support/smtp-sink.ts';
import { PLATFORM_KEY } from './support/vendor.ts';

let vendor: MockVendor;
let smtp: SmtpSink;
let receiver: Loopback;
let receiverUp = true;

beforeAll(async () => {
  vendor = await startOpenAIMock({ apiKey: PLATFORM_KEY });
  smtp = await startSmtpSink();
  receiver = await startLoopback((_req, res) => {
    res.writeHead(receiverUp ? 200 : 503);
    res.end();
  });
});
afterAll(async () => {
  await receiver?.close();
  await smtp?.close();
  await vendor?.close();
});

async function until(what: string, ok: () => boolean | Promise<boolean>, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

// a small max_tokens: billing reserves a call's most it could cost against the same spend cap
const complete = (url: string, key: string) =>
  fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: authed(key), body: JSON.stringify({ model: 'gpt-4o-mini', max_tokens: 8, messages: [{ role: 'user', content: 'count me' }] }) });

describe('alerts across replicas', { timeout: 400_000 }, () => {
  let db: TestDatabase;
  const procs: GatewayProcess[] = [];
  beforeAll(async () => {
    db = await testDatabase({ force: true });
  });
  afterAll(async () => {
    for (const p of procs) if (p.proc.exitCode === null) p.kill('SIGKILL');
    await Promise.all(procs.map((p) => p.exited));
    await db?.drop();
  });

  it('sends one email and one webhook when calls through two replicas cross 80% of the spend cap', async () => {
    receiverUp = true;
    receiver.seen.length = 0;
    smtp.messages.length = 0;
    const env = replicaEnv(db.url!, vendor.url, PLATFORM_KEY, { SMTP_URL: smtp.url, WEBHOOK_ADDRESS_POLICY: 'any', ALERT_POLL_MS: '100', ALERT_SPEND_CHECK_MS: '100', METER_FLUSH_MS: '20' });
    const a = await spawnGateway({ ...env, DATA_DIR: `/tmp/optimizer-alerts-${randomBytes(6).toString('hex')}` });
    procs.push(a);
    const b = await spawnGateway({ ...env, DATA_DIR: `/tmp/optimizer-alerts-${randomBytes(6).toString('hex')}` });
    procs.push(b);
    const t = await signup(a!);
    const first = await complete(a!.url, t.api_key);
    const cost = ((await first.json()) as { optimizer: { actual_cost: number } }).optimizer.actual_cost;
    expect(cost).toBeGreaterThan(0);
    // five such calls are 85 % of the cap: the fifth crosses 80 %, none reaches 100 %
    const put = await fetch(`${a!.url}/v1/settings/alerts`, { method: 'PUT', headers: authed(t.api_key), body: JSON.stringify({ spend_cap_usd: (5 * cost) / 0.81, spend_thresholds: [80, 100], email_to: ['finance@example.com'] }) });
    expect(put.status).toBe(200);
    const hook = await fetch(`${b!.url}/v1/settings/alerts/webhooks`, { method: 'POST', headers: authed(t.api_key), body: JSON.stringify({ url: `${receiver.url}/alerts` }) });
    expect(hook.status).toBe(201);
    await new Promise((r) => setTimeout(r, 500)); // both replicas checked the spend below 80 %: nothing sent
    expect(smtp.messages).toHaveLength(0);
    expect(receiver.seen).toHaveLength(0);

    for (const [i, r] of [b, a, b, a].entries()) expect((await complete(r!.url, t.api_key)).status, `call ${i + 2}`).toBe(200);
    await until('the email and the webhook', () => smtp.messages.length >= 1 && receiver.seen.length >= 1);
    await new Promise((r) => setTimeout(r, 1_500)); // many more checks and delivery passes on both replicas
    expect(smtp.messages).toHaveLength(1);
    expect(smtp.messages[0]!.raw).toMatch(/^Subject: Spend alert: 80% of your/m);
    expect(receiver.seen).toHaveLength(1);
    expect(JSON.parse(receiver.seen[0]!.body)).toMatchObject({ type: 'spend_cap.threshold', data: { threshold_percent: 80 } });
    // this pair's master key is not the next test's: it must not pick up (and fail to open) that test's deliveries
    a.kill('SIGTERM');
    b.kill('SIGTERM');
    await Promise.all([a.exited, b.exited]);
  });

  it('sends a queued delivery after the process is killed and restarted, once', async () => {
    receiverUp = false;
    receiver.seen.length = 0;
    const env = replicaEnv(db.url!, vendor.url, PLATFORM_KEY, { WEBHOOK_ADDRESS_POLICY: 'any', ALERT_POLL_MS: '100', ALERT_SPEND_CHECK_MS: '100', METER_FLUSH_MS: '20' });
    const dataDir = `/tmp/optimizer-alerts-${randomBytes(6).toString('hex')}`;
    const gw = await spawnGateway({ ...env, DATA_DIR: dataDir });
    procs.push(gw);
    const t = await signup(gw);
    expect((await fetch(`${gw.url}/v1/settings/alerts/webhooks`, { method: 'POST', headers: authed(t.api_key), body: JSON.stringify({ url: `${receiver.url}/alerts` }) })).status).toBe(201);
    const cost = ((await (await complete(gw.url, t.api_key)).json()) as { optimizer: { actual_cost: number } }).optimizer.actual_cost;
    expect((await fetch(`${gw.url}/v1/settings/alerts`, { method: 'PUT', headers: authed(t.api_key), body: JSON.stringify({ spend_cap_usd: cost / 0.9, spend_thresholds: [80] }) })).status).toBe(200);

    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      // the alert is queued and its first attempt fails (the receiver is down): it waits in the outbox
      await until('a failed first attempt', async () => (await client.query(`select attempts from alert_outbox where account_id = $1 and attempts >= 1`, [t.account_id])).rowCount === 1);
      gw.kill('SIGKILL');
      await gw.exited;
      receiverUp = true;
      const seenBefore = receiver.seen.length;
      await client.query(`update alert_outbox set next_attempt_at = now() where account_id = $1`, [t.account_id]); // the backoff has run out
      const again = await spawnGateway({ ...env, DATA_DIR: dataDir });
      procs.push(again);
      await until('the delivery after the restart', async () => (await client.query(`select 1 from alert_outbox where account_id = $1 and status = 'delivered'`, [t.account_id])).rowCount === 1).catch(async (err: Error) => {
        throw new Error(`${err.message}: ${JSON.stringify((await client.query('select status, attempts, last_error, next_attempt_at, claimed_until from alert_outbox')).rows)}\n${again.output()}`);
      });
      await new Promise((r) => setTimeout(r, 1_000)); // more delivery passes: nothing is sent twice
      const delivered = receiver.seen.slice(seenBefore).filter((s) => s.path === '/alerts');
      expect(delivered).toHaveLength(1);
      expect(delivered[0]!.headers['webhook-id']).toBe(receiver.seen[0]!.headers['webhook-id']);
      const rows = await client.query(`select status, attempts from alert_outbox where account_id = $1`, [t.account_id]);
      expect(rows.rows).toEqual([{ status: 'delivered', attempts: 2 }]);
      again.kill('SIGTERM');
      await again.exited;
    } finally {
      await client.end();
    }
  });
});
