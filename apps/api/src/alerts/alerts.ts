// Alerts (spec 4.5, 6): what fires them and where they go. Two periodic jobs per replica,
// both off the completion's path: the spend check compares each capped tenant's
// month-to-date spend (the metered calls in PostgreSQL) with its thresholds, and the event
// check turns new drift, failover and resettled events into alerts. Each alert is queued
// under a claim key, so it fires once however many replicas see it; the deliverer sends
// the outbox.
import type { AlertEventType, AlertSettings } from '@optimizer/schema';
import type { Database } from '../db/database.ts';
import type { Logger } from '../logger.ts';
import type { TopicSettings } from '../settings/topic-settings.ts';
import type { Deliverer } from './deliver.ts';
import type { NewDelivery, Outbox } from './outbox.ts';
import type { WebhookEndpoints } from './webhook-endpoints.ts';

export interface Alert {
  type: AlertEventType;
  data: Record<string, unknown>;
  subject: string;
  text: string;
}

const usd = (micros: number) => Math.round(micros) / 1e6;

export class Alerts {
  readonly #db: Database;
  readonly #settings: TopicSettings<AlertSettings>;
  readonly #outbox: Outbox;
  readonly #endpoints: WebhookEndpoints;
  readonly #deliverer: Deliverer;
  readonly #logger: Logger;
  readonly #timers: NodeJS.Timeout[] = [];
  readonly #running = new Map<string, Promise<unknown>>();

  constructor(deps: { db: Database; settings: TopicSettings<AlertSettings>; outbox: Outbox; endpoints: WebhookEndpoints; deliverer: Deliverer; logger: Logger }) {
    this.#db = deps.db;
    this.#settings = deps.settings;
    this.#outbox = deps.outbox;
    this.#endpoints = deps.endpoints;
    this.#deliverer = deps.deliverer;
    this.#logger = deps.logger;
  }

  start(pollMs: number, checkMs: number): void {
    this.#every('deliver', pollMs, () => this.#deliverer.run());
    this.#every('check', checkMs, async () => {
      await this.checkSpend();
      await this.checkEvents();
    });
  }

  #every(name: string, ms: number, job: () => Promise<unknown>): void {
    const t = setInterval(() => void this.#once(name, job), ms);
    t.unref();
    this.#timers.push(t);
  }

  /** Runs a job unless it is still running from the last tick; a failure is logged, never thrown. */
  #once(name: string, job: () => Promise<unknown>): Promise<unknown> {
    const busy = this.#running.get(name);
    if (busy) return busy;
    const p = job()
      .catch((err: unknown) => this.#logger.warn({ job: name, code: (err as NodeJS.ErrnoException).code ?? (err as Error).name }, 'alert job failed; it runs again at the next tick'))
      .finally(() => this.#running.delete(name));
    this.#running.set(name, p);
    return p;
  }

  /** Sends what is due now (tests drive the outbox with this instead of waiting for the timer). */
  deliverNow(): Promise<unknown> {
    return this.#once('deliver', () => this.#deliverer.run());
  }

  /** Queues an alert on every channel the tenant set, once per claim key; whether this call claimed it. */
  async raise(accountId: string, claimKey: string, alert: Alert): Promise<boolean> {
    const settings = this.#settings.get(accountId);
    const deliveries: NewDelivery[] = [];
    const body = JSON.stringify({ type: alert.type, timestamp: new Date().toISOString(), data: alert.data });
    // an alert the tenant does not want, or has no channel for, is still claimed: it is not looked at again
    if (settings.events.includes(alert.type)) for (const id of await this.#endpoints.enabledIds(accountId)) deliveries.push({ account_id: accountId, channel: 'webhook', target: id, event_type: alert.type, body });
    if (settings.events.includes(alert.type) && settings.email_to.length > 0) {
      deliveries.push({ account_id: accountId, channel: 'email', target: settings.email_to.join(','), event_type: alert.type, body: JSON.stringify({ subject: alert.subject, text: alert.text }) });
    }
    return this.#outbox.enqueueOnce(claimKey, deliveries);
  }

  /** Compares each capped tenant's spend this month (UTC) with its thresholds; a threshold crossed alerts once a month. */
  async checkSpend(now = new Date()): Promise<void> {
    const capped = [...this.#settings.entries()].filter(([, s]) => s.spend_cap_usd !== null && s.spend_thresholds.length > 0);
    if (capped.length === 0) return;
    const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
    const period = monthStart.toISOString().slice(0, 7);
    const rows = (await this.#db
      .em()
      .getConnection()
      .execute(
        `select account_id, coalesce(sum(actual_micros), 0)::float8 as spent from call_records
          where account_id in (${capped.map(() => '?').join(', ')}) and created_at >= ? group by account_id`,
        [...capped.map(([id]) => id), monthStart],
      )) as { account_id: string; spent: number }[];
    const spent = new Map(rows.map((r) => [r.account_id, r.spent]));
    for (const [accountId, s] of capped) {
      const micros = spent.get(accountId) ?? 0;
      const capMicros = s.spend_cap_usd! * 1e6;
      for (const pct of [...s.spend_thresholds].sort((a, b) => a - b)) {
        if (micros < (capMicros * pct) / 100) break;
        const data = { threshold_percent: pct, spend_cap_usd: s.spend_cap_usd, spent_usd: usd(micros), period };
        await this.raise(accountId, `spend:${accountId}:${period}:${pct}`, {
          type: 'spend_cap.threshold',
          data,
          subject: `Spend alert: ${pct}% of your $${s.spend_cap_usd} monthly cap`,
          text: `This month (${period}) your spend reached $${usd(micros)}, ${pct}% or more of your $${s.spend_cap_usd} spend cap.`,
        });
      }
    }
  }

  /** Alerts for production events (drift, failover, resettled) of the last day not alerted yet, for tenants with a channel. */
  async checkEvents(): Promise<void> {
    const emailed = [...this.#settings.entries()].filter(([, s]) => s.email_to.length > 0).map(([id]) => id);
    const rows = (await this.#db
      .em()
      .getConnection()
      .execute(
        `select e.id, e.account_id, e.workflow_id, e.kind, e.created_at, e.call_id from workflow_events e
          where e.kind in ('drift', 'failover', 'resettled') and e.created_at > now() - interval '1 day'
            and (e.account_id in (select account_id from webhook_endpoints where enabled)${emailed.length ? ` or e.account_id in (${emailed.map(() => '?').join(', ')})` : ''})
            and not exists (select 1 from alert_claims c where c.key = 'event:' || e.id)
          order by e.created_at limit 200`,
        emailed,
      )) as { id: string; account_id: string; workflow_id: string; kind: AlertEventType; created_at: Date | string; call_id: string | null }[];
    for (const e of rows) {
      const data = { event_id: e.id, agent: e.workflow_id, call_id: e.call_id, at: new Date(e.created_at).toISOString() };
      await this.raise(e.account_id, `event:${e.id}`, { type: e.kind, data, subject: `Production event: ${e.kind}`, text: `Agent ${e.workflow_id} reported ${e.kind} at ${data.at}.` });
    }
  }

  stop(): void {
    for (const t of this.#timers) clearInterval(t);
    this.#deliverer.close();
  }

  /** Waits for jobs in flight (shutdown). */
  async settle(): Promise<void> {
    await Promise.all(this.#running.values());
  }
}
