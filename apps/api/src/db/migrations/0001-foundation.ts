import { Migration } from '@mikro-orm/migrations';

export class Foundation extends Migration {
  override name = '0001-foundation';
  up(): void {
    this.addSql(`create table accounts (
      id text primary key, company text not null, email text not null unique,
      created_at timestamptz not null default now())`);
    this.addSql(`create table workflows (
      id text primary key, account_id text not null references accounts(id) on delete cascade,
      name text not null, discovery_enabled boolean not null default false,
      created_at timestamptz not null default now())`);
    this.addSql(`create index workflows_account_idx on workflows(account_id)`);
    this.addSql(`create table api_keys (
      id text primary key, account_id text not null references accounts(id) on delete cascade,
      workflow_id text not null references workflows(id) on delete cascade,
      hash text not null unique, hint text not null,
      created_at timestamptz not null default now(), revoked_at timestamptz)`);
    this.addSql(`create index api_keys_account_idx on api_keys(account_id)`);
    this.addSql(`create index api_keys_workflow_idx on api_keys(workflow_id)`);
    this.addSql(`create table admin_keys (id text primary key, hash text not null unique, created_at timestamptz not null default now())`);
    this.addSql(`create table provider_keys (
      id text primary key, account_id text not null references accounts(id) on delete cascade,
      provider text not null, sealed jsonb not null,
      created_at timestamptz not null default now(), updated_at timestamptz not null default now(),
      unique (account_id, provider))`);
    this.addSql(`create table catalog_models (
      model text primary key, provider text not null, profile jsonb not null,
      disabled boolean not null default false, updated_at timestamptz not null default now())`);
    this.addSql(`create table call_records (
      id text primary key, account_id text not null, workflow_id text not null,
      created_at timestamptz not null, requested_model text not null, served_model text, provider text,
      stream boolean not null, status integer not null, error_code text,
      prompt_tokens integer not null, completion_tokens integer not null,
      cached_tokens integer not null, reasoning_tokens integer not null, usage_estimated boolean not null,
      baseline_micros bigint not null, served_micros bigint not null, actual_micros bigint not null,
      exploration_micros bigint not null, saving_micros bigint not null, saving_source text,
      cache_hit boolean not null, reasons jsonb not null, latency_ms double precision not null,
      overhead_ms double precision not null, vendor_status integer, idempotency_key text, detail jsonb not null)`);
    this.addSql(`create index call_records_tenant_time_idx on call_records(account_id, created_at desc)`);
    this.addSql(`create index call_records_workflow_time_idx on call_records(workflow_id, created_at desc)`);
    this.addSql(`create table activity (
      id text primary key, call_id text not null, account_id text not null, workflow_id text not null,
      created_at timestamptz not null, attempt integer not null, provider text not null, model text not null,
      status integer, outcome text not null, latency_ms double precision not null,
      prompt_tokens integer not null, completion_tokens integer not null, cost_micros bigint not null)`);
    this.addSql(`create index activity_tenant_time_idx on activity(account_id, created_at desc)`);
  }
}
