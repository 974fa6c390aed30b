// The alert outbox: every email and webhook is a row first, then a delivery. A row is
// leased (`claimed_until`) by the replica sending it, so two replicas never send it at once,
// and one a killed process held is sent again once its lease runs out. Failures retry with
// exponential backoff and jitter over about half a day, then the row is dead.
import { randomInt } from 'node:crypto';
import type { Database } from '../db/database.ts';
import { newId } from '../security/secrets.ts';

export interface OutboxRow {
  id: string;
  account_id: string;
  channel: 'webhook' | 'email';
  /** The endpoint id (webhook) or a comma-separated address list (email). */
  target: string;
  event_type: string;
  body: string;
  attempts: number;
}

export type NewDelivery = Omit<OutboxRow, 'id' | 'attempts'>;

/** Attempts before a delivery is given up (the last retry about 10 hours after the first try). */
export const MAX_ATTEMPTS = 12;
const BASE_MS = 30_000;
const CAP_MS = 2 * 3_600_000;

/** The wait after the `attempts`-th failure: 30 s doubling to at most 2 h, each with ±25 % jitter. */
export function backoffMs(attempts: number): number {
  const base = Math.min(BASE_MS * 2 ** Math.max(0, attempts - 1), CAP_MS);
  return Math.round(base * (0.75 + randomInt(0, 501) / 1000));
}

export class Outbox {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  #conn() {
    return this.#db.em().getConnection();
  }

  /**
   * Queues deliveries under a claim key, in one statement: only the replica whose claim is
   * new queues them, so an alert fires once however many replicas saw its cause. Returns
   * whether this call queued them.
   */
  async enqueueOnce(claimKey: string, deliveries: NewDelivery[]): Promise<boolean> {
    const rows = deliveries.map((d) => ({ ...d, id: newId('msg') }));
    const claimed = (await this.#conn().execute(
      `with claim as (insert into alert_claims (key) values (?) on conflict do nothing returning key),
            queued as (insert into alert_outbox (id, account_id, channel, target, event_type, body)
              select x.id, x.account_id, x.channel, x.target, x.event_type, x.body
                from claim, jsonb_to_recordset(?::jsonb) as x(id text, account_id text, channel text, target text, event_type text, body text)
              returning id)
       select (select count(*) from claim)::int as claimed`,
      [claimKey, JSON.stringify(rows)],
    )) as { claimed: number }[];
    return claimed[0]!.claimed === 1;
  }

  /** Leases up to `limit` due rows for `leaseMs`. */
  async claimDue(limit: number, leaseMs: number): Promise<OutboxRow[]> {
    return (await this.#conn().execute(
      `update alert_outbox set claimed_until = now() + (? * interval '1 millisecond')
        where id in (select id from alert_outbox
                      where status = 'pending' and next_attempt_at <= now() and (claimed_until is null or claimed_until < now())
                      order by next_attempt_at limit ? for update skip locked)
        returning id, account_id, channel, target, event_type, body, attempts`,
      [leaseMs, limit],
    )) as OutboxRow[];
  }

  async delivered(id: string, status: number | null): Promise<void> {
    await this.#conn().execute(`update alert_outbox set status = 'delivered', attempts = attempts + 1, last_status = ?, last_error = null, delivered_at = now(), claimed_until = null where id = ?`, [status, id]);
  }

  /** A failed attempt: retried after the backoff, or dead after the last attempt (or at once when `final`). */
  async failed(row: OutboxRow, status: number | null, error: string, final = false): Promise<void> {
    const attempts = row.attempts + 1;
    const dead = final || attempts >= MAX_ATTEMPTS;
    await this.#conn().execute(
      `update alert_outbox set status = ?, attempts = ?, last_status = ?, last_error = ?, claimed_until = null,
              next_attempt_at = now() + (? * interval '1 millisecond') where id = ?`,
      [dead ? 'dead' : 'pending', attempts, status, error.slice(0, 200), dead ? 0 : backoffMs(attempts), row.id],
    );
  }
}
