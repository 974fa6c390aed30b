import { Migration } from '@mikro-orm/migrations';

/**
 * Alerts (spec 4.5, 6): webhook endpoints with their sealed signing secrets, the durable
 * outbox every email and webhook is delivered from (retried by `next_attempt_at`, leased by
 * `claimed_until` so two replicas never send one row at once), and the claims that make an
 * alert fire once across replicas (`spend:<account>:<month>:<percent>`, `event:<id>`).
 */
export class Alerts extends Migration {
  override name = '0013-alerts';
  up(): void {
    this.addSql(`create table webhook_endpoints (
      id text primary key,
      account_id text not null references accounts(id) on delete cascade,
      url text not null,
      secret jsonb not null,
      previous_secret jsonb,
      previous_until timestamptz,
      enabled boolean not null default true,
      disabled_reason text,
      created_at timestamptz not null default now())`);
    this.addSql(`create index webhook_endpoints_account_idx on webhook_endpoints(account_id)`);
    this.addSql(`create table alert_claims (
      key text primary key,
      created_at timestamptz not null default now())`);
    this.addSql(`create table alert_outbox (
      id text primary key,
      account_id text not null references accounts(id) on delete cascade,
      channel text not null,
      target text not null,
      event_type text not null,
      body text not null,
      status text not null default 'pending',
      attempts int not null default 0,
      next_attempt_at timestamptz not null default now(),
      claimed_until timestamptz,
      last_status int,
      last_error text,
      created_at timestamptz not null default now(),
      delivered_at timestamptz)`);
    this.addSql(`create index alert_outbox_due_idx on alert_outbox(next_attempt_at) where status = 'pending'`);
    // the event check reads the last day's events of every tenant
    this.addSql(`create index workflow_events_time_idx on workflow_events(created_at)`);
  }
}
