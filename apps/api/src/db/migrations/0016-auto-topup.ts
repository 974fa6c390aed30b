import { Migration } from '@mikro-orm/migrations';

/**
 * Auto top-up and the wallet-low alert (issues 16, 17). A crossing below a level is found
 * under the account's billing_profiles row lock, with the balance read after the lock is
 * held, so replicas see crossings one at a time: `auto_topup_armed` / `wallet_low_armed` are
 * true while the wallet is at or above the level, and the replica that turns one false owns
 * that crossing. Each off-session charge is a row of `auto_topups` (its id is the Stripe
 * idempotency key); at most one is pending per account (the partial unique index).
 */
export class AutoTopup extends Migration {
  override name = '0016-auto-topup';
  up(): void {
    this.addSql(`alter table billing_profiles
      add column auto_topup_armed boolean not null default true,
      add column wallet_low_armed boolean not null default true,
      add column wallet_low_seq int not null default 0`);
    this.addSql(`create table auto_topups (
      id text primary key,
      account_id text not null references accounts(id) on delete cascade,
      amount_micros bigint not null,
      threshold_micros bigint not null,
      balance_micros bigint not null,
      status text not null check (status in ('pending', 'succeeded', 'failed')),
      payment_intent_id text unique,
      failure text,
      created_at timestamptz not null default now(),
      settled_at timestamptz)`);
    this.addSql(`create unique index auto_topups_one_pending on auto_topups(account_id) where status = 'pending'`);
    this.addSql(`create index auto_topups_account_idx on auto_topups(account_id, created_at desc)`);
  }
}
