import { Migration } from '@mikro-orm/migrations';

/**
 * Connections and managed agents (spec 4.5): a tenant's connections (base URL, the secret
 * sealed like provider keys); managed agents and their runs, each run's events in order
 * (`seq`, the SSE id), the actions a run proposes (executed at most once: `status` moves
 * from proposed to executing under one conditional update), and the month's run counter
 * the run cap is checked against in one atomic upsert.
 */
export class ManagedAgents extends Migration {
  override name = '0015-managed-agents';
  up(): void {
    this.addSql(`create table connections (
      id text primary key,
      account_id text not null references accounts(id) on delete cascade,
      name text not null,
      base_url text not null,
      secret jsonb,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (account_id, name))`);
    this.addSql(`create table managed_agents (
      id text primary key,
      account_id text not null references accounts(id) on delete cascade,
      workflow_id text not null,
      key_id text not null,
      name text not null,
      kind text not null,
      config jsonb not null,
      created_at timestamptz not null default now())`);
    this.addSql(`create index managed_agents_account_idx on managed_agents(account_id, created_at)`);
    this.addSql(`create table managed_run_counts (
      account_id text not null references accounts(id) on delete cascade,
      month text not null,
      used int not null,
      primary key (account_id, month))`);
    this.addSql(`create table managed_runs (
      id text primary key,
      account_id text not null references accounts(id) on delete cascade,
      agent_id text references managed_agents(id) on delete cascade,
      workflow_id text not null,
      key_id text not null,
      kind text not null,
      config jsonb not null,
      input text not null,
      status text not null,
      state jsonb not null,
      error text,
      lease_until timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now())`);
    this.addSql(`create index managed_runs_live_idx on managed_runs(lease_until) where status = 'running'`);
    this.addSql(`create table managed_run_events (
      run_id text not null references managed_runs(id) on delete cascade,
      seq int not null,
      type text not null,
      data jsonb not null,
      created_at timestamptz not null default now(),
      primary key (run_id, seq))`);
    this.addSql(`create table managed_actions (
      id text primary key,
      run_id text not null references managed_runs(id) on delete cascade,
      account_id text not null,
      connection text not null,
      method text not null,
      path text not null,
      body text,
      status text not null default 'proposed',
      response_status int,
      response_body text,
      error text,
      created_at timestamptz not null default now(),
      executed_at timestamptz)`);
    this.addSql(`create index managed_actions_run_idx on managed_actions(run_id)`);
  }
}
