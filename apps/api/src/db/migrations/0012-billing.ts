import { Migration } from '@mikro-orm/migrations';

/**
 * Billing (issue 16): a double-entry ledger in integer micro-dollars. Every movement is a
 * transaction of entries that sum to zero; a balance is the sum of one book's entries, never
 * a number kept on its own. Entry ids are derived from what caused them (a call, a Stripe
 * event), so the meter's replay and a webhook's redelivery insert nothing twice.
 */
export class Billing extends Migration {
  override name = '0012-billing';
  up(): void {
    this.addSql(`create table ledger_entries (
      id text primary key,
      txn_id text not null,
      account_id text not null references accounts(id) on delete cascade,
      book text not null check (book in ('wallet', 'dev_allowance', 'revenue', 'payments', 'grants')),
      amount_micros bigint not null,
      kind text not null,
      call_id text,
      ref text,
      created_at timestamptz not null default now())`);
    this.addSql(`create index ledger_entries_account_idx on ledger_entries(account_id, created_at desc)`);
    this.addSql(`create index ledger_entries_txn_idx on ledger_entries(txn_id)`);
    // Stripe events already applied, by event id: a redelivery or replay is recognised here.
    this.addSql(`create table stripe_events (
      id text primary key,
      type text not null,
      account_id text references accounts(id) on delete cascade,
      created timestamptz not null,
      received_at timestamptz not null default now())`);
    this.addSql(`create table billing_profiles (
      account_id text primary key references accounts(id) on delete cascade,
      stripe_customer_id text,
      payment_method_id text,
      auto_topup_threshold_micros bigint,
      auto_topup_amount_micros bigint,
      updated_at timestamptz not null default now())`);
    this.addSql(`create table subscriptions (
      workflow_id text primary key references workflows(id) on delete cascade,
      account_id text not null references accounts(id) on delete cascade,
      status text not null check (status in ('active', 'cancelled', 'lapsed')),
      started_at timestamptz not null default now(),
      current_period_end timestamptz not null,
      cancel_at_period_end boolean not null default false,
      price_micros bigint not null)`);
    this.addSql(`create index subscriptions_account_idx on subscriptions(account_id)`);
  }
}
