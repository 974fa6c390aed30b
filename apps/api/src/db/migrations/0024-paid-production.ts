import { Migration } from '@mikro-orm/migrations';

/**
 * Production that is paid for (issue 35). A managed subscription is a Stripe subscription: the
 * row keeps its id, the plan it was sold on (price and run cap) and the state the processor last
 * said, read under the row's lock; `past_due_since` and `paused_from` (when a past-due
 * subscription's grace ends and its production answers 402) follow from it. A period's fee is
 * one row of `fee_invoices` per account and period: the replica whose insert wins closes it, so
 * a period is invoiced once however many replicas close it.
 */
export class PaidProduction extends Migration {
  override name = '0024-paid-production';
  up(): void {
    this.addSql(`alter table subscriptions drop constraint subscriptions_status_check`);
    this.addSql(`alter table subscriptions add constraint subscriptions_status_check check (status in ('pending', 'incomplete', 'active', 'cancelled', 'past_due', 'lapsed'))`);
    this.addSql(`alter table subscriptions
      add column stripe_subscription_id text unique,
      add column stripe_status text,
      add column run_cap int not null default 0,
      add column past_due_since timestamptz,
      add column paused_from timestamptz,
      add column synced_at timestamptz`);
    this.addSql(`create table fee_invoices (
      account_id text not null references accounts(id) on delete cascade,
      period text not null,
      status text not null check (status in ('closing', 'nothing_due', 'open', 'paid')),
      fee_micros bigint not null,
      line_cents bigint not null,
      stripe_invoice_id text unique,
      paid_cents bigint not null default 0,
      paid_from text check (paid_from in ('card', 'wallet')),
      failure text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (account_id, period))`);
  }
}
